package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** One file written by ranks in separate JVMs at once: byte-range locks and the shared pointer across processes. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MultiJvmIoTest {
    @TempDir
    Path dir;

    private List<String> run(final int n, final String mode, final Path file) throws Exception {
        return run(n, mode, file, true);
    }

    private List<String> run(final int n, final String mode, final Path file, final boolean mustSucceed)
        throws Exception {
        final String job = "io-" + UUID.randomUUID();
        final List<Process> ranks = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            ranks.add(Processes.jobRank(r, n, job, dir, 5, Processes.java(IoJobMain.class, mode, file.toString()))
                .start());
        }
        final List<String> outputs = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            final Process p = ranks.get(r);
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            if (mustSucceed) {
                assertTrue(out.contains("rank " + r + " ok"), "rank " + r + " printed:\n" + out);
            }
            outputs.add(out);
        }
        return outputs;
    }

    @Test
    void blockWrittenBySixJvmsIsReadBackAsCyclicRowsThroughTwoPhase() throws Exception {
        run(6, "redistribute", dir.resolve("redistribute.bin"));
    }

    @Test
    void aWriterKilledMidCheckpointLeavesThePreviousCheckpointIntact() throws Exception {
        final Path file = dir.resolve("state.ckpt");
        final List<String> out = run(4, "checkpoint-killed", file, false);
        assertTrue(out.get(2).contains("rank 2 halting"), out.get(2));
        for (final int r : new int[] {0, 1, 3}) {
            assertTrue(out.get(r).contains("rank " + r + " failed after") && out.get(r).contains("rank 2"),
                "rank " + r + " printed:\n" + out.get(r));
        }
        final org.pario.io.array.CheckpointHeader h = org.pario.io.array.Checkpoint.at(file).header();
        assertEquals("A", h.attributes().getString("which"), "the interrupted checkpoint never replaced the first");
        org.pario.comm.LocalCluster.run(3, comm -> {
            org.pario.io.array.Checkpoint.at(file).verify(comm);
            final var array = IoJobMain.checkpointArray(comm);
            final var part = array.local();
            final double[] back = org.pario.io.array.Checkpoint.at(file).restore("a", array);
            for (int i = 0; i < back.length; i++) {
                if (back[i] != part.globalLinear(i)) {
                    throw new AssertionError("element " + part.globalLinear(i) + " is " + back[i]);
                }
            }
        });
    }

    @Test
    void aRankKilledInATwoPhaseWriteFailsEveryOtherRankPromptly() throws Exception {
        final List<String> out = run(4, "killed", dir.resolve("killed.bin"), false);
        assertTrue(out.get(2).contains("rank 2 halting"), out.get(2));
        for (final int r : new int[] {0, 1, 3}) {
            final java.util.regex.Matcher m = java.util.regex.Pattern.compile("rank " + r
                + " failed after (\\d+) ms: (.*)").matcher(out.get(r));
            assertTrue(m.find(), "rank " + r + " printed:\n" + out.get(r));
            assertTrue(m.group(2).contains("rank 2"), "the error names the dead rank: " + m.group(2));
            assertTrue(Long.parseLong(m.group(1)) < 30_000, "failed within the bound: " + m.group(1) + " ms");
        }
    }

    @Test
    void interleavedSievedWritesFromFourJvmsLoseNoByte() throws Exception {
        final Path file = dir.resolve("interleaved.bin");
        run(4, "interleave", file);
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(4L * 4 * IoJobMain.INTS, b.capacity());
        for (int i = 0; i < 4 * IoJobMain.INTS; i++) {
            assertEquals((i % 4 + 1) * 1_000_000 + i / 4, b.getInt(4 * i), "int " + i);
        }
    }

    @Test
    void sharedPointerWritesFromThreeJvmsTakeDisjointRanges() throws Exception {
        final Path file = dir.resolve("shared.bin");
        run(3, "shared", file);
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        final boolean[][] seen = new boolean[3][IoJobMain.RECORDS];
        int at = 0;
        int records = 0;
        while (at < b.capacity()) {
            final int r = b.getInt(at);
            final int i = b.getInt(at + 4);
            assertTrue(r >= 0 && r < 3 && i >= 0 && i < IoJobMain.RECORDS && !seen[r][i], "record at byte " + at);
            for (int k = 0; k < r; k++) {
                assertEquals(r * 1000 + i, b.getInt(at + 8 + 4 * k));
            }
            seen[r][i] = true;
            records++;
            at += 4 * (2 + r);
        }
        assertEquals(3 * IoJobMain.RECORDS, records);
    }
}
