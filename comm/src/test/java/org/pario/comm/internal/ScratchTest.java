package org.pario.comm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ScratchTest {
    private static final int MIB = Scratch.MIN_BYTES;

    @Test
    void handsBackAnArrayOfExactlyTheLengthAsked() {
        final Scratch s = new Scratch(8L * MIB);
        final byte[] a = s.take(2 * MIB);
        s.give(a);
        assertNotSame(a, s.take(2 * MIB + 1), "another length gets a new array");
        assertSame(a, s.take(2 * MIB));
        assertEquals(0, s.held());
    }

    @Test
    void keepsNoSmallArraysAndNothingBeyondItsLimit() {
        final Scratch s = new Scratch(3L * MIB);
        final byte[] small = s.take(MIB - 1);
        s.give(small);
        assertNotSame(small, s.take(MIB - 1));
        final byte[] oldest = s.take(2 * MIB);
        final byte[] newest = s.take(2 * MIB);
        s.give(oldest);
        s.give(newest);
        assertEquals(2L * MIB, s.held(), "the oldest array was given up to stay within the limit");
        assertSame(newest, s.take(2 * MIB));
        assertNotSame(oldest, s.take(2 * MIB));
        s.give(new byte[4 * MIB]);
        assertEquals(0, s.held(), "an array larger than the limit is not kept");
    }

    @Test
    void keepsNoMoreThanItsCountOfArrays() {
        final Scratch s = new Scratch(Long.MAX_VALUE);
        final byte[][] arrays = new byte[Scratch.MAX_ARRAYS + 1][];
        for (int i = 0; i < arrays.length; i++) {
            arrays[i] = s.take(MIB);
        }
        for (final byte[] a : arrays) {
            s.give(a);
        }
        assertEquals((long) Scratch.MAX_ARRAYS * MIB, s.held(), "the oldest array was given up");
        for (int i = arrays.length - 1; i > 0; i--) {
            assertSame(arrays[i], s.take(MIB), "the newest first");
        }
        assertNotSame(arrays[0], s.take(MIB));
    }

    @Test
    void aLimitOfZeroKeepsNothing() {
        final Scratch s = new Scratch(0);
        final byte[] a = s.take(MIB);
        s.give(a);
        assertNotSame(a, s.take(MIB));
    }

    @Test
    void anArrayGivenBackTwiceIsABug() {
        final Scratch s = new Scratch(8L * MIB);
        final byte[] a = s.take(MIB);
        s.give(a);
        assertThrows(IllegalStateException.class, () -> s.give(a));
    }

    @Test
    void keepsArraysOfEveryKindApartByKindAndLength() {
        final Scratch s = new Scratch(8L * MIB);
        final double[] d = (double[]) s.takeArray(double.class, MIB / 8);
        final long[] l = (long[]) s.takeArray(long.class, MIB / 8);
        s.giveArray(d);
        s.giveArray(l);
        assertEquals(2L * MIB, s.held(), "counted in bytes");
        assertNotSame(d, s.take(MIB), "bytes of the same size are another kind");
        assertNotSame(d, s.takeArray(double.class, MIB / 8 + 1));
        assertSame(d, s.takeArray(double.class, MIB / 8));
        assertSame(l, s.takeArray(long.class, MIB / 8));
        assertEquals(0, s.held());
        s.giveArray(d);
        assertThrows(IllegalStateException.class, () -> s.giveArray(d));
        final int[] small = (int[]) s.takeArray(int.class, MIB / 4 - 1);
        s.giveArray(small);
        assertEquals(MIB, s.held(), "an array below a page is not kept");
    }
}
