package org.pario.datatypes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ParioException;

/** {@link Memory#copyRuns}: a stretch of runs between arrays and buffers, against a byte-by-byte copy. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class MemoryCopyRunsTest {
    @Test
    void stretchesOfEveryRunLengthAndStrideCopyExactlyTheirBytes() {
        final Random random = new Random(51);
        for (int trial = 0; trial < 3000; trial++) {
            final int size = 1024;
            final byte[] source = new byte[size];
            random.nextBytes(source);
            final int len = 1 + random.nextInt(72);
            final long runs = 1 + random.nextInt(8);
            // strides of either sign, at least a run apart on the destination so its runs do not overlap
            final long srcStride = (random.nextBoolean() ? 1 : -1) * (long) random.nextInt(3 * len);
            final long dstStride = (random.nextBoolean() ? 1 : -1) * (long) (len + random.nextInt(len + 1));
            final long srcFrom = srcStride < 0 ? size - len + (runs - 1) * srcStride : 0;
            final long dstFrom = dstStride < 0 ? size - len + (runs - 1) * dstStride : 0;
            if (srcFrom < 0 || dstFrom < 0 || srcFrom + (runs - 1) * Math.abs(srcStride) + len > size
                || dstFrom + (runs - 1) * Math.abs(dstStride) + len > size) {
                continue;
            }
            final long sFirst = srcStride < 0 ? srcFrom - (runs - 1) * srcStride : srcFrom;
            final long dFirst = dstStride < 0 ? dstFrom - (runs - 1) * dstStride : dstFrom;
            final byte[] expected = new byte[size];
            for (long k = 0; k < runs; k++) {
                for (int b = 0; b < len; b++) {
                    expected[(int) (dFirst + k * dstStride + b)] = source[(int) (sFirst + k * srcStride + b)];
                }
            }
            final byte[] intoArray = new byte[size];
            Memory.copyRuns(Memory.of(source), sFirst, srcStride, Memory.of(intoArray), dFirst, dstStride, len, runs);
            assertArrayEquals(expected, intoArray, "array to array, trial " + trial);
            final ByteBuffer direct = ByteBuffer.allocateDirect(size);
            Memory.copyRuns(Memory.of(source), sFirst, srcStride, Memory.of(direct), dFirst, dstStride, len, runs);
            final byte[] fromDirect = new byte[size];
            direct.get(0, fromDirect);
            assertArrayEquals(expected, fromDirect, "array to direct buffer, trial " + trial);
            final byte[] back = new byte[size];
            final ByteBuffer from = ByteBuffer.allocateDirect(size).put(0, source);
            Memory.copyRuns(Memory.of(from.asReadOnlyBuffer()), sFirst, srcStride, Memory.of(back), dFirst,
                dstStride, len, runs);
            assertArrayEquals(expected, back, "read-only buffer (no raw copy) to array, trial " + trial);
        }
    }

    @Test
    void doublesOfACyclicRowGoToEveryFourthPlace() {
        final double[] piece = {1, 2, 3, 4};
        final double[] row = new double[16];
        Memory.copyRuns(Memory.of(piece), 0, 8, Memory.of(row), 8, 32, 8, 4);
        assertArrayEquals(new double[] {0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0}, row);
    }

    @Test
    void aRunOutsideEitherMemoryIsRefusedAndNothingIsCopied() {
        final byte[] to = new byte[64];
        final ParioException last = assertThrows(ParioException.class,
            () -> Memory.copyRuns(Memory.of(new byte[64]), 0, 16, Memory.of(to), 0, 16, 8, 5));
        assertTrue(last.getMessage().contains("[64, 72)"), last.getMessage());
        assertThrows(ParioException.class,
            () -> Memory.copyRuns(Memory.of(new byte[64]), 8, -16, Memory.of(to), 0, 8, 8, 2));
        assertThrows(ParioException.class,
            () -> Memory.copyRuns(Memory.of(new byte[64]), 0, 8, Memory.of(to), 0, 8, -1, 2));
        assertEquals(0, to[0]);
        Memory.copyRuns(Memory.of(new byte[0]), 0, 8, Memory.of(new byte[0]), 0, 8, 8, 0);
    }
}
