package org.pario.io.array;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.pario.ParioException;
import org.pario.comm.Communicator;

/**
 * The asynchronous checkpoints of one communicator, cached on it: a duplicate of the communicator for their
 * collectives, and one writing thread that takes them in the order of the calls. Closing the communicator closes
 * this, which waits for the checkpoint in flight.
 */
final class AsyncCheckpoints implements AutoCloseable {
    static final Communicator.AttributeKey<AsyncCheckpoints> KEY = new Communicator.AttributeKey<>(
        AsyncCheckpoints.class, "pario asynchronous checkpoints");

    /** The most bytes staged at once on this rank, for tests of the bound. */
    private final AtomicLong mostStaged = new AtomicLong();
    private final Communicator background;
    private final ThreadPoolExecutor writer;
    private CompletableFuture<CheckpointHeader> last = CompletableFuture.completedFuture(null);

    /** Collective over {@code comm}: duplicates it. */
    AsyncCheckpoints(final Communicator comm) {
        this.background = comm.dup();
        // one user thread, gone when idle: the JVM waits for a write in flight and can exit after it
        this.writer = new ThreadPoolExecutor(0, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            final Thread t = new Thread(r, "pario-checkpoint-writer-" + comm.rank());
            t.setDaemon(false);
            return t;
        });
    }

    /** What runs in the background, on the duplicate communicator. */
    @FunctionalInterface
    interface Write {
        /**
         * @param comm    the duplicate communicator
         * @param drained to run once the ranks' own buffers are no longer read
         * @return the header written
         */
        CheckpointHeader run(Communicator comm, Runnable drained);
    }

    /** Waits until the checkpoint in flight, if any, has been written or has failed (its future says which). */
    void awaitPrevious() {
        try {
            last.handle((h, e) -> null).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ParioException.argument("interrupted while waiting for the previous asynchronous checkpoint");
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e); // handled above: cannot happen
        }
    }

    /**
     * Starts a write, and returns once the ranks' own buffers are no longer read (at once when everything was
     * staged).
     *
     * @param staged      the bytes this rank copied
     * @param fromBuffers whether some of this rank's data is written from its own buffers
     */
    synchronized CompletableFuture<CheckpointHeader> submit(final long staged, final boolean fromBuffers,
                                                            final Write write) {
        mostStaged.accumulateAndGet(staged, Math::max);
        final CountDownLatch drained = new CountDownLatch(1);
        final CompletableFuture<CheckpointHeader> done = new CompletableFuture<>();
        writer.execute(() -> {
            try {
                done.complete(write.run(background, drained::countDown));
            } catch (Throwable t) {
                done.completeExceptionally(t);
            } finally {
                drained.countDown();
            }
        });
        last = done;
        if (fromBuffers) {
            try {
                drained.await();
            } catch (InterruptedException e) {
                // the write goes on; its future says how it ends
                Thread.currentThread().interrupt();
            }
        }
        return done;
    }

    /** @return the most bytes one write has staged on this rank */
    long mostStaged() {
        return mostStaged.get();
    }

    /** Waits for the checkpoint in flight, then frees the duplicate communicator. */
    @Override
    public void close() {
        awaitPrevious();
        writer.shutdown();
        background.close();
    }
}
