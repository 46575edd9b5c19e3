package org.pario.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Order;

@Timeout(60)
class ParallelFileTest {
    private static final Set<Mode> CREATE_RW = EnumSet.of(Mode.CREATE, Mode.RDWR);

    @TempDir
    Path dir;

    private static int[] ints(final Path file) throws Exception {
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        final int[] out = new int[b.capacity() / 4];
        b.asIntBuffer().get(out);
        return out;
    }

    @Test
    void subarrayViewsOfFourRanksWriteTheGlobalArrayInCOrder() throws Exception {
        final Path file = dir.resolve("sub.bin");
        // a 10 x 9 int array in 4 blocks: rows 0-4 / 5-9, columns 0-4 / 5-8 (the view-spec example)
        LocalCluster.run(4, comm -> {
            final int r = comm.rank();
            final long rows = r < 2 ? 0 : 5;
            final long cols = r % 2 == 0 ? 0 : 5;
            final long width = r % 2 == 0 ? 5 : 4;
            final Datatype filetype = Datatype.subarray(new long[] {10, 9}, new long[] {5, width},
                new long[] {rows, cols}, Order.C, Datatype.INT);
            final int[] local = new int[(int) (5 * width)];
            for (int i = 0; i < 5; i++) {
                for (int j = 0; j < width; j++) {
                    local[(int) (i * width + j)] = (int) ((rows + i) * 100 + cols + j);
                }
            }
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                f.setView(0, Datatype.INT, filetype, DataRepresentation.NATIVE);
                assertEquals(local.length * 4L, f.writeAll(local, local.length, Datatype.INT).bytes());
                assertEquals(local.length, f.position());
            }
        });
        final int[] global = ints(file);
        assertEquals(90, global.length);
        for (int i = 0; i < 10; i++) {
            for (int j = 0; j < 9; j++) {
                assertEquals(i * 100 + j, global[i * 9 + j], "element " + i + "," + j);
            }
        }
    }

    @Test
    void darrayCheckpointWrittenOnSixRanksIsReadBackOnThreeWithAnotherDistribution() throws Exception {
        final Path file = dir.resolve("darray.bin");
        final long[] g = {12, 10};
        LocalCluster.run(6, comm -> {
            final Datatype mine = Datatype.darray(6, comm.rank(), g,
                new Distribution[] {Distribution.BLOCK, Distribution.BLOCK},
                new long[] {Datatype.DISTRIBUTE_DFLT_DARG, Datatype.DISTRIBUTE_DFLT_DARG}, new long[] {2, 3},
                Order.C, Datatype.DOUBLE);
            // local values are the global indices, packed out of a global-shaped scratch array
            final double[] global = new double[120];
            Arrays.setAll(global, i -> i);
            final byte[] local = org.pario.datatypes.Packer.pack(global, mine, 1);
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                f.setView(0, Datatype.DOUBLE, mine, DataRepresentation.NATIVE);
                f.writeAll(local, local.length, Datatype.BYTE);
            }
        });
        final List<double[]> back = LocalCluster.call(3, comm -> {
            final Datatype mine = Datatype.darray(3, comm.rank(), g,
                new Distribution[] {Distribution.CYCLIC, Distribution.NONE},
                new long[] {1, Datatype.DISTRIBUTE_DFLT_DARG}, new long[] {3, 1}, Order.C, Datatype.DOUBLE);
            final double[] local = new double[(int) (mine.size() / 8)];
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDONLY))) {
                f.setView(0, Datatype.DOUBLE, mine, DataRepresentation.NATIVE);
                assertEquals(mine.size(), f.readAll(local, local.length, Datatype.DOUBLE).bytes());
            }
            return local;
        });
        for (int r = 0; r < 3; r++) {
            final double[] local = back.get(r);
            int k = 0;
            for (int row = r; row < 12; row += 3) {
                for (int col = 0; col < 10; col++) {
                    assertEquals(row * 10 + col, local[k++], "rank " + r + " row " + row + " col " + col);
                }
            }
        }
    }

    @Test
    void holesAndZeroLengthBlocksKeepTheBytesAlreadyThere() throws Exception {
        final Path file = dir.resolve("holes.bin");
        final byte[] sentinel = new byte[64];
        Arrays.fill(sentinel, (byte) 0xEE);
        Files.write(file, sentinel);
        LocalCluster.run(2, comm -> {
            // ints at 0, (empty), 12 of each 32-byte tile; rank 1's view starts 4 bytes later
            final Datatype filetype = Datatype.resized(
                Datatype.indexed(new long[] {1, 0, 1}, new long[] {0, 1, 3}, Datatype.INT), 0, 32);
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDWR))) {
                f.setView(4L * comm.rank(), Datatype.INT, filetype, DataRepresentation.NATIVE);
                f.writeAtAll(0, new int[] {comm.rank() * 10 + 1, comm.rank() * 10 + 2, comm.rank() * 10 + 3}, 3,
                    Datatype.INT);
            }
        });
        final int[] got = ints(file);
        final int s = 0xEEEEEEEE;
        // rank 0 writes ints 0, 3 and 8 (bytes 0, 12, 32); rank 1, from 4 bytes later, ints 1, 4 and 9
        assertArrayEquals(new int[] {1, 11, s, 2, 12, s, s, s, 3, 13, s, s, s, s, s, s}, got, Arrays.toString(got));
    }

    @Test
    void explicitOffsetsCountEtypesAcrossManyTilesAndReadsPastTheEndAreShort() throws Exception {
        final Path file = dir.resolve("tiles.bin");
        LocalCluster.run(1, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                // every other int: tile = one int in an 8-byte extent
                f.setView(16, Datatype.INT, Datatype.resized(Datatype.INT, 0, 8), DataRepresentation.NATIVE);
                final int[] data = new int[1000];
                Arrays.setAll(data, i -> i);
                f.writeAt(250, data, 1000, Datatype.INT);
                assertEquals(16 + 250 * 8L, f.byteOffset(250));
                assertEquals(16 + 1249 * 8L + 4, f.size());
                final int[] back = new int[10];
                f.readAt(995, back, 10, Datatype.INT);
                assertEquals(745, back[0]);
                // elements 1000 and later of the view would lie past the end: only 4 of the 10 exist
                final int[] tail = new int[10];
                assertEquals(5 * 4L, f.readAt(1245, tail, 10, Datatype.INT).bytes());
                assertEquals(999, tail[4]);
                assertEquals(0, tail[5]);
                f.seek(250);
                final int[] first = new int[2];
                f.read(first, 2, Datatype.INT);
                assertArrayEquals(new int[] {0, 1}, first);
                assertEquals(252, f.position());
            }
        });
    }

    @Test
    void zeroCountsOnSomeRanksOfACollectiveAreFine() throws Exception {
        final Path file = dir.resolve("zero.bin");
        LocalCluster.run(3, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                final int n = comm.rank() == 1 ? 0 : 4;
                assertEquals(n * 4L, f.writeAtAll(comm.rank() * 16L, new int[4], n, Datatype.INT).bytes());
                assertEquals(0, f.readAtAll(0, new int[0], 0, Datatype.INT).bytes());
            }
        });
        assertEquals(48, Files.size(file));
    }

    @Test
    void aNegativeStrideMemoryTypeWritesAndReadsItsBufferBackwards() throws Exception {
        final Path file = dir.resolve("backwards.bin");
        // The type's first element lies at the buffer's last int, so the buffer is addressed from there; the
        // default view counts offsets in bytes.
        final Datatype backwards = Datatype.vector(4, 1, -1, Datatype.INT);
        LocalCluster.run(3, comm -> {
            final int r = comm.rank();
            final int[] mine = {r * 10, r * 10 + 1, r * 10 + 2, r * 10 + 3};
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                assertEquals(16, f.writeAtAll(r * 16L, Memory.of(mine).at(12), 1, backwards).bytes());
                final int[] back = new int[4];
                assertEquals(16, f.readAtAll(r * 16L, Memory.of(back).at(12), 1, backwards).bytes());
                assertArrayEquals(mine, back);
            }
        });
        final ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.nativeOrder());
        for (int r = 0; r < 3; r++) {
            for (int i = 0; i < 4; i++) {
                assertEquals(r * 10 + 3 - i, bytes.getInt((r * 4 + i) * 4));
            }
        }
    }

    @Test
    void viewErrorsFailOnEveryRankWithTheSameMessage() {
        final Path file = dir.resolve("errors.bin");
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                final Datatype overlapping = comm.rank() == 2 ? Datatype.parse("hindexed([2,1], [0,4], int)")
                    : Datatype.INT;
                try {
                    f.setView(0, Datatype.INT, overlapping, DataRepresentation.NATIVE);
                } catch (ParioException x) {
                    assertTrue(x.getMessage().startsWith("rank 2: setView: filetype"), x.getMessage());
                    assertTrue(x.getMessage().contains("overlap"), x.getMessage());
                    throw x;
                }
            }
        }));
        assertEquals(ErrorCategory.ARGUMENT, e.category());
        assertEquals(2, e.getSuppressed().length, "every rank failed");
        LocalCluster.run(2, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                assertThrows(ParioException.class, () -> f.setView(-8, Datatype.INT, Datatype.INT,
                    DataRepresentation.NATIVE));
                assertTrue(assertThrows(ParioException.class, () -> f.setView(0, Datatype.DOUBLE,
                    Datatype.contiguous(3, Datatype.INT), DataRepresentation.NATIVE)).getMessage()
                    .contains("not made of whole etypes"));
                assertTrue(assertThrows(ParioException.class, () -> f.setView(0, Datatype.INT,
                    Datatype.parse("hindexed([1,1], [8,0], int)"), DataRepresentation.NATIVE)).getMessage()
                    .contains("decrease"));
                assertTrue(assertThrows(ParioException.class, () -> f.setView(0, Datatype.BYTE, Datatype.BYTE,
                    comm.rank() == 0 ? DataRepresentation.NATIVE : DataRepresentation.INTERNAL)).getMessage()
                    .contains("same datarep"));
            }
        });
    }

    /**
     * Filetypes of many equal runs at one stride (checked a stretch at a time): apart and increasing is accepted
     * and written where it says, overlapping or decreasing runs are refused, read-only overlapping views are read.
     */
    @Test
    void regularStretchesOfRunsAreCheckedLikeSingleRuns() throws Exception {
        final Path file = dir.resolve("stretches.bin");
        LocalCluster.run(2, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                f.setView(comm.rank() * 4L, Datatype.INT, Datatype.vector(1000, 1, 2, Datatype.INT),
                    DataRepresentation.NATIVE);
                final int[] mine = new int[1000];
                java.util.Arrays.fill(mine, comm.rank() + 1);
                f.writeAll(mine, 1000, Datatype.INT);
                final String overlap = assertThrows(ParioException.class, () -> f.setView(0, Datatype.INT,
                    Datatype.hvector(1000, 2, 4, Datatype.INT), DataRepresentation.NATIVE)).getMessage();
                assertTrue(overlap.contains("overlap at byte 4"), overlap);
                final String decrease = assertThrows(ParioException.class, () -> f.setView(0, Datatype.INT,
                    Datatype.hindexed(new long[] {1}, new long[] {8000}, Datatype.hvector(1000, 1, -8, Datatype.INT)),
                    DataRepresentation.NATIVE)).getMessage();
                assertTrue(decrease.contains("decrease at byte 7992"), decrease);
            }
        });
        final ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.nativeOrder());
        assertEquals(8000, bytes.capacity());
        for (int i = 0; i < 2000; i++) {
            assertEquals(i % 2 + 1, bytes.getInt(i * 4), "int " + i);
        }
        LocalCluster.run(2, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDONLY))) {
                f.setView(0, Datatype.INT, Datatype.hvector(999, 2, 4, Datatype.INT), DataRepresentation.NATIVE);
                final int[] got = new int[1998];
                f.readAll(got, 1998, Datatype.INT);
                for (int i = 0; i < 1998; i++) {
                    assertEquals((i / 2 + i % 2) % 2 + 1, got[i], "read-only overlapping view, int " + i);
                }
            }
        });
    }

    @Test
    void openErrorsAreAgreedAndModesAreHonoured() throws Exception {
        final Path exists = dir.resolve("exists.bin");
        Files.write(exists, new byte[] {1, 2, 3});
        final ParioException excl = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm ->
            ParallelFile.open(comm, exists.toString(), EnumSet.of(Mode.CREATE, Mode.EXCL, Mode.WRONLY)).close()));
        assertTrue(excl.getMessage().contains("the file exists (EXCL)"), excl.getMessage());
        assertEquals(ErrorCategory.IO, excl.category());
        final ParioException missing = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm ->
            ParallelFile.open(comm, dir.resolve("nope.bin").toString(), EnumSet.of(Mode.RDONLY)).close()));
        assertTrue(missing.getMessage().contains("no such file"), missing.getMessage());
        assertTrue(assertThrows(ParioException.class, () -> LocalCluster.run(1, comm ->
            ParallelFile.open(comm, exists.toString(), EnumSet.of(Mode.RDONLY, Mode.RDWR)))).getMessage()
            .contains("exactly one of RDONLY, WRONLY, RDWR"));

        LocalCluster.run(2, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, exists.toString(), EnumSet.of(Mode.RDONLY))) {
                assertThrows(ParioException.class, () -> f.writeAt(0, new byte[1], 1, Datatype.BYTE));
            }
            try (ParallelFile f = ParallelFile.open(comm, exists.toString(), EnumSet.of(Mode.RDWR, Mode.APPEND))) {
                assertEquals(3, f.position());
                if (comm.rank() == 0) {
                    f.write(new byte[] {9}, 1, Datatype.BYTE);
                }
                f.sync();
                f.setSize(10);
                assertEquals(10, f.size());
            }
        });
        assertArrayEquals(new byte[] {1, 2, 3, 9, 0, 0, 0, 0, 0, 0}, Files.readAllBytes(exists));
        final Path temp = dir.resolve("temp.bin");
        LocalCluster.run(2, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, temp.toString(),
                EnumSet.of(Mode.CREATE, Mode.WRONLY, Mode.DELETE_ON_CLOSE))) {
                f.writeAtAll(comm.rank(), new byte[] {7}, 1, Datatype.BYTE);
            }
        });
        assertFalse(Files.exists(temp));
    }

    /**
     * MPI asks every rank for the same modes: ranks that differ (one creating, one deleting on close) fail the open
     * alike, naming both sets, instead of taking different steps and waiting for each other; the file is as before.
     */
    @Test
    void ranksThatGiveDifferentModesFailTheOpenAlike() throws Exception {
        final Path exists = dir.resolve("kept.bin");
        Files.write(exists, new byte[] {1, 2, 3});
        final ParioException creating = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm ->
            ParallelFile.open(comm, exists.toString(), comm.rank() == 1 ? EnumSet.of(Mode.CREATE, Mode.RDWR)
                : EnumSet.of(Mode.RDWR)).close()));
        assertTrue(creating.getMessage().contains("every rank must give the same modes, got [RDWR] on some ranks "
            + "and [RDWR, CREATE] on others"), creating.getMessage());
        assertEquals(ErrorCategory.ARGUMENT, creating.category());
        assertTrue(creating.agreed());
        final ParioException deleting = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm ->
            ParallelFile.open(comm, exists.toString(), comm.rank() == 0 ? EnumSet.of(Mode.RDONLY,
                Mode.DELETE_ON_CLOSE) : EnumSet.of(Mode.RDONLY)).close()));
        assertTrue(deleting.getMessage().contains("same modes"), deleting.getMessage());
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(exists));
        // the same modes in another order are the same modes
        LocalCluster.run(2, comm -> ParallelFile.open(comm, exists.toString(), comm.rank() == 0
            ? EnumSet.of(Mode.RDWR, Mode.APPEND) : EnumSet.of(Mode.APPEND, Mode.RDWR)).close());
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(exists));
    }

    /**
     * A storage decorator that fails on one rank fails the open on every rank with that rank's error, the others
     * never left waiting; every rank calls it at the same point, so it may take part in collectives.
     */
    @Test
    void aDecoratorThatFailsOnOneRankFailsTheOpenOnEveryRank() throws Exception {
        final Path file = dir.resolve("decorated.bin");
        final byte[] bytes = new byte[24];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) i;
        }
        Files.write(file, bytes);
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm ->
            ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDONLY), Hints.DEFAULT, storage -> {
                if (comm.rank() == 1) {
                    throw ParioException.argument("this rank refuses the file");
                }
                return storage;
            }).close()));
        assertTrue(e.getMessage().contains("rank 1: this rank refuses the file"), e.getMessage());
        assertEquals(ErrorCategory.ARGUMENT, e.category());
        assertTrue(e.agreed());
        final ParioException none = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm ->
            ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDONLY), Hints.DEFAULT,
                storage -> comm.rank() == 0 ? storage : null).close()));
        assertTrue(none.getMessage().contains("rank 1: the storage decorator returned null"), none.getMessage());
        LocalCluster.run(3, comm -> {
            final long[] ranks = new long[1];
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDONLY), Hints.DEFAULT,
                storage -> {
                    ranks[0] = comm.allreduce(1L, org.pario.comm.Op.SUM);
                    return storage;
                })) {
                assertEquals(3, ranks[0]);
                final byte[] mine = new byte[8];
                f.readAtAll(comm.rank() * 8L, mine, 8, Datatype.BYTE);
                assertArrayEquals(Arrays.copyOfRange(bytes, comm.rank() * 8, comm.rank() * 8 + 8), mine);
            }
        });
    }

    @Test
    void orderedWritesThenOrderedReadsFollowRankOrder() throws Exception {
        final Path file = dir.resolve("ordered.bin");
        LocalCluster.run(4, comm -> {
            final int r = comm.rank();
            final int[] mine = new int[r + 1];
            for (int k = 0; k <= r; k++) {
                mine[k] = r * 100 + k;
            }
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                f.setView(0, Datatype.INT, Datatype.INT, DataRepresentation.NATIVE);
                f.writeOrdered(mine, mine.length, Datatype.INT);
                assertEquals(10, f.positionShared());
                f.writeOrdered(new int[] {-r}, r == 2 ? 0 : 1, Datatype.INT);
                assertEquals(13, f.positionShared());
                f.seekShared(0);
                final int[] back = new int[r + 1];
                assertEquals(4L * (r + 1), f.readOrdered(back, back.length, Datatype.INT).bytes());
                assertArrayEquals(mine, back);
                assertThrows(ParioException.class, () -> f.seekShared(r));
            }
        });
        assertArrayEquals(new int[] {0, 100, 101, 200, 201, 202, 300, 301, 302, 303, 0, -1, -3}, ints(file));
    }

    @Test
    void nonblockingAccessesAndPreallocate() throws Exception {
        final Path file = dir.resolve("nb.bin");
        LocalCluster.run(2, comm -> {
            final int r = comm.rank();
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                f.preallocate(64);
                assertEquals(64, f.size());
                f.setView(16L * r, Datatype.INT, Datatype.contiguous(4, Datatype.INT), DataRepresentation.NATIVE);
                final org.pario.comm.Request<org.pario.comm.Status> w = f.iwrite(new int[] {r, r + 1}, 2, Datatype.INT);
                assertEquals(2, f.position(), "the pointer moves at once");
                assertEquals(8, w.join().bytes());
                f.iwriteAtAll(2, new int[] {7 * r, 7 * r + 1}, 2, Datatype.INT).join();
                f.sync();
                final int[] back = new int[4];
                assertEquals(16, f.ireadAt(0, back, 4, Datatype.INT).toCompletableFuture().get().bytes());
                assertArrayEquals(new int[] {r, r + 1, 7 * r, 7 * r + 1}, back);
                f.preallocate(8);
                assertEquals(64, f.size(), "preallocate never shrinks");
            }
        });
        assertArrayEquals(new int[] {0, 1, 0, 1, 1, 2, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0}, ints(file));
    }

    @Test
    void aRankThatSkipsACollectiveFailsWithAMismatchInsteadOfHangingTheOthers() {
        final Path file = dir.resolve("skip.bin");
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                if (comm.rank() == 0) {
                    f.setSize(10);
                }
                // rank 1 goes straight to close(), whose agreement is another collective
            }
        }));
        assertTrue(e.getMessage().contains("collective mismatch"), e.getMessage());
    }
}
