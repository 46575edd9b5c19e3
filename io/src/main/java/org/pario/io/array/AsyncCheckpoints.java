package org.pario.io.array;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.pario.ParioException;
import org.pario.comm.AttributeKey;
import org.pario.comm.Communicator;
import org.pario.datatypes.Memory;
import org.pario.io.storage.DirectBuffers;

/**
 * The asynchronous checkpoints of one communicator, cached on it: a copy of the communicator for their collectives,
 * and one writing thread that takes them in the order of the calls. The copy comes from
 * {@link Communicator#dupForThread()}: the writing thread opens files on it (each open makes communicators) while
 * the application may make its own. Closing the communicator closes this, which waits for the checkpoint in flight.
 */
final class AsyncCheckpoints implements AutoCloseable {
    static final AttributeKey<AsyncCheckpoints> KEY = new AttributeKey<>(
        AsyncCheckpoints.class, "pario asynchronous checkpoints");

    /** The most bytes staged in one direct buffer: its capacity, plus the alignment's slack, is an int. */
    private static final long DIRECT_STAGING_LIMIT = Integer.MAX_VALUE - (4L << 20);
    private static final int PAGE = 4096;

    /** The most bytes staged at once on this rank, for tests of the bound. */
    private final AtomicLong mostStaged = new AtomicLong();
    /** Bytes staged in direct memory so far, for tests. */
    private final AtomicLong stagedInDirectMemory = new AtomicLong();
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
     * Copies {@code count} elements of {@code buffer} from element {@code from} into staging memory and returns it.
     * The memory is direct and aligned to a page where the bytes fit one direct buffer and the JVM's direct memory
     * holds them, so the background write hands it to the storage as it is (with direct I/O, straight to the disk);
     * else a buffer of the element's own class. The previous write's staging memory for the same array is reused
     * when it is the same size (after {@link #awaitPrevious()}, nothing reads it any more): that spares the
     * allocation, its zeroing and its first touch every checkpoint.
     */
    synchronized <T> Object stage(final int index, final Element<T> element, final T buffer, final long from,
                                  final long count) {
        final long extent = element.type().extent();
        final long bytes = Math.multiplyExact(count, extent);
        final Object old = index < spare.size() ? spare.get(index) : null;
        Object staged = null;
        if (old instanceof ByteBuffer b && b.isDirect() && b.capacity() == bytes) {
            staged = b;
        } else if (bytes > 0 && bytes <= DIRECT_STAGING_LIMIT) {
            try {
                staged = DirectBuffers.allocate((int) bytes, PAGE).order(ByteOrder.nativeOrder());
            } catch (OutOfMemoryError e) {
                // the JVM's direct memory (-XX:MaxDirectMemorySize) is full: the heap stages instead
                staged = null;
            }
        }
        if (staged != null) {
            stagedInDirectMemory.addAndGet(bytes);
            Memory.copyRuns(Memory.ofObject(buffer), from * extent, 0, Memory.of((ByteBuffer) staged), 0, 0, bytes, 1);
        } else {
            final T copy = old != null && element.bufferClass().isInstance(old)
                && element.length(count) == lengthOf(old) ? element.bufferClass().cast(old) : element.allocate(count);
            staged = element.copyInto(buffer, from, count, copy);
        }
        if (inUse.isEmpty()) {
            inUse = new java.util.ArrayList<>();
        }
        while (inUse.size() <= index) {
            inUse.add(null);
        }
        inUse.set(index, staged);
        return staged;
    }

    private static long lengthOf(final Object buffer) {
        return buffer instanceof ByteBuffer b ? b.capacity() : java.lang.reflect.Array.getLength(buffer);
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

    /** @return the bytes all writes have staged in direct memory on this rank */
    long stagedInDirectMemory() {
        return stagedInDirectMemory.get();
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
