package org.pario.comm.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.Test;

/** Large rendezvous buffers are reused when they fit, kept within the limit, and freed when not kept. */
class SpareBuffersTest {
    private static final int MIB = 1 << 20;

    @Test
    void aGivenBackBufferServesTheNextRequestOfUpToItsSizeAndNoLessThanHalf() {
        final SpareBuffers spares = new SpareBuffers(ByteBufAllocator.DEFAULT, 64L * MIB);
        final ByteBuf first = spares.take(5 * MIB + 21);
        assertEquals(6 * MIB, first.capacity(), "sized in whole MiB");
        first.writerIndex(100).readerIndex(50);
        spares.give(first);
        assertEquals(6 * MIB, spares.heldBytes());
        // too small a request for it (less than half its size) gets a fresh buffer
        final ByteBuf small = spares.take(2 * MIB);
        assertNotSame(first, small);
        final ByteBuf again = spares.take(4 * MIB);
        assertSame(first, again, "reused");
        assertEquals(0, again.readerIndex());
        assertEquals(0, again.writerIndex());
        assertEquals(0, spares.heldBytes());
        small.release();
        again.release();
        spares.close();
    }

    @Test
    void theLimitHoldsTheOldestSparesGoFirstAndOnlyUnsharedBuffersAreKept() {
        final SpareBuffers spares = new SpareBuffers(ByteBufAllocator.DEFAULT, 10L * MIB);
        final ByteBuf a = spares.take(4 * MIB);
        final ByteBuf b = spares.take(4 * MIB);
        final ByteBuf c = spares.take(4 * MIB);
        spares.give(a);
        spares.give(b);
        spares.give(c);
        assertEquals(8 * MIB, spares.heldBytes(), "two of 4 MiB fit in 10 MiB");
        assertEquals(0, a.refCnt(), "the oldest was freed to make room");
        final ByteBuf shared = spares.take(3 * MIB).retain();
        spares.give(shared);
        assertEquals(1, shared.refCnt(), "a buffer still referenced elsewhere is only released once, not kept");
        shared.release();
        final ByteBuf small = spares.take(SpareBuffers.MIN - 1);
        spares.give(small);
        assertEquals(0, small.refCnt(), "buffers below the minimum come from the pools and go back there");
        spares.close();
        assertEquals(0, b.refCnt());
        assertEquals(0, c.refCnt());
        final ByteBuf late = ByteBufAllocator.DEFAULT.directBuffer(4 * MIB, 4 * MIB);
        spares.give(late);
        assertEquals(0, late.refCnt(), "after close, buffers given back are freed");
    }

    @Test
    void buffersBelowTwoMibAreSizedInWhole64KibSoAMibMessageWithItsHeaderWastesLittle() {
        final SpareBuffers spares = new SpareBuffers(ByteBufAllocator.DEFAULT, 64L * MIB);
        final ByteBuf eager = spares.take(MIB + 31);
        assertEquals(MIB + (64 << 10), eager.capacity());
        spares.give(eager);
        assertSame(eager, spares.take(MIB), "reused for the next message of that size");
        final ByteBuf smallest = spares.take(SpareBuffers.MIN);
        assertEquals(SpareBuffers.MIN, smallest.capacity());
        eager.release();
        smallest.release();
        spares.close();
    }

    @Test
    void aZeroLimitKeepsNothing() {
        final SpareBuffers spares = new SpareBuffers(ByteBufAllocator.DEFAULT, 0);
        final ByteBuf b = spares.take(4 * MIB);
        spares.give(b);
        assertEquals(0, b.refCnt());
        assertEquals(0, spares.heldBytes());
    }
}
