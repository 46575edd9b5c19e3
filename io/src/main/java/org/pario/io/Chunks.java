package org.pario.io;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.pario.io.storage.DirectBuffers;

/**
 * The packing buffers of one file's independent accesses, kept for the next access; for a storage that prefers them
 * ({@link org.pario.io.storage.Storage#prefersDirectBuffers()}), direct and aligned to its block. Direct, because a
 * file channel reads into and writes from a heap buffer through a temporary direct copy of it, and direct I/O
 * through an aligned staging copy: with the packed data already in aligned native memory both copies go. Kept,
 * because fresh native memory costs a page fault per page on first touch, more than the copy: from access to access,
 * and from a closed file to the files the JVM opens later, in the pool of {@link RoundBuffers#release}.
 */
final class Chunks {
    /** Buffers kept when no access holds them; more concurrent accesses get buffers that are then dropped. */
    private static final int KEPT = 4;

    private final int bytes;
    private final int alignment;
    private final boolean direct;
    private final ConcurrentLinkedQueue<ByteBuffer> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger kept = new AtomicInteger();

    /**
     * @param bytes      capacity of each buffer
     * @param blockSize  the storage's preferred block size: direct buffers start on a multiple of it (at least
     *                   4 KiB, the page size, and at most 1 MiB)
     * @param direct     direct buffers, else heap ones
     */
    Chunks(final int bytes, final long blockSize, final boolean direct) {
        this.bytes = bytes;
        this.direct = direct;
        this.alignment = alignment(blockSize);
    }

    /**
     * @return what buffer memory for a storage with this preferred block size is aligned to: the block, at least a
     *     page and at most 1 MiB, as the local storage's direct accesses are
     */
    static int alignment(final long blockSize) {
        final long b = Math.max(4096, Math.min(blockSize, 1 << 20));
        // direct buffers align to powers of two only; the storage stages other alignments itself
        return Long.bitCount(b) == 1 ? (int) b : 4096;
    }

    /** @return a buffer of {@link #bytes} bytes, position 0 and limit its capacity */
    ByteBuffer take() {
        final ByteBuffer b = free.poll();
        if (b != null) {
            kept.decrementAndGet();
            return b.clear();
        }
        if (!direct) {
            return ByteBuffer.allocate(bytes);
        }
        final ByteBuffer handedOn = RoundBuffers.keptBuffer(bytes, alignment);
        return handedOn != null ? handedOn.slice(0, bytes) : DirectBuffers.allocate(bytes, alignment);
    }

    /** Hands the buffers no access holds on to the files the JVM opens later: the file is closing. */
    void release() {
        if (!direct) {
            return;
        }
        for (ByteBuffer b = free.poll(); b != null; b = free.poll()) {
            RoundBuffers.keepReleased(b);
        }
    }

    /** Hands a buffer from {@link #take} back. */
    void give(final ByteBuffer b) {
        if (kept.incrementAndGet() <= KEPT) {
            free.offer(b);
        } else {
            kept.decrementAndGet();
        }
    }
}
