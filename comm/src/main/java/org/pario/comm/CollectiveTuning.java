package org.pario.comm;

/**
 * The thresholds that choose collective algorithms, in one overridable place, in bytes of packed data per rank.
 * Each can be overridden with a system property of the same name prefixed by {@code pario.tuning.} (for example
 * {@code -Dpario.tuning.allreduceLargeMinBytes=1048576}).
 *
 * @param allreduceLargeMinBytes from this size on, commutative allreduce runs as Rabenseifner's reduce-scatter
 *                               (recursive halving) plus allgather (recursive doubling), moving about twice the
 *                               data per rank whatever the rank count; below it, recursive doubling, which moves
 *                               the whole operand {@code log2(n)} times in as few steps. Default 2 KiB, as
 *                               MPICH's.
 */
public record CollectiveTuning(long allreduceLargeMinBytes) {
    /** The defaults, with any system-property overrides applied. */
    public static final CollectiveTuning DEFAULT = new CollectiveTuning(
        Long.getLong("pario.tuning.allreduceLargeMinBytes", 2048L));
}
