package org.pario.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ParioException;
import org.pario.comm.LocalCluster;
import org.pario.comm.Request;
import org.pario.comm.Status;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;

/**
 * Shared-pointer access, the external32 file representation, and the view cases MPICH's I/O tests check: resized
 * of resized filetypes, a view that starts after a header, nonblocking collectives.
 */
@Timeout(60)
class SharedAndRepresentationTest {
    private static final Set<Mode> CREATE_RW = EnumSet.of(Mode.CREATE, Mode.RDWR);

    @TempDir
    Path dir;

    private static ByteBuffer bytes(final Path file, final ByteOrder order) throws Exception {
        return ByteBuffer.wrap(Files.readAllBytes(file)).order(order);
    }

    @Test
    void sharedPointerWritesFromEveryRankTakeDisjointRangesAndReadsGetThemBack() throws Exception {
        final Path file = dir.resolve("shared.bin");
        final int ranks = 5;
        final int rounds = 40;
        LocalCluster.run(ranks, comm -> {
            final int r = comm.rank();
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                f.setView(0, Datatype.INT, Datatype.INT, DataRepresentation.NATIVE);
                for (int i = 0; i < rounds; i++) {
                    // each record: rank, round, and as many ints again as the rank number (records differ in size)
                    final int[] record = new int[2 + r];
                    Arrays.fill(record, r * 1000 + i);
                    record[0] = r;
                    record[1] = i;
                    assertEquals(4L * record.length, f.writeShared(record, record.length, Datatype.INT).bytes());
                }
                f.writeShared(new int[0], 0, Datatype.INT);
                comm.barrier();
                final long total = (long) rounds * (2 + 3 + 4 + 5 + 6);
                assertEquals(total, f.positionShared());
                f.seekShared(0);
                // read it back record by record through the shared pointer, as many reads as were written
                long read = 0;
                for (int i = 0; i < rounds; i++) {
                    final int[] record = new int[2 + r];
                    read += f.readShared(record, record.length, Datatype.INT).bytes();
                }
                final long[] sum = new long[1];
                comm.allreduce(new long[] {read}, sum, 1, Datatype.LONG, org.pario.comm.Op.SUM);
                assertEquals(4 * total, sum[0], "every byte read once");
                assertEquals(total, f.positionShared());
                // a shared read past the end is short, and the pointer still moves by the count asked for
                comm.barrier();
                final int[] past = new int[3];
                if (r == 0) {
                    assertEquals(0, f.readShared(past, 3, Datatype.INT).bytes());
                }
                comm.barrier();
                assertEquals(total + 3, f.positionShared());
            }
        });
        // walk the file: records are whole, each (rank, round) exactly once
        final ByteBuffer b = bytes(file, ByteOrder.LITTLE_ENDIAN);
        final boolean[][] seen = new boolean[ranks][rounds];
        int at = 0;
        while (at < b.capacity()) {
            final int r = b.getInt(at);
            final int i = b.getInt(at + 4);
            assertTrue(r >= 0 && r < ranks && i >= 0 && i < rounds, "record header at byte " + at);
            for (int k = 0; k < r; k++) {
                assertEquals(r * 1000 + i, b.getInt(at + 8 + 4 * k), "record " + r + "/" + i);
            }
            assertTrue(!seen[r][i], "record " + r + "/" + i + " twice");
            seen[r][i] = true;
            at += 4 * (2 + r);
        }
        for (final boolean[] s : seen) {
            for (final boolean x : s) {
                assertTrue(x, "a record is missing");
            }
        }
    }

    @Test
    void nonblockingSharedAndCollectiveFormsAndOrderedAfterShared() throws Exception {
        final Path file = dir.resolve("nbshared.bin");
        LocalCluster.run(3, comm -> {
            final int r = comm.rank();
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                f.setView(0, Datatype.INT, Datatype.INT, DataRepresentation.NATIVE);
                if (r == 1) {
                    final Request<Status> w = f.iwriteShared(new int[] {11, 12}, 2, Datatype.INT);
                    assertEquals(8, w.join().bytes());
                }
                comm.barrier();
                // ordered access continues where the shared writes left the pointer
                f.writeOrdered(new int[] {20 + r}, 1, Datatype.INT);
                assertEquals(5, f.positionShared());
                f.seekShared(2);
                final int[] one = new int[1];
                f.readOrdered(one, 1, Datatype.INT);
                assertEquals(20 + r, one[0]);
                f.seekShared(0);
                if (r == 2) {
                    final int[] two = new int[2];
                    assertEquals(8, f.ireadShared(two, 2, Datatype.INT).join().bytes());
                    assertArrayEquals(new int[] {11, 12}, two);
                }
                f.setView(0, Datatype.INT, Datatype.INT, DataRepresentation.NATIVE);
                assertEquals(0, f.positionShared(), "setView resets the shared pointer");
                f.seek(10 + r);
                f.iwriteAll(new int[] {30 + r}, 1, Datatype.INT).join();
                f.seek(10 + r);
                final int[] back = new int[1];
                assertEquals(4, f.ireadAll(back, 1, Datatype.INT).join().bytes());
                assertEquals(30 + r, back[0]);
            }
        });
        final ByteBuffer b = bytes(file, ByteOrder.LITTLE_ENDIAN);
        final int[] all = new int[b.capacity() / 4];
        b.asIntBuffer().get(all);
        assertArrayEquals(new int[] {11, 12, 20, 21, 22, 0, 0, 0, 0, 0, 30, 31, 32}, all);
    }

    /**
     * A view's reset of the shared pointer comes with its first use, from whichever rank: a rank that writes through
     * the shared pointer as soon as its {@code setView} returns starts at 0 even while rank 0 is still elsewhere,
     * after uses under the old view from every rank; a {@code setView} that fails on one rank leaves the pointer
     * where it was on every rank.
     */
    @Test
    void aViewResetsTheSharedPointerForItsFirstUseAndAFailedOneDoesNot() throws Exception {
        final Path file = dir.resolve("views.bin");
        LocalCluster.run(3, comm -> {
            final int r = comm.rank();
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                f.setView(0, Datatype.INT, Datatype.INT, DataRepresentation.NATIVE);
                f.writeShared(new int[] {r, r}, 2, Datatype.INT);
                final int[] token = new int[1];
                if (r == 2) {
                    // the last use under the old view comes after every other rank's
                    comm.recv(token, 1, Datatype.INT, 0, 1);
                    comm.recv(token, 1, Datatype.INT, 1, 1);
                    f.writeShared(new int[] {9}, 1, Datatype.INT);
                } else {
                    comm.send(token, 1, Datatype.INT, 2, 1);
                }
                f.setView(0, Datatype.INT, Datatype.INT, DataRepresentation.NATIVE);
                if (r == 1) {
                    f.writeShared(new int[] {41, 42}, 2, Datatype.INT);
                    comm.send(token, 1, Datatype.INT, 0, 2);
                } else if (r == 0) {
                    // rank 1's first use under the new view reaches the pointer before rank 0 does anything more
                    comm.recv(token, 1, Datatype.INT, 1, 2);
                }
                comm.barrier();
                assertEquals(2, f.positionShared(), "the new view's first use started at 0");
                final ParioException refused = assertThrows(ParioException.class, () -> f.setView(0, Datatype.INT,
                    r == 2 ? Datatype.contiguous(3, Datatype.BYTE) : Datatype.INT, DataRepresentation.NATIVE));
                assertTrue(refused.getMessage().startsWith("rank 2: "), refused.getMessage());
                assertEquals(2, f.positionShared(), "a view refused on one rank resets nothing");
            }
        });
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.nativeOrder());
        assertEquals(41, b.getInt(0));
        assertEquals(42, b.getInt(4));
    }

    @Test
    void aSequentialFileAllowsOnlySharedAndOrderedAccess() throws Exception {
        final Path file = dir.resolve("sequential.bin");
        LocalCluster.run(2, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.CREATE, Mode.WRONLY,
                Mode.SEQUENTIAL))) {
                f.writeOrdered(new byte[] {(byte) comm.rank()}, 1, Datatype.BYTE);
                f.writeShared(new byte[] {9}, comm.rank() == 0 ? 1 : 0, Datatype.BYTE);
                assertTrue(assertThrows(ParioException.class, () -> f.writeAt(0, new byte[1], 1, Datatype.BYTE))
                    .getMessage().contains("SEQUENTIAL"));
                assertThrows(ParioException.class, () -> f.seek(1));
                assertThrows(ParioException.class, () -> f.writeAll(new byte[1], 1, Datatype.BYTE));
            }
        });
        assertArrayEquals(new byte[] {0, 1, 9}, Files.readAllBytes(file));
    }

    @Test
    void external32FilesAreBigEndianAndReadBackAsNativeValues() throws Exception {
        final Path file = dir.resolve("e32.bin");
        LocalCluster.run(2, comm -> {
            final int r = comm.rank();
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                // two ranks alternate blocks of 2 doubles
                f.setView(16L * r, Datatype.DOUBLE, Datatype.resized(Datatype.contiguous(2, Datatype.DOUBLE), 0, 32),
                    DataRepresentation.EXTERNAL32);
                final double[] mine = new double[6];
                Arrays.setAll(mine, k -> r * 100 + k + 0.25);
                f.writeAll(mine, 6, Datatype.DOUBLE);
                f.seek(0);
                final double[] back = new double[6];
                assertEquals(48, f.readAll(back, 6, Datatype.DOUBLE).bytes());
                assertArrayEquals(mine, back);
                assertEquals(8, f.typeExtent(Datatype.DOUBLE));
                assertEquals(4, f.typeExtent(Datatype.LONG), "long is 4 bytes in external32");
            }
        });
        final ByteBuffer b = bytes(file, ByteOrder.BIG_ENDIAN);
        assertEquals(96, b.capacity());
        for (int block = 0; block < 6; block++) {
            final int r = block % 2;
            for (int k = 0; k < 2; k++) {
                assertEquals(r * 100 + block / 2 * 2 + k + 0.25, b.getDouble(16 * block + 8 * k), "block " + block);
            }
        }
    }

    @Test
    void external32LongsShrinkInAByteViewAndSizeChangingViewsAreRefused() throws Exception {
        final Path file = dir.resolve("e32long.bin");
        LocalCluster.run(1, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                f.setView(0, Datatype.BYTE, Datatype.BYTE, DataRepresentation.EXTERNAL32);
                final Status s = f.write(new long[] {1, -2, 70000}, 3, Datatype.LONG);
                assertEquals(24, s.bytes(), "the status counts memory bytes");
                assertEquals(3, s.count(Datatype.LONG));
                assertEquals(12, f.position(), "the pointer counts file bytes");
                final long[] back = new long[3];
                f.readAt(0, back, 3, Datatype.LONG);
                assertArrayEquals(new long[] {1, -2, 70000}, back);
                assertTrue(assertThrows(ParioException.class, () -> f.setView(0, Datatype.LONG, Datatype.LONG,
                    DataRepresentation.EXTERNAL32)).getMessage().contains("keep their size in external32"));
                assertEquals(Datatype.BYTE, f.view().etype(), "a refused view leaves the old one in place");
            }
        });
        final ByteBuffer b = bytes(file, ByteOrder.BIG_ENDIAN);
        assertEquals(12, b.capacity());
        assertEquals(1, b.getInt(0));
        assertEquals(-2, b.getInt(4));
        assertEquals(70000, b.getInt(8));
    }

    @Test
    void aResizedOfResizedFiletypeTilesByTheOuterExtent() throws Exception {
        final Path file = dir.resolve("resized2.bin");
        // inner: an int at byte 4 of 8; outer: that, resized to 20 bytes: ints land at 4, 24, 44, ...
        final Datatype inner = Datatype.resized(Datatype.hindexed(new long[] {1}, new long[] {4}, Datatype.INT), 0, 8);
        final Datatype outer = Datatype.resized(inner, 0, 20);
        LocalCluster.run(1, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                f.setView(0, Datatype.INT, outer, DataRepresentation.NATIVE);
                f.write(new int[] {1, 2, 3, 4}, 4, Datatype.INT);
                assertEquals(64, f.byteOffset(3));
            }
        });
        final ByteBuffer b = bytes(file, ByteOrder.LITTLE_ENDIAN);
        assertEquals(68, b.capacity());
        for (int i = 0; i < 68; i += 4) {
            assertEquals(i % 20 == 4 ? i / 20 + 1 : 0, b.getInt(i), "byte " + i);
        }
    }

    @Test
    void aViewAfterAHeaderStartsWhereTheHeaderEnds() throws Exception {
        // MPI_DISPLACEMENT_CURRENT style: rank 0 writes a header through the byte view, every rank then sets a view
        // at the current byte offset, and the data follows the header without a gap
        final Path file = dir.resolve("header.bin");
        LocalCluster.run(3, comm -> {
            final int r = comm.rank();
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW)) {
                final byte[] header = "PARIO-HDR".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                if (r == 0) {
                    f.write(header, header.length, Datatype.BYTE);
                }
                final long[] current = {f.byteOffset(f.position())};
                comm.bcast(current, 1, Datatype.LONG, 0);
                f.setView(current[0], Datatype.INT, Datatype.INT, DataRepresentation.NATIVE);
                f.writeOrdered(new int[] {r, r}, 2, Datatype.INT);
            }
        });
        final ByteBuffer b = bytes(file, ByteOrder.LITTLE_ENDIAN);
        assertEquals(9 + 24, b.capacity());
        assertEquals("PARIO-HDR", new String(b.array(), 0, 9, java.nio.charset.StandardCharsets.US_ASCII));
        for (int i = 0; i < 6; i++) {
            assertEquals(i / 2, b.getInt(9 + 4 * i));
        }
    }
}
