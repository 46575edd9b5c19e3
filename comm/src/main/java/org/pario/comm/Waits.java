package org.pario.comm;

import java.util.concurrent.CompletableFuture;

/**
 * How a rank waits for a message: optionally spin for {@code -Dpario.spinNanos} nanoseconds (a reply on a fast
 * network can arrive sooner than a parked thread wakes up), then block. The default is not to spin: measured on
 * 2 cores, spinning took CPU from the transport threads and made small messages slower. The spin is bounded, so
 * ranks that outnumber cores never burn them for long.
 */
final class Waits {
    /** How long to spin before blocking, in nanoseconds. */
    private static final long SPIN_NANOS = Long.getLong("pario.spinNanos", 0L);

    private Waits() {
    }

    static <T> T await(final CompletableFuture<T> f) {
        if (!f.isDone() && SPIN_NANOS > 0) {
            final long until = System.nanoTime() + SPIN_NANOS;
            while (!f.isDone() && System.nanoTime() < until) {
                Thread.onSpinWait();
            }
        }
        return f.join();
    }
}
