package org.pario.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ParioException;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;
import org.pario.io.storage.Storage;

/**
 * Independent accesses of noncontiguous views go to storage as few large calls (data sieving), and sieved writes
 * from several ranks at once lose no byte.
 */
@Timeout(60)
class SievingTest {
    @TempDir
    Path dir;

    /** Counts the calls that reach storage, and the bytes they move. */
    static class Counting implements Storage {
        final Storage inner;
        final AtomicInteger reads = new AtomicInteger();
        final AtomicInteger writes = new AtomicInteger();
        final AtomicInteger locks = new AtomicInteger();
        final java.util.concurrent.atomic.AtomicLong bytesRead = new java.util.concurrent.atomic.AtomicLong();
        final java.util.concurrent.atomic.AtomicLong bytesWritten = new java.util.concurrent.atomic.AtomicLong();

        Counting(final Storage inner) {
            this.inner = inner;
        }

        @Override
        public Set<Capability> capabilities() {
            return inner.capabilities();
        }

        @Override
        public long preferredBlockSize() {
            return inner.preferredBlockSize();
        }

        @Override
        public Map<String, String> settingsInEffect() {
            return inner.settingsInEffect();
        }

        @Override
        public long size() throws IOException {
            return inner.size();
        }

        @Override
        public long read(final long position, final ByteBuffer dst) throws IOException {
            reads.incrementAndGet();
            final long n = inner.read(position, dst);
            bytesRead.addAndGet(Math.max(0, n));
            return n;
        }

        @Override
        public void write(final long position, final ByteBuffer src) throws IOException {
            writes.incrementAndGet();
            final int n = src.remaining();
            inner.write(position, src);
            bytesWritten.addAndGet(n);
        }

        @Override
        public void truncate(final long size) throws IOException {
            inner.truncate(size);
        }

        @Override
        public void sync() throws IOException {
            inner.sync();
        }

        @Override
        public AutoCloseable lock(final long position, final long length) throws IOException {
            locks.incrementAndGet();
            return inner.lock(position, length);
        }

        @Override
        public void close() throws IOException {
            inner.close();
        }
    }

    private int[] readEveryOtherInt(final Path file, final Map<String, String> hints, final AtomicInteger calls,
                                    final long offset, final int count) {
        return LocalCluster.call(1, comm -> {
            final Counting[] counting = new Counting[1];
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDONLY), Hints.of(hints),
                s -> counting[0] = new Counting(s))) {
                f.setView(0, Datatype.INT, Datatype.resized(Datatype.INT, 0, 8), DataRepresentation.NATIVE);
                final int[] out = new int[count];
                final long bytes = f.readAt(offset, out, count, Datatype.INT).bytes();
                calls.set(counting[0].reads.get());
                return bytes == count * 4L ? out : Arrays.copyOf(out, (int) (bytes / 4));
            }
        }).get(0);
    }

    @Test
    void aStridedViewIsReadWithOneStorageCallPerWindow() throws Exception {
        final Path file = dir.resolve("strided.bin");
        final ByteBuffer b = ByteBuffer.allocate(8000).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 2000; i++) {
            b.putInt(4 * i, i);
        }
        Files.write(file, b.array());
        final AtomicInteger sieved = new AtomicInteger();
        final int[] a = readEveryOtherInt(file, Map.of(), sieved, 0, 1000);
        final AtomicInteger direct = new AtomicInteger();
        final int[] c = readEveryOtherInt(file, Map.of("romio_ds_read", "disable"), direct, 0, 1000);
        assertArrayEquals(c, a);
        for (int i = 0; i < 1000; i++) {
            assertEquals(2 * i, a[i]);
        }
        assertEquals(1, sieved.get(), "one window of 8 KB");
        assertEquals(1000, direct.get(), "one call per 4-byte run without sieving");
        final AtomicInteger small = new AtomicInteger();
        readEveryOtherInt(file, Map.of("ind_rd_buffer_size", "800"), small, 0, 1000);
        assertEquals(10, small.get(), "windows of at most 800 bytes");
    }

    @Test
    void aReadOnlyViewWithOverlappingRunsIsSieved() throws Exception {
        final Path file = dir.resolve("overlap.bin");
        final ByteBuffer b = ByteBuffer.allocate(4 * 100).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 100; i++) {
            b.putInt(4 * i, i);
        }
        Files.write(file, b.array());
        // ints 0 and 1, then 1 and 2 again (runs that overlap, legal for reading), tiled by 16
        final int[] got = LocalCluster.call(1, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDONLY))) {
                f.setView(0, Datatype.INT, Datatype.resized(Datatype.parse("hindexed([2,2], [0,4], int)"), 0, 16),
                    DataRepresentation.NATIVE);
                final int[] out = new int[8];
                f.read(out, 8, Datatype.INT);
                return out;
            }
        }).get(0);
        assertArrayEquals(new int[] {0, 1, 1, 2, 4, 5, 5, 6}, got);
    }

    @Test
    void theEndOfTheFileCanFallInsideAWindow() throws Exception {
        final Path file = dir.resolve("short.bin");
        final ByteBuffer b = ByteBuffer.allocate(4 * 21).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 21; i++) {
            b.putInt(4 * i, 100 + i);
        }
        Files.write(file, b.array());
        final int[] got = readEveryOtherInt(file, Map.of(), new AtomicInteger(), 2, 50);
        assertArrayEquals(new int[] {104, 106, 108, 110, 112, 114, 116, 118, 120}, got);
    }

    @Test
    void hintsReportDefaultsAndRefuseBadValues() {
        assertEquals("automatic", Hints.DEFAULT.asMap().get("romio_ds_read"));
        assertEquals("automatic", Hints.DEFAULT.asMap().get("romio_ds_write"));
        assertEquals("524288", Hints.DEFAULT.asMap().get("ind_wr_buffer_size"));
        assertThrows(ParioException.class, () -> Hints.of(Map.of("romio_ds_write", "sometimes")));
        assertThrows(ParioException.class, () -> Hints.of(Map.of("ind_wr_buffer_size", "0")));
        assertEquals("4194304", Hints.DEFAULT.asMap().get("ind_rd_buffer_size"));
        assertEquals("x", Hints.of(Map.of("some_future_hint", "x")).asMap().get("some_future_hint"));
        assertThrows(ParioException.class, () -> Hints.of(Map.of("romio_ds_read", "maybe")));
        assertThrows(ParioException.class, () -> Hints.of(Map.of("ind_rd_buffer_size", "-5")));
        assertThrows(ParioException.class, () -> Hints.of(Map.of("ind_rd_buffer_size", "lots")));
    }

    @Test
    void theDocsExampleWritesFourBlocks() throws Exception {
        final Path file = dir.resolve("array.bin");
        LocalCluster.run(4, comm -> {
            final int r = comm.rank();
            final Datatype block = Datatype.subarray(new long[] {8, 8}, new long[] {4, 4},
                new long[] {r / 2 * 4, r % 2 * 4}, Order.C, Datatype.INT);
            final int[] local = new int[16];
            Arrays.fill(local, r);
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.CREATE, Mode.RDWR))) {
                f.setView(0, Datatype.INT, block, DataRepresentation.NATIVE);
                f.writeAll(local, local.length, Datatype.INT);
            }
        });
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 8; i++) {
            for (int j = 0; j < 8; j++) {
                assertEquals(i / 4 * 2 + j / 4, b.getInt(4 * (i * 8 + j)), "element " + i + "," + j);
            }
        }
    }

    /**
     * Writes rank r's ints at ints r, r + n, r + 2n, ... of a file that already holds sentinels, every rank
     * independently and at once; returns {reads, writes, locks} of rank 0's storage.
     */
    private int[] interleavedIndependentWrites(final Path file, final int ranks, final int perRank,
                                               final Map<String, String> hints, final Set<Mode> modes) {
        final int[][] calls = new int[1][];
        LocalCluster.run(ranks, comm -> {
            final int r = comm.rank();
            final Counting[] counting = new Counting[1];
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), modes, Hints.of(hints),
                s -> counting[0] = new Counting(s))) {
                f.setView(4L * r, Datatype.INT, Datatype.resized(Datatype.INT, 0, 4L * ranks),
                    DataRepresentation.NATIVE);
                final int[] mine = new int[perRank];
                Arrays.setAll(mine, k -> (r + 1) * 1_000_000 + k);
                comm.barrier();
                f.write(mine, perRank, Datatype.INT);
                if (r == 0) {
                    calls[0] = new int[] {counting[0].reads.get(), counting[0].writes.get(), counting[0].locks.get()};
                }
            }
        });
        return calls[0];
    }

    private void assertInterleaved(final Path file, final int ranks, final int perRank, final int sentinels)
        throws IOException {
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(Math.max(4L * ranks * perRank, 4L * sentinels), b.capacity());
        for (int i = 0; i < ranks * perRank; i++) {
            assertEquals((i % ranks + 1) * 1_000_000 + i / ranks, b.getInt(4 * i), "int " + i);
        }
        for (int i = ranks * perRank; i < sentinels; i++) {
            assertEquals(-7, b.getInt(4 * i), "sentinel " + i + " beyond the written range");
        }
    }

    private static void sentinels(final Path file, final int ints) throws IOException {
        final ByteBuffer b = ByteBuffer.allocate(4 * ints).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < ints; i++) {
            b.putInt(4 * i, -7);
        }
        Files.write(file, b.array());
    }

    @Test
    void interleavedSievedWritesFromFiveRanksLoseNoByte() throws Exception {
        final Path file = dir.resolve("interleaved.bin");
        sentinels(file, 5 * 20_000 + 1000);
        final int[] calls = interleavedIndependentWrites(file, 5, 20_000, Map.of("ind_wr_buffer_size", "4096"),
            EnumSet.of(Mode.RDWR));
        assertInterleaved(file, 5, 20_000, 5 * 20_000 + 1000);
        // 20 000 ints 20 bytes apart span 400 000 bytes: about 98 windows of 4096 bytes, each read once, written once
        assertEquals(calls[0], calls[1], "one read per written window");
        assertEquals(calls[1], calls[2], "every write under a lock");
        assertEquals(98, calls[1], 1);
    }

    @Test
    void sievedWritesWorkOnAWriteOnlyFileAndGrowANewOne() throws Exception {
        final Path file = dir.resolve("wronly.bin");
        final int[] calls = interleavedIndependentWrites(file, 3, 5_000, Map.of(),
            EnumSet.of(Mode.WRONLY, Mode.CREATE));
        assertInterleaved(file, 3, 5_000, 0);
        assertEquals(1, calls[1], "one 60 KB window for rank 0's 5000 runs");
    }

    @Test
    void disabledWriteSievingWritesEachRunWithoutLocks() throws Exception {
        final Path file = dir.resolve("nosieve.bin");
        sentinels(file, 3 * 2000 + 10);
        final int[] calls = interleavedIndependentWrites(file, 3, 2000, Map.of("romio_ds_write", "disable"),
            EnumSet.of(Mode.RDWR));
        assertInterleaved(file, 3, 2000, 3 * 2000 + 10);
        assertArrayEquals(new int[] {0, 2000, 0}, calls);
    }

    @Test
    void atomicModeKeepsOverlappingWritesWhole() throws Exception {
        final Path file = dir.resolve("atomic.bin");
        final int ints = 3 << 20; // 12 MiB per write: several packing chunks, so without the lock writes could mix
        LocalCluster.run(3, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDWR, Mode.CREATE))) {
                f.setAtomicity(true);
                assertEquals(true, f.atomicity());
                final int[] mine = new int[ints];
                Arrays.fill(mine, comm.rank() + 1);
                f.writeAt(0, mine, ints, Datatype.INT);
                comm.barrier();
                final int[] back = new int[ints];
                f.readAt(0, back, ints, Datatype.INT);
                for (int i = 1; i < ints; i++) {
                    if (back[i] != back[0]) {
                        throw new AssertionError("int " + i + " is from rank " + (back[i] - 1) + ", int 0 from rank "
                            + (back[0] - 1));
                    }
                }
            }
        });
    }

    @Test
    void ranksMustAgreeOnAtomicity() {
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, dir.resolve("a.bin").toString(),
                EnumSet.of(Mode.RDWR, Mode.CREATE))) {
                f.setAtomicity(comm.rank() == 0);
            }
        }));
        assertTrue(e.getMessage().contains("same value"), e.getMessage());
    }
}
