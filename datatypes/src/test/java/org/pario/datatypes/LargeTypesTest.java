package org.pario.datatypes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Types far larger than memory are built, measured and walked lazily: these tests only finish in time if nothing
 * is expanded element by element.
 */
@Timeout(10)
class LargeTypesTest {
    private static final long N = 10_000;

    private static Datatype cyclicTrillion(final long rank) {
        return Datatype.darray(8, rank, new long[] {N, N, N},
            new Distribution[] {Distribution.CYCLIC, Distribution.BLOCK, Distribution.CYCLIC},
            new long[] {1, Datatype.DISTRIBUTE_DFLT_DARG, 3}, new long[] {2, 2, 2}, Order.C, Datatype.DOUBLE);
    }

    @Test
    void darrayOverATrillionElementsIsBuiltAndMeasuredWithoutExpansion() {
        long total = 0;
        for (int r = 0; r < 8; r++) {
            final Datatype t = cyclicTrillion(r);
            assertEquals(0, t.lb());
            assertEquals(N * N * N * 8, t.extent());
            total += t.size();
            assertTrue(t.depth < 12, "tree depth " + t.depth);
        }
        assertEquals(N * N * N * 8, total);
    }

    @Test
    void cursorSeeksIntoTheMiddleOfATrillionElementDarray() {
        final Datatype t = cyclicTrillion(5);
        final long middle = t.size() / 2 + 12345;
        final Cursor c = t.cursor(1).seek(middle);
        assertTrue(c.next());
        assertEquals(middle, c.streamPosition());
        final long first = c.offset();
        assertTrue(c.next());
        assertTrue(c.offset() > first);
        // the same position reached by walking from an earlier point, one run at a time
        final Cursor walk = t.cursor(1).seek(middle - 800);
        long pos = middle - 800;
        while (walk.next()) {
            if (pos + walk.length() > middle) {
                assertEquals(first, walk.offset() + (middle - pos));
                break;
            }
            pos += walk.length();
        }
    }

    @Test
    void packsARangeFromTheEndOfAHugeVectorWithoutTouchingTheRest() {
        final Datatype t = Datatype.vector(1L << 40, 1, 3, Datatype.DOUBLE);
        assertEquals(8L << 40, t.size());
        final double[] memory = new double[30];
        for (int i = 0; i < memory.length; i++) {
            memory[i] = i;
        }
        // origin chosen so that the last 4 elements of the vector fall into memory
        final long lastElementOffset = ((1L << 40) - 1) * 24;
        final long origin = -(lastElementOffset - 9 * 24);
        final ByteBuffer out = ByteBuffer.allocate(32).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        Packer.pack(Memory.of(memory), origin, t, 1, DataRepresentation.NATIVE, t.size() - 32, out, 0, 32);
        // the last element sits at byte 9 * 24 = double 27; the three before it at doubles 18, 21, 24
        assertEquals(18.0, out.getDouble(0));
        assertEquals(21.0, out.getDouble(8));
        assertEquals(24.0, out.getDouble(16));
        assertEquals(27.0, out.getDouble(24));
    }

    @Test
    void signatureOfAHugeHomogeneousTypeIsOneEntry() {
        final Datatype t = Datatype.contiguous(1L << 50, Datatype.vector(2, 1, 5, Datatype.INT));
        final var it = t.signature().iterator();
        final SignatureEntry e = it.next();
        assertEquals("int", e.type());
        assertEquals(1L << 51, e.count());
        assertEquals(false, it.hasNext());
    }
}
