package org.pario.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ParioException;
import org.pario.io.array.DistributedArray;

/** The benchmarks' defaults fit every rank count they accept, and their thread ranks run as the JVM ranks do. */
class BenchDefaultsTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void theIoBenchmarkRunsItsRanksAsThreadsAndChecksEveryValue() {
        for (final String pattern : new String[] {"cyclic", "3x1x1"}) {
            final Path file = dir.resolve(pattern + ".bin");
            final String[] r = Cli.run("bench", "io", "--threads", "-n", "3", "--size", "12", "--pattern", pattern,
                "--file", file.toString());
            assertEquals("0", r[0], r[2]);
            assertTrue(r[1].contains("# Pario, 3 thread ranks, 12^3 doubles"), r[1]);
            // phase, pattern, ranks, MiB/s, seconds, the process's peak memory over 3 ranks, and all of it
            for (final String phase : new String[] {"write", "read"}) {
                assertTrue(r[1].lines().anyMatch(l -> l.matches(phase + " " + pattern
                    + " 3 [0-9.]+ [0-9.]+ [0-9]+ [0-9]+")), r[1]);
            }
            assertFalse(Files.exists(file), "the benchmark's file is deleted");
            assertFalse(Files.exists(Path.of(file + ".warmup")), "its warm-up file too");
        }
    }

    @Test
    void threadRanksWhoseArrayTheHeapCannotHoldFailBeforeAnyStarts() {
        final String[] r = Cli.run("bench", "io", "--threads", "-n", "1024", "--size", "4096", "--file",
            dir.resolve("x.bin").toString());
        assertEquals("2", r[0], r[1] + r[2]);
        assertTrue(r[2].contains("--threads: the 1024 ranks' parts of --size 4096 take 524288 MiB"), r[2]);
        assertTrue(r[2].contains("PARIO_JAVA_OPTS=-Xmx"), r[2]);
    }

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
