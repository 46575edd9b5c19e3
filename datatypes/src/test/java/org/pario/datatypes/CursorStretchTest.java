package org.pario.datatypes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regular stretches of runs reach across the rows, planes and elements of a type wherever the runs go on at the
 * same stride, so that a caller that takes whole stretches ({@link Cursor#repeats()}) makes one step for a cyclic
 * darray's part, not one per row.
 */
@Timeout(10)
class CursorStretchTest {
    private static Datatype darray(final long ranks, final long rank, final long n, final Distribution[] distribs,
                                   final long[] psizes) {
        final long[] dargs = {Datatype.DISTRIBUTE_DFLT_DARG, Datatype.DISTRIBUTE_DFLT_DARG,
            Datatype.DISTRIBUTE_DFLT_DARG};
        return Datatype.darray(ranks, rank, new long[] {n, n, n}, distribs, dargs, psizes, Order.C, Datatype.DOUBLE);
    }

    @Test
    void aCyclicDarraysPartIsOneStretchFromItsFirstRunToItsLast() {
        final long n = 64;
        for (int rank = 0; rank < 4; rank++) {
            final Datatype t = darray(4, rank, n, new Distribution[] {Distribution.NONE, Distribution.NONE,
                Distribution.CYCLIC}, new long[] {1, 1, 4});
            final Cursor c = t.cursor(1);
            assertTrue(c.next());
            assertEquals(rank * 8L, c.offset());
            assertEquals(8, c.length());
            assertEquals(32, c.repeatStride());
            assertEquals(n * n * n / 4 - 1, c.repeats(), "every run of the part after the first");
            c.skipRepeats(c.repeats());
            assertEquals(rank * 8L + (n * n * n / 4 - 1) * 32, c.offset());
            assertFalse(c.next());
        }
    }

    @Test
    void aStretchStopsAtTheLimitAndGoesOnAfterASeek() {
        final Datatype t = darray(4, 1, 16, new Distribution[] {Distribution.NONE, Distribution.NONE,
            Distribution.CYCLIC}, new long[] {1, 1, 4});
        // stream bytes [8 * 10 + 3, 8 * 700): from inside the 11th element to the end of the 700th
        final Cursor c = t.cursor(1).seek(83).limit(8 * 700);
        assertTrue(c.next());
        assertEquals(8 + 10 * 32 + 3, c.offset());
        assertEquals(5, c.length());
        assertTrue(c.next());
        assertEquals(8 + 11 * 32, c.offset());
        assertEquals(700 - 12, c.repeats());
        c.skipRepeats(c.repeats());
        assertEquals(8 + 699 * 32, c.offset());
        assertFalse(c.next());
    }

    @Test
    void rowsOfABlockGridSplitAlongTheirLastDimensionAreOneStretchAPlane() {
        // 1x2x2: each rank's rows are runs of half a row, a row apart; the next plane's rows go on at the same stride
        final long n = 32;
        final Datatype t = darray(4, 3, n, new Distribution[] {Distribution.BLOCK, Distribution.BLOCK,
            Distribution.BLOCK}, new long[] {1, 2, 2});
        final Cursor c = t.cursor(1);
        long steps = 0;
        long runs = 0;
        while (c.next()) {
            steps++;
            assertEquals(n / 2 * 8, c.length());
            assertEquals(n * 8, c.repeatStride());
            runs += 1 + c.repeats();
            c.skipRepeats(c.repeats());
        }
        assertEquals(n * n / 2, runs, "half the rows of every plane");
        assertEquals(n, steps, "one stretch a plane: the next plane's first row is not a row after this one's last");
    }

    @Test
    void aContiguousRunOfResizedElementsIsOneStretchOverEveryElementOfTheCount() {
        final Datatype strided = Datatype.resized(Datatype.contiguous(3, Datatype.INT), 0, 20);
        final Cursor c = Datatype.contiguous(5, strided).cursor(4);
        assertTrue(c.next());
        assertEquals(0, c.offset());
        assertEquals(12, c.length());
        assertEquals(20, c.repeatStride());
        assertEquals(19, c.repeats());
        c.skipRepeats(19);
        assertFalse(c.next());
    }
}
