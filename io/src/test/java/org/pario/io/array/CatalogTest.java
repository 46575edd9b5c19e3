package org.pario.io.array;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ParioException;
import org.pario.comm.LocalCluster;

@Timeout(120)
class CatalogTest {
    @TempDir
    Path dir;

    /** Writes checkpoint {@code name} of a small array on 2 ranks with attribute step. */
    private void write(final String name, final long step, final Checkpoint target) throws Exception {
        LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> a = DistributedArray.of(comm, Element.DOUBLE, new long[] {300, 500});
            final double[] v = a.allocate();
            java.util.Arrays.fill(v, step);
            target.writer().attribute("step", step).array("field", a, v).write();
        });
        // created times are to the millisecond: the next checkpoint starts once the clock has passed this one's
        final long created = target.header().created().toEpochMilli();
        while (System.currentTimeMillis() <= created) {
            Thread.onSpinWait();
        }
    }

    private void write(final String name, final long step) throws Exception {
        write(name, step, Checkpoint.at(dir.resolve(name)));
    }

    private static List<String> names(final List<CheckpointEntry> entries) {
        final List<String> out = new ArrayList<>();
        for (final CheckpointEntry e : entries) {
            out.add(Path.of(e.location()).getFileName().toString());
        }
        return out;
    }

    @Test
    void aDirectoryWithHalfWrittenAndDamagedCheckpointsBesideGoodOnes() throws Exception {
        write("step-1.ckpt", 1);
        write("step-2.ckpt", 2);
        write("step-3.ckpt", 3);
        write("step-4.ckpt", 4);
        write("step-5.ckpt", 5);
        // step-4's header is damaged, step-5's data: list sees the first, only verifying finds the second
        CheckpointTest.flip(dir.resolve("step-4.ckpt"), 40, 0x40);
        final StoredArray a = Checkpoint.at(dir.resolve("step-5.ckpt")).header().array("field");
        CheckpointTest.flip(dir.resolve("step-5.ckpt"), a.offset() + 12345, 0x40);
        Files.write(dir.resolve(".step-6.ckpt.pario-1f2e3d.tmp"), new byte[8192]);
        Files.writeString(dir.resolve("run.log"), "not a checkpoint");
        Files.write(dir.resolve("tiny"), new byte[3]);

        final List<CheckpointEntry> all = Checkpoint.list(dir);
        assertEquals(6, all.size(), all.toString());
        final CheckpointEntry first = all.get(0);
        assertEquals("step-1.ckpt", Path.of(first.location()).getFileName().toString());
        assertTrue(first.whole());
        assertEquals(List.of("field"), first.arrays());
        assertEquals(1, first.attributes().getLong("step"));
        assertEquals(Files.size(dir.resolve("step-1.ckpt")), first.bytes());
        int whole = 0;
        for (final CheckpointEntry e : all) {
            final String n = Path.of(e.location()).getFileName().toString();
            switch (n) {
                case "step-4.ckpt" -> {
                    assertEquals(CheckpointEntry.State.DAMAGED, e.state());
                    assertTrue(e.problem().contains("header"), e.problem());
                }
                case ".step-6.ckpt.pario-1f2e3d.tmp" -> {
                    assertEquals(CheckpointEntry.State.HALF_WRITTEN, e.state());
                    assertTrue(e.problem().contains("step-6.ckpt"), e.problem());
                }
                default -> whole += e.whole() ? 1 : 0;
            }
        }
        assertEquals(4, whole, "steps 1, 2, 3 and 5 look whole");

        final LatestCheckpoint latest = Checkpoint.latest(dir);
        assertEquals("step-3.ckpt", Path.of(latest.newest().orElseThrow().location()).getFileName().toString());
        // newest first; the damaged files' times are their modification times, the flips' and the temporary's
        assertEquals(java.util.Set.of(".step-6.ckpt.pario-1f2e3d.tmp", "step-5.ckpt", "step-4.ckpt"),
            java.util.Set.copyOf(names(latest.skipped())));
        final CheckpointEntry five = latest.skipped().stream().filter(e -> e.location().endsWith("step-5.ckpt"))
            .findFirst().orElseThrow();
        assertEquals(CheckpointEntry.State.DAMAGED, five.state());
        assertTrue(five.problem().contains("array 'field' is damaged in chunk 0"), five.problem());
        LocalCluster.run(3, comm -> {
            final LatestCheckpoint l = Checkpoint.latest(comm, dir.toString());
            assertEquals(latest.newest().orElseThrow().location(), l.newest().orElseThrow().location());
            assertEquals(3, l.newest().orElseThrow().attributes().getLong("step"));
            assertEquals(names(latest.skipped()), names(l.skipped()));
            final double[] back = l.orElseThrow().restore("field", DistributedArray.of(comm, Element.DOUBLE,
                new long[] {300, 500}));
            for (final double x : back) {
                assertEquals(3.0, x);
            }
        });

        final List<CheckpointEntry> deleted = Checkpoint.prune(dir.toString(), 2);
        // steps 3 and 5 are the two newest whole-looking ones; older whole ones and the damaged step-4 go
        assertEquals(List.of("step-1.ckpt", "step-2.ckpt"), names(deleted));
        assertTrue(Files.exists(dir.resolve("step-3.ckpt")));
        assertTrue(Files.exists(dir.resolve("step-4.ckpt")), "damaged, but newer than the oldest kept");
        assertTrue(Files.exists(dir.resolve(".step-6.ckpt.pario-1f2e3d.tmp")), "a write may still be running");
        assertTrue(Files.exists(dir.resolve("run.log")) && Files.exists(dir.resolve("tiny")), "not ours");
    }

    @Test
    void retentionDeletesOnlyAfterANewerCheckpointHasCommittedAndCatchesUpAfterACrash() throws Exception {
        for (int step = 1; step <= 4; step++) {
            write("s" + step + ".ckpt", step, Checkpoint.at(dir.resolve("s" + step + ".ckpt")).keep(2));
            final List<CheckpointEntry> now = Checkpoint.list(dir);
            assertEquals(Math.min(step, 2), now.size(), now.toString());
            assertEquals(step, now.get(now.size() - 1).attributes().getLong("step"));
        }
        // a job that died between its commit and its pruning: three checkpoints stay
        write("s5.ckpt", 5);
        assertEquals(List.of("s3.ckpt", "s4.ckpt", "s5.ckpt"), names(Checkpoint.list(dir)));
        // the next write's pruning catches up
        write("s6.ckpt", 6, Checkpoint.at(dir.resolve("s6.ckpt")).keep(2));
        assertEquals(List.of("s5.ckpt", "s6.ckpt"), names(Checkpoint.list(dir)));
        // a write that fails prunes nothing
        assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> a = DistributedArray.of(comm, Element.DOUBLE, new long[] {300, 500});
            Checkpoint.at(dir.resolve("s7.ckpt")).keep(1).write("field", a, new double[comm.rank() == 0 ? 3 : 75000]);
        }));
        assertEquals(List.of("s5.ckpt", "s6.ckpt"), names(Checkpoint.list(dir)));
        assertThrows(ParioException.class, () -> Checkpoint.at(dir.resolve("x")).keep(0));
        assertThrows(ParioException.class, () -> Checkpoint.prune(dir.toString(), 0));
    }

    @Test
    void anEmptyOrMissingDirectory() {
        assertTrue(Checkpoint.list(dir).isEmpty());
        final LatestCheckpoint none = Checkpoint.latest(dir);
        assertFalse(none.newest().isPresent());
        assertTrue(assertThrows(ParioException.class, none::orElseThrow).getMessage()
            .contains("no checkpoint that verifies"));
        assertTrue(Checkpoint.prune(dir.toString(), 3).isEmpty());
        final ParioException e = assertThrows(ParioException.class, () -> Checkpoint.list(dir.resolve("nope")));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }
}
