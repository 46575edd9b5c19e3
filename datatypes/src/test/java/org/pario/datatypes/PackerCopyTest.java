package org.pario.datatypes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ErrorCategory;
import org.pario.ParioException;

/** {@link Packer#copy}: one memory copy between contiguous layouts, the packed stream otherwise. */
@Timeout(30)
class PackerCopyTest {
    private static double[] ramp(final int n) {
        final double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = i + 0.5;
        }
        return a;
    }

    @Test
    void contiguousArraysCopyAtTheirBufferAddresses() {
        final double[] src = ramp(1000);
        final double[] dst = new double[1000];
        Packer.copy(Memory.of(src).at(8 * 10), Datatype.DOUBLE, 500, Memory.of(dst).at(8 * 300), Datatype.DOUBLE, 500);
        for (int i = 0; i < 1000; i++) {
            assertEquals(i >= 300 && i < 800 ? src[i - 290] : 0.0, dst[i], "element " + i);
        }
    }

    @Test
    void contiguousCopiesCrossArrayKindsAndDirectBuffers() {
        final double[] src = ramp(300);
        final ByteBuffer direct = ByteBuffer.allocateDirect(300 * 8).order(ByteOrder.LITTLE_ENDIAN);
        Packer.copy(Memory.of(src), Datatype.DOUBLE, 300, Memory.of(direct), Datatype.BYTE, 300 * 8);
        final long[] bits = new long[300];
        Packer.copy(Memory.of(direct), Datatype.contiguous(2, Datatype.LONG), 150, Memory.of(bits), Datatype.LONG, 300);
        for (int i = 0; i < 300; i++) {
            assertEquals(src[i], direct.getDouble(8 * i));
            assertEquals(Double.doubleToRawLongBits(src[i]), bits[i]);
        }
    }

    @Test
    void gappedLayoutsGoThroughTheStreamInPiecesAsPackAndUnpackWould() {
        // 40000 x a vector with holes: 640 KB of data, more than one 256 KiB piece
        final Datatype everyOther = Datatype.vector(2, 1, 2, Datatype.DOUBLE);
        final Datatype spread = Datatype.resized(everyOther, 0, 4 * 8);
        final int count = 40_000;
        final double[] src = ramp(4 * count);
        final double[] dst = new double[2 * count];
        Packer.copy(Memory.of(src), spread, count, Memory.of(dst), Datatype.DOUBLE, 2 * count);
        final double[] expected = new double[2 * count];
        Packer.unpack(Packer.pack(src, spread, count), expected, Datatype.DOUBLE, 2 * count);
        assertArrayEquals(expected, dst);
        assertEquals(src[4], dst[2]);
        assertEquals(src[6], dst[3]);

        final double[] back = new double[4 * count];
        Packer.copy(Memory.of(dst), Datatype.DOUBLE, 2 * count, Memory.of(back), spread, count);
        for (int i = 0; i < back.length; i++) {
            assertEquals(i % 4 == 0 || i % 4 == 2 ? src[i] : 0.0, back[i], "the holes stay untouched, " + i);
        }
    }

    @Test
    void readOnlyBuffersAreReadThroughTheStream() {
        final ByteBuffer readOnly = ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}).asReadOnlyBuffer();
        final byte[] dst = new byte[8];
        Packer.copy(Memory.of(readOnly), Datatype.BYTE, 8, Memory.of(dst), Datatype.BYTE, 8);
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, dst);
    }

    @Test
    void aDestinationTooSmallOrAnOutOfBoundsRunIsRefused() {
        final double[] src = ramp(10);
        final ParioException small = assertThrows(ParioException.class,
            () -> Packer.copy(Memory.of(src), Datatype.DOUBLE, 10, Memory.of(new double[10]), Datatype.DOUBLE, 9));
        assertEquals(ErrorCategory.TRUNCATE, small.category());
        final ParioException outside = assertThrows(ParioException.class,
            () -> Packer.copy(Memory.of(src).at(8), Datatype.DOUBLE, 10, Memory.of(new double[10]), Datatype.DOUBLE,
                10));
        assertEquals(ErrorCategory.ARGUMENT, outside.category());
        final double[] untouched = new double[4];
        Packer.copy(Memory.of(src), Datatype.DOUBLE, 0, Memory.of(untouched), Datatype.DOUBLE, 0);
        assertArrayEquals(new double[4], untouched);
    }
}
