package org.pario.comm;

import java.util.concurrent.CompletableFuture;

import org.pario.comm.internal.Fabric;
import org.pario.comm.internal.Waiting;

/** How a rank waits for an operation: briefly the transport's way ({@link Fabric#waitBriefly}), then it blocks. */
final class Waits {
    private Waits() {
    }

    /**
     * @param f      what to wait for
     * @param fabric the transport that completes it, or null for work that is not a message (file accesses)
     * @return its result
     */
    static <T> T await(final CompletableFuture<T> f, final Fabric fabric) {
        return await(f, fabric, false);
    }

    /**
     * @param prompt whether the awaited message's sender is at work on it already (see {@link Fabric#waitBriefly(
     *               CompletableFuture, boolean)})
     */
    static <T> T await(final CompletableFuture<T> f, final Fabric fabric, final boolean prompt) {
        spin(f, fabric, prompt);
        return f.join();
    }

    /** Returns when {@code f} is done or the brief wait is over, whichever comes first. */
    static void spin(final CompletableFuture<?> f, final Fabric fabric, final boolean prompt) {
        if (fabric == null) {
            Waiting.yieldUntil(f);
        } else {
            fabric.waitBriefly(f, prompt);
        }
    }
}
