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
 * it off. A wait for a message checks the transport's way, which may drive its event loop on the waiting thread
 * ({@link #await}).
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

    /**
     * Waits for {@code f} briefly the transport's way ({@link Fabric#waitBriefly(CompletableFuture, boolean)}), then
     * blocks.
     *
     * @param f      what to wait for
     * @param fabric the transport that completes it, or null for work that is not a message (file accesses)
     * @param prompt whether the awaited message's sender is at work on it already
     * @return its result
     */
    public static <T> T await(final CompletableFuture<T> f, final Fabric fabric, final boolean prompt) {
        spin(f, fabric, prompt);
        return f.join();
    }

    /** Returns when {@code f} is done or the brief wait is over, whichever comes first. */
    public static void spin(final CompletableFuture<?> f, final Fabric fabric, final boolean prompt) {
        if (fabric == null) {
            yieldUntil(f);
        } else {
            fabric.waitBriefly(f, prompt);
        }
    }
}
