package org.pario.comm;

/**
 * The thresholds that choose collective algorithms, in one overridable place. Defaults follow MPICH's, in
 * bytes of packed data per rank; each can be overridden with a system property of the same name prefixed by
 * {@code pario.tuning.} (for example {@code -Dpario.tuning.allreduceRingMinBytes=1048576}).
 *
 * @param allreduceRingMinBytes from this size on, commutative allreduce runs as a ring reduce-scatter followed
 *                              by a ring allgather (bandwidth-optimal); below it, recursive doubling
 *                              (latency-optimal)
 */
public record CollectiveTuning(long allreduceRingMinBytes) {
    /** The defaults, with any system-property overrides applied. */
    public static final CollectiveTuning DEFAULT = new CollectiveTuning(
        Long.getLong("pario.tuning.allreduceRingMinBytes", 512 * 1024L));
}
