package org.pario.comm.internal.tcp;

import java.util.ArrayDeque;
import java.util.Iterator;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Large direct buffers kept for the next message instead of being freed. The allocator hands out buffers of a
 * few hundred KiB and more as fresh memory, and the first touch of every page of it costs a fault: packing into a
 * fresh buffer took five times as long as into a reused one. Buffers from {@link #MIN}
 * bytes are sized in whole 64 KiB below 2 MiB and in whole MiB above, and come back here once their data has been
 * written (or dropped); a request takes a spare of at least its size and at most twice it. Spares are kept up to
 * a total of {@code limitBytes} ({@code -Dpario.spareBufferBytes}, default 128 MiB per rank; 0 keeps none), the
 * oldest given up first. Thread-safe.
 */
final class SpareBuffers {
    /** Smaller buffers come from the allocator's pools, which reuse their memory. */
    static final int MIN = 128 << 10;
    private static final int MIB = 1 << 20;
    /** Below this, sizes are rounded to whole {@link #SMALL_STEP}s, so a MiB message with its header wastes little. */
    private static final int SMALL = 2 << 20;
    private static final int SMALL_STEP = 64 << 10;

    private final ByteBufAllocator allocator;
    private final long limitBytes;
    private final ArrayDeque<ByteBuf> spares = new ArrayDeque<>();
    private long held;
    private boolean closed;

    SpareBuffers(final ByteBufAllocator allocator, final long limitBytes) {
        this.allocator = allocator;
        this.limitBytes = limitBytes;
    }

    /** @return an empty direct buffer of at least {@code size} bytes, a spare one when there is one */
    ByteBuf take(final int size) {
        if (size < MIN || limitBytes <= 0) {
            return allocator.directBuffer(size);
        }
        synchronized (this) {
            final Iterator<ByteBuf> it = spares.descendingIterator();
            while (it.hasNext()) {
                final ByteBuf b = it.next();
                if (b.capacity() >= size && b.capacity() / 2 <= size) {
                    it.remove();
                    held -= b.capacity();
                    return b.clear();
                }
            }
        }
        final long step = size < SMALL ? SMALL_STEP : MIB;
        final long rounded = ((long) size + step - 1) / step * step;
        final int capacity = (int) Math.min(rounded, Integer.MAX_VALUE - 8);
        return allocator.directBuffer(capacity, capacity);
    }

    /** Takes back a buffer whose last user is done with it (its reference count is one): kept or freed. */
    void give(final ByteBuf b) {
        if (b.refCnt() != 1) {
            // still referenced elsewhere (or already freed): it is not ours to keep
            if (b.refCnt() > 0) {
                b.release();
            }
            return;
        }
        if (b.capacity() < MIN || b.capacity() > limitBytes || !b.isDirect()) {
            b.release();
            return;
        }
        synchronized (this) {
            if (!closed) {
                while (held + b.capacity() > limitBytes && !spares.isEmpty()) {
                    final ByteBuf oldest = spares.pollFirst();
                    held -= oldest.capacity();
                    oldest.release();
                }
                spares.addLast(b);
                held += b.capacity();
                return;
            }
        }
        b.release();
    }

    /** @return the bytes held in spare buffers */
    synchronized long heldBytes() {
        return held;
    }

    /** Frees every spare; buffers given back later are freed at once. */
    synchronized void close() {
        closed = true;
        spares.forEach(ByteBuf::release);
        spares.clear();
        held = 0;
    }
}
