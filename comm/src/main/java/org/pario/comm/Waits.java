package org.pario.comm;

import java.util.concurrent.CompletableFuture;

/**
 * How a rank waits for a message: first it checks for {@code -Dpario.spinNanos} nanoseconds (default 50 µs),
 * yielding its core between checks, then it blocks. A message from a peer arrives through an event-loop thread
 * that completes the waiting future; a thread that blocked at once would then have to be woken as well, and on a
 * virtual machine a wake-up from an idle core costs as much as the message itself (measured with 2 ranks on 2
 * cores: 8 B collectives 15-22 µs with the spin against 40-105 µs without). Yielding, not a tight spin, matters:
 * the event-loop thread that delivers the message may need the very core the waiting thread holds, and a tight
 * spin kept it off for a scheduler tick (exchanges, where both ranks wait at once, got slower). The spin is
 * bounded, so ranks that outnumber cores or wait for long lose at most that much CPU per wait. 0 turns it off.
 */
final class Waits {
    /** How long to check before blocking, in nanoseconds. */
    private static final long SPIN_NANOS = Long.getLong("pario.spinNanos", 50_000L);

    private Waits() {
    }

    static <T> T await(final CompletableFuture<T> f) {
        spin(f);
        return f.join();
    }

    /** Returns when {@code f} is done or the spin time has passed, whichever comes first. */
    static void spin(final CompletableFuture<?> f) {
        if (f.isDone() || SPIN_NANOS <= 0) {
            return;
        }
        final long until = System.nanoTime() + SPIN_NANOS;
        while (!f.isDone() && System.nanoTime() - until < 0) {
            Thread.yield();
        }
    }
}
