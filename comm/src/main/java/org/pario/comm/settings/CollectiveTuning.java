package org.pario.comm.settings;

/**
 * The thresholds that choose collective algorithms, in one overridable place, in bytes of packed data per rank.
 * What each was measured against is in docs/history/benchmarks-2026-11.md.
 * They are part of {@link CommSettings} ({@link CommSettings#tuning()}), named there with the prefix {@code tuning.}
 * (for example {@code -Dpario.tuning.allreduceLargeMinBytes=1048576}), but for {@code reductionSliceBytes}.
 *
 * @param allreduceLargeMinBytes from this size on, commutative allreduce runs as Rabenseifner's reduce-scatter
 *                               (recursive halving) plus allgather (recursive doubling), moving about twice the
 *                               data per rank whatever the rank count; below it, recursive doubling, which moves
 *                               the whole operand {@code log2(n)} times in half the steps. Default 512 KiB, far
 *                               above MPICH's 2 KiB: a step between Pario's JVMs costs more than one between C
 *                               processes, so the fewer steps pay for the larger data up to a few hundred KiB
 *                               (docs/history/benchmarks-2026-11.md).
 * @param bcastLinearMaxRanks    up to this many ranks and {@code bcastLinearMaxBytes}, bcast's root sends to every
 *                               rank itself instead of down a binomial tree: every rank is then one message from the
 *                               root, and where ranks outnumber cores each step of the tree waits for a rank to
 *                               get a core
 * @param bcastLinearMaxBytes    the largest message, in bytes, that bcast sends linearly
 * @param bcastPipelineMinBytes  from this size on, bcast pipelines segments along the ranks instead of sending the
 *                               whole message down a binomial tree; with 2 ranks too, where a message in pieces
 *                               that each go out while still in the cache is faster than one whole
 * @param bcastSegmentBytes      the pipeline's segment size, in bytes of the packed message (at least one); a rank
 *                               whose datatype's size does not divide it packs and unpacks its segments through a
 *                               buffer, so that ranks with different datatypes of one signature cut the same bytes
 * @param alltoallAllAtOnceMaxBytes up to this size of every block, alltoall(v/w) posts all its receives and sends
 *                               all its blocks before it waits, so ranks wait once instead of once per step of the
 *                               pairwise exchange it uses for larger blocks (which keeps one exchange in flight)
 * @param allreduceSegmentMaxRanks up to this many ranks, Rabenseifner's allreduce of a basic type on a power-of-two
 *                               rank count exchanges its blocks in pieces of {@code allreduceSegmentBytes}: each
 *                               piece is combined as soon as it is in, while the next ones travel, and pieces up to
 *                               the eager limit need no request from the receiver. With more ranks than cores every
 *                               extra message can cost a wake-up, so the default is 2
 * @param allreduceSegmentBytes  the pieces' size in bytes (rounded down to whole elements, at least one)
 * @param barrierLinearMaxRanks  from 3 up to this many ranks, barrier gathers every rank's arrival at rank 0, which
 *                               then lets each go, instead of the dissemination barrier: {@code 2(n - 1)} messages
 *                               instead of {@code n log2(n)}, and rank 0, first to leave, is ready for what follows
 *                               before the others (with 2 ranks dissemination is one exchange either way). Where ranks
 *                               outnumber cores the cores, not the rounds, set the pace
 * @param allreduceLinearMaxRanks from 3 up to this many ranks and {@code allreduceLinearMaxBytes}, a commutative
 *                               allreduce sends every operand to rank 0, which combines them in rank order and sends
 *                               the result back, instead of recursive doubling: {@code 2(n - 1)} messages instead of
 *                               {@code n log2(n)}
 * @param allreduceLinearMaxBytes the largest operand, in packed bytes, reduced that way
 * @param alltoallLinearMaxRanks from 3 up to this many ranks and {@code alltoallLinearMaxBytes}, alltoall sends every
 *                               rank's blocks to rank 0 in one message, and rank 0 sends each rank its blocks in one
 *                               message: {@code 2(n - 1)} messages instead of {@code n(n - 1)}, in two steps instead
 *                               of one, so where every rank has a core of its own and the network's latency counts
 *                               more than the number of messages, 0 (off) may serve better
 * @param alltoallLinearMaxBytes the most bytes of blocks, over all ranks ({@code n * n} blocks), that go through rank 0
 * @param promptWaitMaxBytes     up to this size, a rank that waits for a message its sender sends as soon as it enters
 *                               the call (a linear bcast's or scatter's root) keeps its core for a few microseconds
 *                               before it yields, where ranks outnumber cores ({@code -Dpario.crowdedSpinNanos}):
 *                               such a message is due within them. A larger one takes longer to copy than the wait
 *                               lasts
 * @param reductionSliceBytes    the largest operand, in bytes, a reduction combines in one piece (at most 2 GiB - 8):
 *                               a larger one is reduced slice by slice, so that no rank needs a scratch array of its
 *                               size and no message exceeds what one array can hold
 */
public record CollectiveTuning(long allreduceLargeMinBytes, long bcastLinearMaxRanks, long bcastLinearMaxBytes,
                               long bcastPipelineMinBytes, long bcastSegmentBytes, long alltoallAllAtOnceMaxBytes,
                               long allreduceSegmentMaxRanks, long allreduceSegmentBytes, long barrierLinearMaxRanks,
                               long allreduceLinearMaxRanks, long allreduceLinearMaxBytes, long alltoallLinearMaxRanks,
                               long alltoallLinearMaxBytes, long promptWaitMaxBytes,
                               long reductionSliceBytes) {
    /** @return the defaults */
    public static CollectiveTuning defaults() {
        return CommSettings.defaults().tuning();
    }
}
