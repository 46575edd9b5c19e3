package org.pario.datatypes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;
import org.pario.ErrorCategory;
import org.pario.ParioException;

/** The external32 representation: big-endian, the standard's sizes, exact conversions, refused overflows. */
class External32Test {
    @Test
    void intsAndDoublesAreBigEndian() {
        final byte[] packed = Packer.pack(new int[] {0x01020304, -2}, Datatype.INT, 2, DataRepresentation.EXTERNAL32);
        assertArrayEquals(new byte[] {1, 2, 3, 4, -1, -1, -1, -2}, packed);
        final byte[] d = Packer.pack(new double[] {1.0}, Datatype.DOUBLE, 1, DataRepresentation.EXTERNAL32);
        assertEquals(1.0, ByteBuffer.wrap(d).order(ByteOrder.BIG_ENDIAN).getDouble(0));
    }

    @Test
    void longIsFourBytesAndRefusesValuesBeyondInt() {
        assertEquals(4, Datatype.LONG.size(DataRepresentation.EXTERNAL32));
        assertEquals(12, Datatype.LONG_INT.size(DataRepresentation.EXTERNAL32) + 4);
        final byte[] packed = Packer.pack(new long[] {-5, 7}, Datatype.LONG, 2, DataRepresentation.EXTERNAL32);
        assertArrayEquals(new byte[] {-1, -1, -1, -5, 0, 0, 0, 7}, packed);
        final long[] back = new long[2];
        Packer.unpack(packed, back, Datatype.LONG, 2, DataRepresentation.EXTERNAL32);
        assertArrayEquals(new long[] {-5, 7}, back);
        final ParioException e = assertThrows(ParioException.class,
            () -> Packer.pack(new long[] {1L << 40}, Datatype.LONG, 1, DataRepresentation.EXTERNAL32));
        assertEquals(ErrorCategory.TRUNCATE, e.category());
        final long[] unsigned = new long[1];
        Packer.unpack(new byte[] {-1, -1, -1, -1}, unsigned, Datatype.UNSIGNED_LONG, 1, DataRepresentation.EXTERNAL32);
        assertEquals(0xFFFFFFFFL, unsigned[0]);
    }

    @Test
    void wcharIsTwoBytes() {
        final byte[] packed = Packer.pack(new int[] {0x263A}, Datatype.WCHAR, 1, DataRepresentation.EXTERNAL32);
        assertArrayEquals(new byte[] {0x26, 0x3A}, packed);
        assertThrows(ParioException.class,
            () -> Packer.pack(new int[] {0x1F600}, Datatype.WCHAR, 1, DataRepresentation.EXTERNAL32));
    }

    @Test
    void longDoubleBecomesBinary128AndBack() {
        // 1.0L on x87: significand 0x8000000000000000, sign/exponent 0x3FFF, six padding bytes
        final ByteBuffer x87 = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        x87.putLong(0, 0x8000000000000000L).putShort(8, (short) 0x3FFF);
        // -3.0L: 1.5 * 2^1, significand 0xC000000000000000, exponent 0x4000 with the sign bit
        x87.putLong(16, 0xC000000000000000L).putShort(24, (short) 0xC000);
        final byte[] memory = x87.array();
        final byte[] packed = Packer.pack(memory, Datatype.LONG_DOUBLE, 2, DataRepresentation.EXTERNAL32);
        final ByteBuffer quad = ByteBuffer.wrap(packed).order(ByteOrder.BIG_ENDIAN);
        assertEquals(0x3FFF000000000000L, quad.getLong(0));
        assertEquals(0L, quad.getLong(8));
        assertEquals(0xC000800000000000L, quad.getLong(16));
        assertEquals(0L, quad.getLong(24));
        final byte[] back = new byte[32];
        Packer.unpack(packed, back, Datatype.LONG_DOUBLE, 2, DataRepresentation.EXTERNAL32);
        assertArrayEquals(memory, back);
    }

    @Test
    void complexSwapsEachHalf() {
        final byte[] packed = Packer.pack(new float[] {1.0f, -2.0f}, Datatype.C_FLOAT_COMPLEX, 1,
            DataRepresentation.EXTERNAL32);
        final ByteBuffer b = ByteBuffer.wrap(packed).order(ByteOrder.BIG_ENDIAN);
        assertEquals(1.0f, b.getFloat(0));
        assertEquals(-2.0f, b.getFloat(4));
    }

    @Test
    void rangesStartingInsideAnElementConvertOnlyTheirPart() {
        final long[] values = {0x01020304L, 0x05060708L};
        final byte[] whole = Packer.pack(values, Datatype.LONG, 2, DataRepresentation.EXTERNAL32);
        final byte[] part = new byte[3];
        Packer.pack(Memory.of(values), 0, Datatype.LONG, 2, DataRepresentation.EXTERNAL32, 3, ByteBuffer.wrap(part), 0, 3);
        assertArrayEquals(new byte[] {whole[3], whole[4], whole[5]}, part);
        final long[] back = {0x7F7F7F7F7F7FL, 0x0A0B0C0DL};
        Packer.unpack(ByteBuffer.wrap(part), 0, 3, Memory.of(back), 0, Datatype.LONG, 2, DataRepresentation.EXTERNAL32, 3);
        assertEquals(0x7F7F7F04L, back[0], "only the low byte of the first long comes from the range");
        assertEquals(0x05060C0DL, back[1]);
    }

    @Test
    void representationNamesAreMpiNames() {
        assertEquals(DataRepresentation.EXTERNAL32, DataRepresentation.of("EXTERNAL32"));
        assertEquals("native", DataRepresentation.NATIVE.mpiName());
        assertThrows(ParioException.class, () -> DataRepresentation.of("xdr"));
    }
}
