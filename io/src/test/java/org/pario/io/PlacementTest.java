package org.pario.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The covered-bytes bitmap of a window, marked a stretch of runs at a time, against one bit at a time. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class PlacementTest {
    @Test
    void stretchesMarkExactlyTheBytesOfTheirRuns() {
        final Random random = new Random(54);
        final int[] strides = {1, 2, 3, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128};
        for (int trial = 0; trial < 20_000; trial++) {
            final int words = 1 + random.nextInt(40);
            final long[] fast = new long[words];
            final long[] slow = new long[words];
            final Placement.StretchMask mask = new Placement.StretchMask();
            // several stretches into one bitmap through one mask, as rows of a darray arrive
            for (int stretch = 0; stretch < 3; stretch++) {
                final int stride = strides[random.nextInt(strides.length)];
                final int bits = words * 64;
                final int len = 1 + random.nextInt(Math.min(Math.min(stride + 2, 70), bits));
                final int w = random.nextInt(bits - len + 1);
                final long most = (bits - w - len) / stride + 1;
                final long runs = most <= 1 ? 1 : 1 + random.nextInt((int) Math.min(most, 200));
                mask.markRuns(fast, w, len, stride, runs);
                for (long k = 0; k < runs; k++) {
                    for (long b = w + k * stride; b < w + k * stride + len; b++) {
                        slow[(int) (b >>> 6)] |= 1L << (b & 63);
                    }
                }
                assertArrayEquals(slow, fast, "trial " + trial + ": " + runs + " runs of " + len + " bytes every "
                    + stride + " from bit " + w);
            }
        }
    }

    @Test
    void aCyclicRowMarksEveryFourthDouble() {
        final long[] bits = new long[64];
        new Placement.StretchMask().markRuns(bits, 8, 8, 32, 128);
        for (int word = 0; word < 64; word++) {
            assertArrayEquals(new long[] {0x0000_ff00_0000_ff00L}, new long[] {bits[word]}, "word " + word);
        }
    }
}
