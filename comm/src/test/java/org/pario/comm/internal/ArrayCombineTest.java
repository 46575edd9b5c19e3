package org.pario.comm.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/** Combining into arrays gives the bits combining packed bytes gives, in place and between offsets. */
@Timeout(30)
class ArrayCombineTest {
    private static final int N = 1000;

    @Test
    void doublesMatchTheBytePath() {
        final Random random = new Random(1);
        final double[] edges = {0.0, -0.0, Double.NaN, Double.longBitsToDouble(0x7ff8_0000_dead_beefL),
            Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE, -1.5, 1e300};
        final double[] in = new double[N];
        final double[] own = new double[N];
        for (int k = 0; k < N; k++) {
            in[k] = k < edges.length * edges.length ? edges[k % edges.length] : random.nextGaussian() * 1e10;
            own[k] = k < edges.length * edges.length ? edges[k / edges.length] : random.nextGaussian();
        }
        for (final String op : List.of("SUM", "PROD", "MAX", "MIN")) {
            check(op, Datatype.DOUBLE, in, own, Memory.of(in), Memory.of(own));
        }
    }

    @Test
    void floatsMatchTheBytePath() {
        final Random random = new Random(2);
        final float[] in = new float[N];
        final float[] own = new float[N];
        for (int k = 0; k < N; k++) {
            in[k] = k % 17 == 0 ? Float.NaN : k % 13 == 0 ? -0.0f : (float) random.nextGaussian();
            own[k] = k % 11 == 0 ? 0.0f : k % 19 == 0 ? Float.intBitsToFloat(0x7fc0_1234) : random.nextFloat();
        }
        for (final String op : List.of("SUM", "PROD", "MAX", "MIN")) {
            check(op, Datatype.FLOAT, in, own, Memory.of(in), Memory.of(own));
            check(op, Datatype.REAL, in, own, Memory.of(in), Memory.of(own));
        }
    }

    @Test
    void longsAndIntsMatchTheBytePathIncludingOverflow() {
        final Random random = new Random(3);
        final long[] inL = new long[N];
        final long[] ownL = new long[N];
        final int[] inI = new int[N];
        final int[] ownI = new int[N];
        for (int k = 0; k < N; k++) {
            inL[k] = k % 7 == 0 ? Long.MIN_VALUE : k % 5 == 0 ? Long.MAX_VALUE : random.nextLong();
            ownL[k] = k % 3 == 0 ? -1 : random.nextLong();
            inI[k] = k % 7 == 0 ? Integer.MIN_VALUE : k % 5 == 0 ? Integer.MAX_VALUE : random.nextInt();
            ownI[k] = k % 3 == 0 ? -1 : random.nextInt();
        }
        for (final String op : List.of("SUM", "PROD", "MAX", "MIN", "BAND", "BOR", "BXOR")) {
            check(op, Datatype.LONG, inL, ownL, Memory.of(inL), Memory.of(ownL));
            check(op, Datatype.INT64_T, inL, ownL, Memory.of(inL), Memory.of(ownL));
            check(op, Datatype.INT, inI, ownI, Memory.of(inI), Memory.of(ownI));
            check(op, Datatype.INTEGER, inI, ownI, Memory.of(inI), Memory.of(ownI));
        }
    }

    @Test
    void onlyPredefinedArithmeticBetweenArraysOfTheTypesKindAndSize() {
        assertTrue(ArrayCombine.handles("SUM", Datatype.DOUBLE, new double[1], new double[1]));
        assertFalse(ArrayCombine.handles("SUM", Datatype.DOUBLE, new double[1], new float[1]), "two kinds of array");
        assertFalse(ArrayCombine.handles("SUM", Datatype.LONG, new double[1], new double[1]), "bits of another type");
        assertFalse(ArrayCombine.handles("SUM", Datatype.FLOAT, new double[1], new double[1]));
        assertFalse(ArrayCombine.handles("MAX", Datatype.UINT64_T, new long[1], new long[1]), "unsigned compare");
        assertFalse(ArrayCombine.handles("MAX", Datatype.UNSIGNED, new int[1], new int[1]));
        assertFalse(ArrayCombine.handles("LAND", Datatype.INT, new int[1], new int[1]));
        assertFalse(ArrayCombine.handles("BAND", Datatype.DOUBLE, new double[1], new double[1]));
        assertFalse(ArrayCombine.handles("MAXLOC", Datatype.DOUBLE, new double[1], new double[1]));
        assertFalse(ArrayCombine.handles("SUM", Datatype.SHORT, new short[1], new short[1]));
        assertFalse(ArrayCombine.handles("SUM", Datatype.BYTE, new byte[1], new byte[1]));
        assertFalse(ArrayCombine.handles("SUM", Datatype.DOUBLE, null, new double[1]));
    }

    /**
     * Combines {@code in} (packed, as a partner sends it) with {@code own} three ways: into another array, in
     * place, and between offsets, and checks each against {@link Reductions#combine} on packed bytes.
     */
    private static void check(final String op, final Datatype type, final Object in, final Object own,
                              final Memory inMemory, final Memory ownMemory) {
        assertTrue(ArrayCombine.handles(op, type, own, own), op + " on " + type);
        final int size = (int) type.size();
        final byte[] incoming = Packer.pack(inMemory, type, N);
        final byte[] expected = Packer.pack(ownMemory, type, N);
        Reductions.combine(op, null, ByteBuffer.wrap(incoming), ByteBuffer.wrap(expected),
            new Reductions.Element(type, N));

        final Object out = java.lang.reflect.Array.newInstance(own.getClass().getComponentType(), N);
        ArrayCombine.combine(op, incoming, 0, own, 0, out, 0, N);
        assertSameValues(type, expected, 0, Packer.pack(out, type, N), 0, N, op + " on " + type);

        final Object inPlace = copy(own);
        ArrayCombine.combine(op, incoming, 0, inPlace, 0, inPlace, 0, N);
        assertSameValues(type, expected, 0, Packer.pack(inPlace, type, N), 0, N, op + " in place");

        // the last 300 values of the block, from element 40 of own into element 7 of out
        final Object shifted = java.lang.reflect.Array.newInstance(own.getClass().getComponentType(), N);
        ArrayCombine.combine(op, incoming, (N - 300) * size, shiftedOwn(own, 40, N - 300), 40, shifted, 7, 300);
        assertSameValues(type, expected, N - 300, Packer.pack(shifted, type, N), 7, 300, op + " between offsets");
    }

    /**
     * The same bits value by value, but where the expected value is a NaN, any NaN: Java leaves open which operand's
     * payload an operation on two NaNs passes on, and the compiler may swap the operands of a commutative one.
     */
    private static void assertSameValues(final Datatype type, final byte[] expected, final int expectedFirst,
                                         final byte[] got, final int gotFirst, final int n, final String what) {
        final int size = (int) type.size();
        final boolean floating = type.basicKind().orElseThrow() == org.pario.datatypes.BasicKind.FLOATING;
        final ByteBuffer e = ByteBuffer.wrap(expected).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        final ByteBuffer g = ByteBuffer.wrap(got).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int k = 0; k < n; k++) {
            final int at = (expectedFirst + k) * size;
            final int gt = (gotFirst + k) * size;
            final long want = size == 8 ? e.getLong(at) : e.getInt(at);
            final long have = size == 8 ? g.getLong(gt) : g.getInt(gt);
            final boolean nan = floating && (size == 8 ? Double.isNaN(e.getDouble(at)) : Float.isNaN(e.getFloat(at)));
            if (nan) {
                final boolean gotNan = size == 8 ? Double.isNaN(g.getDouble(gt)) : Float.isNaN(g.getFloat(gt));
                assertTrue(gotNan, what + ", value " + k + " is a NaN");
            } else if (want != have) {
                assertEquals(want, have, what + ", value " + k);
            }
        }
    }

    private static Object copy(final Object array) {
        final int n = java.lang.reflect.Array.getLength(array);
        final Object c = java.lang.reflect.Array.newInstance(array.getClass().getComponentType(), n);
        System.arraycopy(array, 0, c, 0, n);
        return c;
    }

    /** An array with {@code own}'s values from {@code from} on placed at element {@code at}. */
    private static Object shiftedOwn(final Object own, final int at, final int from) {
        final Object s = java.lang.reflect.Array.newInstance(own.getClass().getComponentType(), N);
        System.arraycopy(own, from, s, at, N - from);
        return s;
    }
}
