package org.pario.comm.internal;

import java.util.concurrent.CompletableFuture;

import org.pario.comm.settings.CommSettings;

/**
 * How long a rank checks for a message before it blocks: setting {@code spinNanos} nanoseconds (default 50 µs).
 * A message from a peer arrives through a transport thread that completes the waiting future; a thread that
 * blocked at once would then have to be woken as well, and on a virtual machine a wake-up from an idle core costs
 * as much as the message itself (docs/history/benchmarks-2026-11.md). The check yields the core between looks rather than spinning tight: the thread that delivers
 * the message may need the very core the waiting thread holds, and a tight spin kept it off for a scheduler tick.
 * The check is bounded, so ranks that outnumber cores or wait for long lose at most that much CPU per wait. 0 turns
 * it off.
 */
public final class Waiting {
    /** How long to check before blocking where no settings say, in nanoseconds. */
    private static final long DEFAULT_SPIN_NANOS = CommSettings.defaults().spinNanos();

    private Waiting() {
    }

    /** Returns when {@code f} is done or the default time has passed, yielding the core between looks. */
    public static void yieldUntil(final CompletableFuture<?> f) {
        yieldUntil(f, DEFAULT_SPIN_NANOS);
    }

    /** Returns when {@code f} is done or {@code spinNanos} have passed, yielding the core between looks. */
    public static void yieldUntil(final CompletableFuture<?> f, final long spinNanos) {
        if (f.isDone() || spinNanos <= 0) {
            return;
        }
        final long until = System.nanoTime() + spinNanos;
        while (!f.isDone() && System.nanoTime() - until < 0) {
            Thread.yield();
        }
    }
}
