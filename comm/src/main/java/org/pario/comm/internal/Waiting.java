package org.pario.comm.internal;

import java.util.concurrent.CompletableFuture;

/**
 * How long a rank checks for a message before it blocks: {@code -Dpario.spinNanos} nanoseconds (default 50 µs).
 * A message from a peer arrives through a transport thread that completes the waiting future; a thread that
 * blocked at once would then have to be woken as well, and on a virtual machine a wake-up from an idle core costs
 * as much as the message itself (docs/history/benchmarks-2026-11.md). The check yields the core between looks rather than spinning tight: the thread that delivers
 * the message may need the very core the waiting thread holds, and a tight spin kept it off for a scheduler tick.
 * The check is bounded, so ranks that outnumber cores or wait for long lose at most that much CPU per wait. 0 turns
 * it off.
 */
public final class Waiting {
    /** How long to check before blocking, in nanoseconds. */
    private static final long SPIN_NANOS = Long.getLong("pario.spinNanos", 50_000L);

    private Waiting() {
    }

    /** Returns when {@code f} is done or {@link #SPIN_NANOS} have passed, yielding the core between looks. */
    public static void yieldUntil(final CompletableFuture<?> f) {
        if (f.isDone() || SPIN_NANOS <= 0) {
            return;
        }
        final long until = System.nanoTime() + SPIN_NANOS;
        while (!f.isDone() && System.nanoTime() - until < 0) {
            Thread.yield();
        }
    }
}
