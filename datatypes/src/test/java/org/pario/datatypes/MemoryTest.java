package org.pario.datatypes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;
import org.pario.ParioException;

/** User memory of every supported kind, as C would lay it out, with bounds checked on every copy. */
class MemoryTest {
    @Test
    void primitiveArrayIsTheArrayGivenAndSurvivesMovingTheOrigin() {
        final double[] d = new double[4];
        final long[] l = new long[4];
        assertTrue(Memory.of(d).primitiveArray() == d);
        assertTrue(Memory.of(d).at(16).primitiveArray() == d);
        assertEquals(16, Memory.of(d).at(16).origin());
        assertTrue(Memory.ofObject(l).at(8).at(-8).primitiveArray() == l);
        assertEquals(null, Memory.of(new byte[8]).primitiveArray(), "bytes are not values");
        assertEquals(null, Memory.of(ByteBuffer.allocateDirect(8)).at(4).primitiveArray());
    }

    @Test
    void everyPrimitiveArrayPacksAsLittleEndianBytes() {
        final Datatype everyOther = Datatype.vector(20, 1, 2, Datatype.BYTE);
        final byte[] fromBytes = Packer.pack(new byte[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
            18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39}, everyOther, 1);
        assertEquals(20, fromBytes.length);
        assertEquals(38, fromBytes[19]);

        final ByteBuffer expected = ByteBuffer.allocate(8 * 40).order(ByteOrder.LITTLE_ENDIAN);
        final double[] d = new double[40];
        final long[] l = new long[40];
        final int[] i = new int[40];
        final float[] f = new float[40];
        final short[] s = new short[40];
        final char[] c = new char[40];
        for (int k = 0; k < 40; k++) {
            d[k] = k + 0.5;
            l[k] = -k * 1000003L;
            i[k] = k * 7919;
            f[k] = k - 0.25f;
            s[k] = (short) (k * 311);
            c[k] = (char) (0x4E00 + k);
        }
        check(d, Datatype.DOUBLE, k -> expected.putDouble(8 * k, d[k]));
        check(l, Datatype.LONG, k -> expected.putLong(8 * k, l[k]));
        check(i, Datatype.INT, k -> expected.putInt(4 * k, i[k]));
        check(f, Datatype.FLOAT, k -> expected.putFloat(4 * k, f[k]));
        check(s, Datatype.SHORT, k -> expected.putShort(2 * k, s[k]));
        check(c, Datatype.UNSIGNED_SHORT, k -> expected.putChar(2 * k, c[k]));
    }

    private static void check(final Object array, final Datatype element, final java.util.function.IntConsumer fill) {
        final int n = java.lang.reflect.Array.getLength(array);
        final int size = (int) element.size();
        final ByteBuffer ref = ByteBuffer.allocate(size * n).order(ByteOrder.LITTLE_ENDIAN);
        for (int k = 0; k < n; k++) {
            final ByteBuffer one = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            fill.accept(k);
        }
        // whole array, short runs (element-wise path) and long runs (bulk path), and bytes inside elements
        final byte[] whole = Packer.pack(array, Datatype.contiguous(n, element), 1);
        final byte[] viaBytes = Packer.pack(array, Datatype.contiguous((long) n * size, Datatype.BYTE), 1);
        assertArrayEquals(viaBytes, whole);
        final Datatype odd = Datatype.hvector(n - 1, 1, size, Datatype.contiguous(3, Datatype.BYTE));
        final byte[] oddBytes = Packer.pack(array, odd, 1);
        for (int k = 0; k < n - 1; k++) {
            for (int b = 0; b < 3; b++) {
                assertEquals(whole[k * size + b], oddBytes[k * 3 + b], "byte " + b + " of element " + k);
            }
        }
        final Object copy = java.lang.reflect.Array.newInstance(array.getClass().getComponentType(), n);
        Packer.unpack(whole, copy, Datatype.contiguous(n, element), 1);
        assertTrue(java.util.Objects.deepEquals(new Object[] {array}, new Object[] {copy}));
        final Object partial = java.lang.reflect.Array.newInstance(array.getClass().getComponentType(), n);
        Packer.unpack(oddBytes, partial, odd, 1);
        final byte[] partialBytes = Packer.pack(partial, Datatype.contiguous(n, element), 1);
        for (int k = 0; k < n - 1; k++) {
            for (int b = 0; b < size; b++) {
                assertEquals(b < 3 ? whole[k * size + b] : 0, partialBytes[k * size + b]);
            }
        }
    }

    @Test
    void directAndHeapBuffersIgnorePositionAndLimit() {
        final ByteBuffer direct = ByteBuffer.allocateDirect(64);
        for (int k = 0; k < 64; k++) {
            direct.put(k, (byte) k);
        }
        direct.position(10).limit(20);
        final byte[] packed = Packer.pack(direct, Datatype.vector(4, 2, 16, Datatype.BYTE), 1);
        assertArrayEquals(new byte[] {0, 1, 16, 17, 32, 33, 48, 49}, packed);
        assertEquals(10, direct.position());
        assertEquals(20, direct.limit());
        final ByteBuffer target = ByteBuffer.allocateDirect(64);
        Packer.unpack(packed, target, Datatype.vector(4, 2, 16, Datatype.BYTE), 1);
        assertEquals(49, target.get(49));
        assertEquals(0, target.get(50));
    }

    @Test
    void accessOutsideTheBufferIsRefusedBeforeAnyCopy() {
        final int[] small = new int[4];
        final ParioException e = assertThrows(ParioException.class,
            () -> Packer.pack(small, Datatype.vector(3, 1, 2, Datatype.INT), 1));
        assertTrue(e.getMessage().contains("bytes [16, 20) of a buffer of 16 bytes"), e.getMessage());
        assertThrows(ParioException.class, () -> Packer.pack(small, Datatype.parse("hindexed([1], [-4], int)"), 1));
        assertThrows(ParioException.class, () -> Packer.unpack(new byte[8], ByteBuffer.allocate(8).asReadOnlyBuffer(),
            Datatype.contiguous(2, Datatype.INT), 1));
        assertThrows(ParioException.class, () -> Packer.unpack(new byte[4], small, Datatype.contiguous(2, Datatype.INT), 1));
        assertThrows(ParioException.class, () -> Memory.ofObject("not a buffer"));
    }

    @Test
    void memoryAtMovesTheBufferAddressLikeCPointerArithmetic() {
        final int[] a = new int[16];
        for (int i = 0; i < 16; i++) {
            a[i] = i;
        }
        // a column of a 4x4 C array starting at &a[0][2], and one element before it through a negative displacement
        final Memory column = Memory.of(a).at(2 * 4);
        assertEquals(8, column.origin());
        final int[] got = new int[4];
        Packer.unpack(Packer.pack(column, Datatype.vector(4, 1, 4, Datatype.INT), 1), got,
            Datatype.contiguous(4, Datatype.INT), 1);
        assertArrayEquals(new int[] {2, 6, 10, 14}, got);
        final byte[] before = Packer.pack(column.at(4), Datatype.parse("hindexed([1], [-8], int)"), 1);
        assertEquals(1, ByteBuffer.wrap(before).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
        assertThrows(ParioException.class, () -> Packer.pack(column, Datatype.parse("hindexed([1], [-12], int)"), 1));
    }

    @Test
    void directRegionsShareTheBytesOfDirectBuffersOnly() {
        final ByteBuffer direct = ByteBuffer.allocateDirect(64);
        direct.position(30).limit(40);
        final Memory memory = Memory.of(direct).at(8);
        // counted from the start of the memory, whatever its origin, position or limit
        final ByteBuffer region = memory.directRegion(16, 24, true);
        assertEquals(0, region.position());
        assertEquals(24, region.limit());
        region.put(0, (byte) 7).put(23, (byte) 9);
        assertEquals(7, direct.get(16));
        assertEquals(9, direct.get(39));
        assertEquals(0, memory.directRegion(64, 0, false).capacity());
        final ParioException e = assertThrows(ParioException.class, () -> memory.directRegion(48, 17, false));
        assertTrue(e.getMessage().contains("bytes [48, 65) of a buffer of 64 bytes"), e.getMessage());
        assertThrows(ParioException.class, () -> memory.directRegion(-1, 4, false));
        // a read-only buffer lends its bytes for reading only; heap memory never
        final Memory readOnly = Memory.of(direct.asReadOnlyBuffer());
        assertEquals(39, readOnly.directRegion(1, 39, false).remaining());
        assertEquals(null, readOnly.directRegion(1, 39, true));
        assertEquals(null, Memory.of(ByteBuffer.allocate(64)).directRegion(0, 8, false));
        assertEquals(null, Memory.of(new double[8]).at(8).directRegion(0, 8, false));
        assertEquals(null, Memory.of(new byte[8]).directRegion(0, 8, false));
    }

    @Test
    void zeroCountAndEmptyTypesPackNothing() {
        assertEquals(0, Packer.pack(new int[0], Datatype.INT, 0).length);
        assertEquals(0, Packer.pack(new int[0], Datatype.contiguous(0, Datatype.DOUBLE), 5).length);
        assertEquals(0, Packer.pack(new int[0], Datatype.parse("indexed([0,0], [3,-9], double)"), 2).length);
    }
}
