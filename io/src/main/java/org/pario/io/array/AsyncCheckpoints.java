package org.pario.io.array;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.pario.ParioException;
import org.pario.comm.AttributeKey;
import org.pario.comm.Communicator;

/**
 * The asynchronous checkpoints of one communicator, cached on it: a copy of the communicator for their collectives,
 * and one writing thread that takes them in the order of the calls. The copy comes from
 * {@link Communicator#dupForThread()}: the writing thread opens files on it (each open makes communicators) while
 * the application may make its own. Closing the communicator closes this, which waits for the checkpoint in flight.
 */
final class AsyncCheckpoints implements AutoCloseable {
    static final AttributeKey<AsyncCheckpoints> KEY = new AttributeKey<>(
        AsyncCheckpoints.class, "pario asynchronous checkpoints");

    /** The most bytes staged at once on this rank, for tests of the bound. */
    private final AtomicLong mostStaged = new AtomicLong();
    private final Communicator background;
    private final ThreadPoolExecutor writer;
    private CompletableFuture<CheckpointHeader> last = CompletableFuture.completedFuture(null);
    /** The staging buffers of the last write, free once it has ended: the next write of the same arrays reuses them. */
    private java.util.List<Object> spare = java.util.List.of();
    private java.util.List<Object> inUse = java.util.List.of();

    /** Collective over {@code comm}: duplicates it. */
    AsyncCheckpoints(final Communicator comm) {
        this.background = comm.dupForThread();
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

    /**
     * A staging buffer for {@code count} elements: the one the previous write used for the same array when it
     * fits (after {@link #awaitPrevious()}, nothing reads it any more), else a new one. Reusing them spares the
     * allocation, its zeroing and the garbage collections of a buffer the size of the data every checkpoint.
     */
    @SuppressWarnings("unchecked")
    synchronized <T> T staging(final int index, final Element<T> element, final long count) {
        final Object old = index < spare.size() ? spare.get(index) : null;
        final T buffer = old != null && element.bufferClass().isInstance(old)
            && element.length(count) == lengthOf(old) ? (T) old : element.allocate(count);
        if (inUse.isEmpty()) {
            inUse = new java.util.ArrayList<>();
        }
        while (inUse.size() <= index) {
            inUse.add(null);
        }
        inUse.set(index, buffer);
        return buffer;
    }

    private static long lengthOf(final Object buffer) {
        return buffer instanceof java.nio.ByteBuffer b ? b.capacity() : java.lang.reflect.Array.getLength(buffer);
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
        spare = inUse;
        inUse = java.util.List.of();
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
