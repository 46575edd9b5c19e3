package org.pario.io.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.LocalCluster;
import org.pario.comm.Op;
import org.pario.io.Hints;

@Timeout(120)
class AsyncCheckpointTest {
    private static final long[] SHAPE = {200, 300};

    @TempDir
    Path dir;

    private static DistributedArray<double[]> field(final Communicator comm) {
        return DistributedArray.of(comm, Element.DOUBLE, SHAPE, Dist.block(), Dist.cyclic(3));
    }

    /** This rank's part of the field at step {@code step}: the element of global index g holds g + step / 8. */
    private static double[] values(final DistributedArray<double[]> a, final long step) {
        final double[] v = a.allocate();
        for (int i = 0; i < v.length; i++) {
            v[i] = a.local().globalLinear(i) + step / 8.0;
        }
        return v;
    }

    /** Restores on 3 ranks with another distribution and checks the values of {@code step}. */
    private static void assertHolds(final Path file, final long step) {
        LocalCluster.run(3, comm -> {
            final DistributedArray<double[]> a = DistributedArray.of(comm, Element.DOUBLE, SHAPE, Dist.cyclic(),
                Dist.none());
            assertArrayEquals(values(a, step), Checkpoint.at(file).restore("field", a), file + " holds step " + step);
        });
    }

    @Test
    void theCheckpointHoldsTheValuesOfTheCallWhateverTheBuffersBecomeAfter() {
        for (final String staging : new String[] {"1073741824", "30000", "0"}) {
            final Path file = dir.resolve("a-" + staging + ".ckpt");
            final long[] most = new long[4];
            final long[] direct = new long[4];
            LocalCluster.run(4, comm -> {
                final DistributedArray<double[]> a = field(comm);
                final double[] mine = values(a, 1);
                final CompletableFuture<CheckpointHeader> saved = Checkpoint.at(file)
                    .hints(Hints.of(Map.of("pario_async_staging_bytes", staging))).writeAsync("field", a, mine);
                // the application goes on at once, changing its data and talking on its communicator
                Arrays.fill(mine, -7);
                assertEquals(4L, comm.allreduce(1L, Op.SUM));
                final CheckpointHeader h = saved.join();
                assertEquals(List.of("field"), h.names());
                most[comm.rank()] = comm.attribute(AsyncCheckpoints.KEY, () -> null).mostStaged();
                direct[comm.rank()] = comm.attribute(AsyncCheckpoints.KEY, () -> null).stagedInDirectMemory();
            });
            assertHolds(file, 1);
            // what is staged is staged in direct memory, which the background write hands to the storage as it is
            assertArrayEquals(most, direct, "bytes staged in direct memory, staging " + staging);
            // 200 x 300 doubles over 4 ranks: 120000 bytes each; the bound holds, whole elements
            for (final long m : most) {
                assertTrue(m <= Math.min(120000, Long.parseLong(staging)), m + " staged under " + staging);
            }
        }
    }

    /** Several arrays, the bound splitting the data inside the second: the split is one file offset for all ranks. */
    @Test
    void severalArraysSplitAtOneFileOffset() {
        final Path file = dir.resolve("several.ckpt");
        final Element<java.nio.ByteBuffer> pair = Element.of(org.pario.datatypes.Datatype.parse(
            "struct([1,1], [0,8], [double, int])"));
        for (final String staging : new String[] {"50000", "150000", "1"}) {
            LocalCluster.run(3, comm -> {
                final DistributedArray<double[]> a = field(comm);
                final DistributedArray<java.nio.ByteBuffer> p = DistributedArray.of(comm, pair, new long[] {90, 70},
                    Dist.cyclic(4), Dist.block());
                final double[] va = values(a, 9);
                final java.nio.ByteBuffer vp = p.allocate();
                for (int i = 0; i < p.local().intCount(); i++) {
                    vp.putDouble(16 * i, p.local().globalLinear(i)).putInt(16 * i + 8, i);
                }
                final CompletableFuture<CheckpointHeader> saved = Checkpoint.at(file)
                    .hints(Hints.of(Map.of("pario_async_staging_bytes", staging))).writer().array("field", a, va)
                    .array("pairs", p, vp).writeAsync();
                Arrays.fill(va, 0);
                for (int i = 0; i < vp.capacity(); i++) {
                    vp.put(i, (byte) 0);
                }
                saved.join();
                assertTrue(comm.attribute(AsyncCheckpoints.KEY, () -> null).mostStaged() <= Long.parseLong(staging));
            });
            assertHolds(file, 9);
            LocalCluster.run(2, comm -> {
                final DistributedArray<java.nio.ByteBuffer> p = DistributedArray.of(comm, pair, new long[] {90, 70});
                final java.nio.ByteBuffer back = Checkpoint.at(file).restore("pairs", p);
                for (int i = 0; i < p.local().intCount(); i++) {
                    assertEquals(p.local().globalLinear(i), back.getDouble(16 * i), staging + " element " + i);
                }
            });
        }
    }

    @Test
    void manyCheckpointsInARowCommitInOrderBetweenTheApplicationsCollectives() throws Exception {
        final int steps = 12;
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]> a = field(comm);
            final List<CompletableFuture<CheckpointHeader>> saved = new ArrayList<>();
            double[] mine = values(a, 0);
            for (int step = 1; step <= steps; step++) {
                mine = values(a, step);
                saved.add(Checkpoint.at(dir.resolve("step-" + step + ".ckpt")).keep(3)
                    .hints(Hints.of(Map.of("pario_async_staging_bytes", step % 2 == 0 ? "1048576" : "40000")))
                    .writer().attribute("step", step).array("field", a, mine).writeAsync());
                // the application's own traffic meanwhile
                final double sum = comm.allreduce((double) comm.rank(), Op.SUM);
                assertEquals(6.0, sum);
                comm.barrier();
                Arrays.fill(mine, Double.NaN);
            }
            long previous = 0;
            for (final CompletableFuture<CheckpointHeader> f : saved) {
                final long created = f.join().created().toEpochMilli();
                assertTrue(created >= previous, "committed in the order of the calls");
                previous = created;
            }
        });
        final List<CheckpointEntry> left = Checkpoint.list(dir);
        assertEquals(3, left.size(), left.toString());
        assertEquals(steps, left.get(2).attributes().getLong("step"));
        assertHolds(dir.resolve("step-" + steps + ".ckpt"), steps);
    }

    /**
     * While checkpoints are written in the background, the application makes communicators of its own and opens
     * files (each open makes two): the writing thread's communicators never share a context with them, so
     * neither side takes the other's messages.
     */
    @Test
    void theApplicationMakesCommunicatorsAndOpensFilesWhileACheckpointIsWritten() {
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]> a = field(comm);
            for (int step = 1; step <= 8; step++) {
                final double[] mine = values(a, step);
                final CompletableFuture<CheckpointHeader> saved = Checkpoint.at(dir.resolve("busy.ckpt"))
                    .hints(Hints.of(Map.of("pario_async_staging_bytes", step % 2 == 0 ? "20000" : "1073741824")))
                    .writeAsync("field", a, mine);
                // as many as the rank with the longest write needs: every rank makes the same communicators
                boolean written = false;
                for (int i = 0; !written || i < 8; i++) {
                    try (Communicator c = i % 2 == 0 ? comm.dup() : comm.split(comm.rank() % 2, comm.rank())) {
                        final long expected = i % 2 == 0 ? 4L * i + 6 : 2L * i + (comm.rank() % 2 == 0 ? 1 : 3);
                        // twice each rank's value, plus 1 from each rank whose checkpoint is still being written
                        final long sum = c.allreduce(2 * ((long) i + c.rank() + comm.rank() % 2 * (i % 2))
                            + (saved.isDone() ? 0 : 1), Op.SUM);
                        final long writing = sum - 2 * expected;
                        assertTrue(writing >= 0 && writing <= c.size(), "the application's allreduce " + i + ": "
                            + sum);
                        if (c.size() == comm.size()) {
                            written = writing == 0;
                        }
                    }
                }
                try (org.pario.io.ParallelFile f = org.pario.io.ParallelFile.open(comm,
                    dir.resolve("app.dat").toString(), java.util.EnumSet.of(org.pario.io.Mode.CREATE,
                        org.pario.io.Mode.RDWR))) {
                    f.writeAtAll(8L * comm.rank(), new long[] {step}, 1, org.pario.datatypes.Datatype.LONG);
                }
                saved.join();
            }
        });
        assertHolds(dir.resolve("busy.ckpt"), 8);
    }

    @Test
    void theListenerIsToldOfTheBackgroundPhasesOnTheWritingThread() {
        final Path file = dir.resolve("told.ckpt");
        final List<String> told = java.util.Collections.synchronizedList(new ArrayList<>());
        LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> a = field(comm);
            final CheckpointListener listener = (phase, done, total) -> {
                final String what = phase + " " + (Thread.currentThread().getName().startsWith(
                    "pario-checkpoint-writer") ? "writer" : "caller");
                if (comm.rank() == 0 && (told.isEmpty() || !told.get(told.size() - 1).equals(what))) {
                    told.add(what);
                }
            };
            Checkpoint.at(file).listener(listener).writeAsync("field", a, values(a, 4)).join();
        });
        assertEquals(List.of("AGREE caller", "WRITE writer", "CHECKSUM writer", "COMMIT writer"), told);
        assertHolds(file, 4);
    }

    @Test
    void closingTheCommunicatorWaitsForTheCheckpointInFlight() {
        final Path file = dir.resolve("closed.ckpt");
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]> a = field(comm);
            Checkpoint.at(file).writeAsync("field", a, values(a, 3));
            comm.close();
        });
        assertHolds(file, 3);
        assertEquals(1, Checkpoint.list(dir).size(), "no hidden file left");
    }

    @Test
    void aFailingWriteFailsEveryRanksFutureWithTheSameErrorAndLeavesThePreviousCheckpoint() throws Exception {
        final Path file = dir.resolve("kept.ckpt");
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]> a = field(comm);
            Checkpoint.at(file).write("field", a, values(a, 5));
        });
        final String[] messages = new String[4];
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]> a = field(comm);
            // a name the file system takes, whose hidden file's name is too long for it: the background write fails
            final CompletableFuture<CheckpointHeader> bad = Checkpoint.at(dir.resolve("x".repeat(250)))
                .writeAsync("field", a, values(a, 6));
            final CompletionException e = assertThrows(CompletionException.class, bad::join);
            assertTrue(e.getCause() instanceof ParioException, e.toString());
            messages[comm.rank()] = e.getCause().getMessage();
            // the next one goes ahead
            Checkpoint.at(file).writeAsync("field", a, values(a, 7)).join();
        });
        assertEquals(1, Arrays.stream(messages).distinct().count(), Arrays.toString(messages));
        assertTrue(messages[0].contains("x".repeat(250)), messages[0]);
        assertHolds(file, 7);
        // wrong buffers fail the call itself, on every rank
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> a = field(comm);
            Checkpoint.at(file).writeAsync("field", a, new double[comm.rank() == 0 ? 5 : (int) a.local().count()]);
        }));
        assertTrue(e.getMessage().contains("holds 5 double values"), e.getMessage());
        final ParioException missing = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> a = field(comm);
            Checkpoint.at(dir.resolve("no/such/dir/x.ckpt")).writeAsync("field", a, values(a, 8));
        }));
        assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());
        assertHolds(file, 7);
        assertEquals(1, Files.list(dir).count(), "nothing else left");
    }
}
