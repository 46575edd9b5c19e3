package org.pario.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.pario.ParioException;
import org.pario.io.array.DistributedArray;

/** The benchmarks' defaults fit every rank count they accept. */
class BenchDefaultsTest {
    @Test
    void theDefaultIoPatternFitsAnyRankCount() {
        for (final int ranks : new int[] {1, 2, 3, 4, 6, 8}) {
            IoBenchmark.check("block", ranks, 512);
        }
        assertArrayEquals(new long[] {2, 1, 1}, DistributedArray.dimsCreate(2, new long[3]));
        final ParioException e = assertThrows(ParioException.class, () -> IoBenchmark.check("2x2x1", 2, 512));
        assertTrue(e.getMessage().contains("--pattern 2x2x1 needs 4 ranks, not 2"), e.getMessage());
        final ParioException big = assertThrows(ParioException.class, () -> IoBenchmark.check("block", 1, 1024));
        assertTrue(big.getMessage().contains("--size 1024"), big.getMessage());
    }
}
