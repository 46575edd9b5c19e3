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
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
import org.pario.datatypes.Order;
import org.pario.io.storage.Storage;

/** Two-phase collective I/O: aggregator choice, hints in effect, failures, overlapping writes, storage calls. */
@Timeout(120)
class TwoPhaseTest {
    private static final EnumSet<Mode> CREATE_RW = EnumSet.of(Mode.CREATE, Mode.RDWR);

    @TempDir
    Path dir;

    /** A storage whose writes number {@code first} to {@code last} (from 1) fail, and which counts its calls. */
    static final class Faulty extends SievingTest.Counting {
        private final int first;
        private final int last;
        private final AtomicInteger attempts = new AtomicInteger();

        Faulty(final Storage inner, final int first) {
            this(inner, first, Integer.MAX_VALUE);
        }

        Faulty(final Storage inner, final int first, final int last) {
            super(inner);
            this.first = first;
            this.last = last;
        }

        @Override
        public void write(final long position, final ByteBuffer src) throws IOException {
            final int number = attempts.incrementAndGet();
            if (number >= first && number <= last) {
                throw new IOException("injected: the disk is full");
            }
            super.write(position, src);
        }
    }

    private static Datatype cyclic(final int ranks, final int r, final long n) {
        return Datatype.darray(ranks, r, new long[] {n}, new Distribution[] {Distribution.CYCLIC},
            new long[] {Datatype.DISTRIBUTE_DFLT_DARG}, new long[] {ranks}, Order.C, Datatype.DOUBLE);
    }

    /**
     * One collective call of more than 2 GiB per rank, through two aggregators: each of 2 ranks writes 2.25 GiB in
     * 4 KiB runs interleaved with the other's (a 4.5 GiB file), from an array of 1000003 longs read 302 times over
     * (an {@code hvector} of stride 0, so little memory is needed; the array's length is no multiple of the run, so
     * data placed a run off would not compare equal), then reads it back piece by piece and compares every value.
     */
    @Test
    @Timeout(300)
    void aCallOfMoreThanTwoGibPerRankThroughAggregators() throws Exception {
        final Path file = dir.resolve("huge.bin");
        final int piece = 1_000_003;
        final int pieces = 302;
        final long perRank = 8L * piece * pieces;
        assertTrue(perRank > Integer.MAX_VALUE);
        LocalCluster.run(2, comm -> {
            final int r = comm.rank();
            final long[] data = new long[piece];
            Arrays.setAll(data, k -> (long) r << 40 | k);
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW,
                Hints.of(Map.of("romio_cb_write", "enable", "romio_cb_read", "enable", "cb_config_list", "*:2")))) {
                // enough runs for all of it: past its filetype a view would tile it again, over the other rank's runs
                final long runs = (perRank + 4095) / 4096;
                f.setView(4096L * r, Datatype.LONG, Datatype.vector(runs, 512, 1024, Datatype.LONG),
                    DataRepresentation.NATIVE);
                assertEquals(perRank, f.writeAtAll(0, data, 1, Datatype.hvector(pieces, piece, 0, Datatype.LONG))
                    .bytes());
                final long[] back = new long[piece];
                for (int p = 0; p < pieces; p++) {
                    Arrays.fill(back, -1);
                    assertEquals(8L * piece, f.readAtAll((long) p * piece, back, piece, Datatype.LONG).bytes());
                    assertArrayEquals(data, back, "rank " + r + ", piece " + p);
                }
            }
        });
        // rank 1's last run, shorter than 4 KiB, ends the file
        final long runs = (perRank + 4095) / 4096;
        assertEquals(4096 + 8192 * (runs - 1) + perRank - 4096 * (runs - 1), Files.size(file));
    }

    @Test
    void aCyclicDarrayGoesToStorageAsFewLargeWrites() throws Exception {
        final Path file = dir.resolve("cyclic.bin");
        final int ranks = 4;
        final long n = 1 << 18; // 2 MiB of doubles in 8-byte runs
        final int[] calls = new int[ranks];
        LocalCluster.run(ranks, comm -> {
            final int r = comm.rank();
            final SievingTest.Counting[] counting = new SievingTest.Counting[1];
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW,
                Hints.of(Map.of("cb_buffer_size", "262144", "cb_config_list", "*:2")),
                s -> counting[0] = new SievingTest.Counting(s))) {
                assertEquals("2", f.hints().asMap().get("cb_nodes"), "cb_nodes reports the aggregators in effect");
                assertEquals("0,1", f.hints().asMap().get("pario_cb_aggregators"));
                f.setView(0, Datatype.DOUBLE, cyclic(ranks, r, n), DataRepresentation.NATIVE);
                final double[] mine = new double[(int) (n / ranks)];
                Arrays.setAll(mine, k -> (double) (k * ranks + r));
                f.writeAll(mine, mine.length, Datatype.DOUBLE);
                calls[r] = counting[0].writes.get();
                final double[] back = new double[mine.length];
                f.seek(0);
                assertEquals(8L * mine.length, f.readAll(back, back.length, Datatype.DOUBLE).bytes());
                assertArrayEquals(mine, back);
            }
        });
        // 2 MiB over 2 aggregators in 256 KiB windows: 4 writes each, none by the others
        assertArrayEquals(new int[] {4, 4, 0, 0}, calls);
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            assertEquals(i, b.getDouble(8 * i), 0.0, "double " + i);
        }
    }

    @Test
    void aStorageErrorOnOneAggregatorFailsTheCallOnEveryRank() {
        final Path file = dir.resolve("faulty.bin");
        final int ranks = 3;
        final long started = System.nanoTime();
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(ranks, comm -> {
            final int r = comm.rank();
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW,
                Hints.of(Map.of("cb_buffer_size", "4096", "cb_config_list", "*:*")),
                s -> r == 1 ? new Faulty(s, 3) : s)) {
                f.setView(0, Datatype.DOUBLE, cyclic(ranks, r, 3 * 20_000), DataRepresentation.NATIVE);
                final double[] mine = new double[20_000];
                try {
                    f.writeAll(mine, mine.length, Datatype.DOUBLE);
                } catch (ParioException x) {
                    assertTrue(x.getMessage().startsWith("rank 1: collective storage access failed"), x.getMessage());
                    assertTrue(x.getMessage().contains("injected: the disk is full"), x.getMessage());
                    assertEquals(ErrorCategory.IO, x.category());
                    throw x;
                }
            }
        }));
        assertEquals(ranks - 1, e.getSuppressed().length, "every rank failed");
        assertTrue(System.nanoTime() - started < 30_000_000_000L);
    }

    /** A storage whose reads number {@code first} to {@code last} (from 1) fail, and which counts its calls. */
    static final class FaultyReads extends SievingTest.Counting {
        private final int first;
        private final int last;

        FaultyReads(final Storage inner, final int first, final int last) {
            super(inner);
            this.first = first;
            this.last = last;
        }

        @Override
        public long read(final long position, final ByteBuffer dst) throws IOException {
            // counted by the superclass, which reads only where this does not fail
            final int number = reads.get() + 1;
            if (number >= first && number <= last) {
                reads.incrementAndGet();
                throw new IOException("injected: a bad sector");
            }
            return super.read(position, dst);
        }
    }

    /**
     * A read agrees on its outcome every {@link ReadRounds#AGREE_EVERY_ROUNDS} rounds, not every round: a storage
     * error in an aggregator's third window of 40 still fails the call on every rank with that aggregator's error,
     * that aggregator reads no further window, the others none past the agreement, and the next call on the same
     * file gets its own pieces, every rank having taken in those sent after the failure.
     */
    @Test
    void aReadThatFailsMidCallFailsEveryRankAndLeavesNothingInFlight() throws Exception {
        final Path file = dir.resolve("badsector.bin");
        final int ranks = 3;
        final int each = 20_000;
        final ByteBuffer content = ByteBuffer.allocate(8 * ranks * each).order(ByteOrder.nativeOrder());
        for (int i = 0; i < ranks * each; i++) {
            content.putDouble(8 * i, i);
        }
        Files.write(file, content.array());
        final int[] reads = new int[ranks];
        LocalCluster.run(ranks, comm -> {
            final int r = comm.rank();
            final SievingTest.Counting[] counting = new SievingTest.Counting[1];
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDONLY),
                Hints.of(Map.of("cb_buffer_size", "4096", "cb_config_list", "*:*", "romio_cb_read", "enable")),
                s -> counting[0] = r == 1 ? new FaultyReads(s, 3, 3) : new SievingTest.Counting(s))) {
                f.setView(0, Datatype.DOUBLE, cyclic(ranks, r, (long) ranks * each), DataRepresentation.NATIVE);
                final double[] mine = new double[each];
                final ParioException x = assertThrows(ParioException.class,
                    () -> f.readAtAll(0, mine, mine.length, Datatype.DOUBLE));
                assertTrue(x.getMessage().startsWith("rank 1: collective storage access failed"), x.getMessage());
                assertTrue(x.getMessage().contains("injected: a bad sector"), x.getMessage());
                assertEquals(ErrorCategory.IO, x.category());
                reads[r] = counting[0].reads.get();
                final double[] back = new double[each];
                assertEquals(8L * each, f.readAtAll(0, back, back.length, Datatype.DOUBLE).bytes());
                for (int k = 0; k < each; k++) {
                    assertEquals(k * ranks + r, back[k], 0.0, "rank " + r + ", element " + k);
                }
            }
        });
        // 480,000 bytes over 3 aggregators in 4 KiB windows: about 40 rounds each; the failing one stops at its
        // third, the others at the agreement after round 16, having read ahead the window of round 17
        final int agreed = (int) ReadRounds.AGREE_EVERY_ROUNDS + 1;
        assertArrayEquals(new int[] {agreed, 3, agreed}, reads, "storage reads per aggregator before the failure");
    }

    @Test
    void aWriteThatFailsMidCallLeavesNothingInFlightForTheNextCall() throws Exception {
        // rounds are pipelined: when round 2's agreement fails, round 3's pieces are already on their way to the
        // aggregators; the next call on the same file must receive its own pieces, not those
        final Path file = dir.resolve("again.bin");
        final int ranks = 3;
        final int each = 20_000;
        LocalCluster.run(ranks, comm -> {
            final int r = comm.rank();
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW,
                Hints.of(Map.of("cb_buffer_size", "4096", "cb_config_list", "*:*")),
                s -> r == 1 ? new Faulty(s, 3, 3) : s)) {
                f.setView(0, Datatype.DOUBLE, cyclic(ranks, r, (long) ranks * each), DataRepresentation.NATIVE);
                final double[] first = new double[each];
                Arrays.fill(first, -1);
                final ParioException x = assertThrows(ParioException.class,
                    () -> f.writeAtAll(0, first, first.length, Datatype.DOUBLE));
                assertTrue(x.getMessage().contains("injected: the disk is full"), x.getMessage());
                final double[] second = new double[each];
                Arrays.setAll(second, k -> (double) (k * ranks + r));
                f.writeAtAll(0, second, second.length, Datatype.DOUBLE);
                final double[] back = new double[each];
                f.readAtAll(0, back, back.length, Datatype.DOUBLE);
                assertArrayEquals(second, back);
            }
        });
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(8L * ranks * each, b.capacity());
        for (int i = 0; i < ranks * each; i++) {
            assertEquals(i, b.getDouble(8 * i), 0.0, "double " + i);
        }
    }

    /**
     * Ranks whose views are one darray but for the rank send one text for all; views that only look so (a darray
     * of another rank than the caller's, another displacement on one rank) are sent rank by rank. Each writes and
     * reads where its own view says.
     */
    @Test
    void darrayViewsOfEveryRankAndLookalikesLandWhereTheirViewsSay() throws Exception {
        final int ranks = 3;
        final long n = 3 * 40_000;
        for (final String variant : new String[] {"same", "shifted-rank", "one-displaced"}) {
            final Path file = dir.resolve(variant + ".bin");
            LocalCluster.run(ranks, comm -> {
                final int r = comm.rank();
                final int darrayRank = variant.equals("shifted-rank") ? (r + 1) % ranks : r;
                final long disp = variant.equals("one-displaced") && r == 2 ? 8L * n : 0;
                try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW,
                    Hints.of(Map.of("romio_cb_write", "enable", "romio_cb_read", "enable", "cb_buffer_size",
                        "65536")))) {
                    f.setView(disp, Datatype.DOUBLE, cyclic(ranks, darrayRank, n), DataRepresentation.NATIVE);
                    assertEquals(variant.equals("same"), f.viewsFromOneText(), variant);
                    final double[] mine = new double[(int) (n / ranks)];
                    Arrays.setAll(mine, k -> (double) (k * ranks + darrayRank) + (disp > 0 ? 0.5 : 0));
                    f.writeAll(mine, mine.length, Datatype.DOUBLE);
                    final double[] back = new double[mine.length];
                    f.seek(0);
                    f.readAll(back, back.length, Datatype.DOUBLE);
                    assertArrayEquals(mine, back, variant + ", rank " + r);
                }
            });
            final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < n; i++) {
                final boolean displaced = variant.equals("one-displaced") && i % ranks == 2;
                assertEquals(displaced ? 0 : i, b.getDouble(8 * i), 0.0, variant + ": double " + i);
                if (displaced) {
                    assertEquals(i + 0.5, b.getDouble((int) (8 * (n + i))), 0.0, variant + ": displaced double " + i);
                }
            }
        }
    }

    /**
     * Pieces leave from a rank's memory and land in it straight where the memory is the stream itself (an array from
     * an element in, a direct buffer), and are packed and unpacked where it is not (every other double of an array,
     * {@code external32}): a CYCLIC(1) darray on 4 ranks (one of them holding one double fewer), through two
     * aggregators in rounds of 64 KiB, lands where its view says and reads back, and the bytes of memory around the
     * stream keep their values.
     */
    @Test
    void piecesMoveStraightFromAndIntoMemoryThatIsTheStreamAndPackedOtherwise() throws Exception {
        final int ranks = 4;
        final long n = 4 * 20_000 - 1;
        final Map<String, String> hints = Map.of("romio_cb_write", "enable", "romio_cb_read", "enable",
            "cb_buffer_size", "65536", "cb_nodes", "2");
        for (final String variant : new String[] {"array-at", "direct", "strided", "external32"}) {
            final Path file = dir.resolve(variant + ".bin");
            LocalCluster.run(ranks, comm -> {
                final int r = comm.rank();
                final Datatype view = cyclic(ranks, r, n);
                final int count = (int) (view.size() / 8);
                final DataRepresentation rep = variant.equals("external32") ? DataRepresentation.EXTERNAL32
                    : DataRepresentation.NATIVE;
                try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW, Hints.of(hints))) {
                    f.setView(0, Datatype.DOUBLE, view, rep);
                    final double[] values = new double[count];
                    Arrays.setAll(values, k -> (double) (k * ranks + r));
                    // written and read back through memory of the variant's kind; -1 around the stream
                    final Object[] memories = new Object[2];
                    for (int side = 0; side < 2; side++) {
                        switch (variant) {
                            case "direct" -> {
                                final ByteBuffer b = ByteBuffer.allocateDirect(8 * (count + 2))
                                    .order(ByteOrder.nativeOrder());
                                for (int k = 0; k < count + 2; k++) {
                                    b.putDouble(8 * k, side == 0 && k > 0 && k <= count ? values[k - 1] : -1);
                                }
                                memories[side] = org.pario.datatypes.Memory.of(b).at(8);
                            }
                            case "strided" -> {
                                final double[] a = new double[2 * count];
                                Arrays.fill(a, -1);
                                for (int k = 0; side == 0 && k < count; k++) {
                                    a[2 * k] = values[k];
                                }
                                memories[side] = a;
                            }
                            default -> {
                                final double[] a = new double[count + 3];
                                Arrays.fill(a, -1);
                                if (side == 0) {
                                    System.arraycopy(values, 0, a, 2, count);
                                }
                                memories[side] = org.pario.datatypes.Memory.of(a).at(16);
                            }
                        }
                    }
                    final boolean strided = variant.equals("strided");
                    final Datatype type = strided ? Datatype.vector(count, 1, 2, Datatype.DOUBLE) : Datatype.DOUBLE;
                    final long items = strided ? 1 : count;
                    f.writeAll(memories[0], items, type);
                    f.seek(0);
                    f.readAll(memories[1], items, type);
                    for (int k = 0; k < count; k++) {
                        assertEquals(values[k], doubleAt(variant, memories[1], k), variant + ", rank " + r + ", " + k);
                    }
                    if (strided) {
                        for (int k = 0; k < count; k++) {
                            assertEquals(-1.0, ((double[]) memories[1])[2 * k + 1], "the gap after double " + k);
                        }
                    } else {
                        assertEquals(-1.0, doubleAt(variant, memories[1], -1), variant + ": the double before");
                        assertEquals(-1.0, doubleAt(variant, memories[1], count), variant + ": the double after");
                    }
                }
            });
            final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(variant.equals("external32")
                ? ByteOrder.BIG_ENDIAN : ByteOrder.nativeOrder());
            assertEquals(8 * n, b.capacity(), variant);
            for (int i = 0; i < n; i++) {
                if (b.getDouble(8 * i) != i) {
                    assertEquals(i, b.getDouble(8 * i), 0.0, variant + ": double " + i + " in the file");
                }
            }
        }
    }

    /** Double {@code k} of the stream in one of the memories of the test above; -1 and the count reach around it. */
    private static double doubleAt(final String variant, final Object memory, final int k) {
        if (variant.equals("strided")) {
            return ((double[]) memory)[2 * k];
        }
        final ByteBuffer one = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
        final org.pario.datatypes.Memory m = (org.pario.datatypes.Memory) memory;
        org.pario.datatypes.Memory.copyRuns(m, m.origin() + 8L * k, 0, org.pario.datatypes.Memory.of(one), 0, 0, 8, 1);
        return one.getDouble(0);
    }

    @Test
    void overlappingCollectiveWritesHaveADeterministicWinner() throws Exception {
        final Path file = dir.resolve("overlap.bin");
        for (int attempt = 0; attempt < 3; attempt++) {
            LocalCluster.run(3, comm -> {
                final int r = comm.rank();
                try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW,
                    Hints.of(Map.of("romio_cb_write", "enable", "cb_config_list", "*:*", "cb_buffer_size", "1000")))) {
                    f.setAtomicity(true);
                    // every rank writes 2000 ints from int r*500: ranges overlap pairwise
                    final int[] mine = new int[2000];
                    Arrays.fill(mine, r + 1);
                    f.writeAtAll(r * 500L * 4, mine, mine.length, Datatype.INT);
                }
            });
            final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < 3000; i++) {
                final int winner = Math.min(2, i / 500) + 1;
                assertEquals(winner, b.getInt(4 * i), "int " + i + ": the highest rank writing it wins");
            }
        }
    }

    @Test
    void overlappingWritesKeepTheirWinnerWhereTwoThreadsPlaceOneLargeWindow() throws Exception {
        final Path file = dir.resolve("overlap-large.bin");
        final int each = 600_000;
        final int shift = 250_000;
        for (int attempt = 0; attempt < 2; attempt++) {
            LocalCluster.run(3, comm -> {
                final int r = comm.rank();
                // one aggregator and one round: a 4.4 MB window, placed by two threads split at its middle
                try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW,
                    Hints.of(Map.of("romio_cb_write", "enable", "cb_config_list", "*:1")))) {
                    f.setAtomicity(true);
                    final int[] mine = new int[each];
                    Arrays.fill(mine, r + 1);
                    f.writeAtAll(r * (long) shift * 4, mine, mine.length, Datatype.INT);
                }
            });
            final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(4L * (2 * shift + each), b.capacity());
            for (int i = 0; i < 2 * shift + each; i++) {
                final int at = i;
                assertEquals(Math.min(2, i / shift) + 1, b.getInt(4 * i),
                    () -> "int " + at + ": the highest rank writing it wins");
            }
        }
    }

    @Test
    void blockWrittenOnSixRanksReadsBackAsCyclicOnSixOtherViewsWithSmallRounds() throws Exception {
        final Path file = dir.resolve("redistribute.bin");
        final long[] g = {12, 10};
        final Map<String, String> hints = Map.of("cb_buffer_size", "100", "cb_config_list", "*:*", "cb_nodes", "4");
        LocalCluster.run(6, comm -> {
            final int r = comm.rank();
            final Datatype block = Datatype.darray(6, r, g, new Distribution[] {Distribution.BLOCK,
                Distribution.BLOCK}, new long[] {Datatype.DISTRIBUTE_DFLT_DARG, Datatype.DISTRIBUTE_DFLT_DARG},
                new long[] {2, 3}, Order.C, Datatype.INT);
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW, Hints.of(hints))) {
                f.setView(0, Datatype.INT, block, DataRepresentation.NATIVE);
                final int[] local = new int[(int) (block.size() / 4)];
                // the global index of each local element, found by walking the filetype
                final org.pario.datatypes.Cursor c = block.cursor(1);
                int k = 0;
                while (c.next()) {
                    for (long b = 0; b < c.length(); b += 4) {
                        local[k++] = (int) ((c.offset() + b) / 4);
                    }
                }
                f.writeAll(local, local.length, Datatype.INT);
            }
        });
        final List<int[]> got = LocalCluster.call(6, comm -> {
            final int r = comm.rank();
            final Datatype cyc = Datatype.darray(6, r, g, new Distribution[] {Distribution.CYCLIC,
                Distribution.NONE}, new long[] {1, Datatype.DISTRIBUTE_DFLT_DARG}, new long[] {6, 1}, Order.C,
                Datatype.INT);
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDONLY), Hints.of(hints))) {
                f.setView(0, Datatype.INT, cyc, DataRepresentation.NATIVE);
                final int[] local = new int[(int) (cyc.size() / 4)];
                f.readAll(local, local.length, Datatype.INT);
                return local;
            }
        });
        for (int r = 0; r < 6; r++) {
            // rows r and r + 6, whole
            final int[] expect = new int[20];
            for (int j = 0; j < 10; j++) {
                expect[j] = r * 10 + j;
                expect[10 + j] = (r + 6) * 10 + j;
            }
            assertArrayEquals(expect, got.get(r), "rank " + r);
        }
    }

    @Test
    void progressRisesToTheCallsTotalOnBothPaths() {
        final Path file = dir.resolve("progress.bin");
        for (final String mode : new String[] {"enable", "disable"}) {
            final List<List<long[]>> seen = LocalCluster.call(3, comm -> {
                final List<long[]> updates = new java.util.ArrayList<>();
                try (ParallelFile f = ParallelFile.open(comm, file.toString(), CREATE_RW, Hints.of(Map.of(
                    "romio_cb_write", mode, "cb_buffer_size", "65536", "cb_config_list", "*:*")))) {
                    f.setView(0, Datatype.DOUBLE, cyclic(3, comm.rank(), 3 * 100_000), DataRepresentation.NATIVE);
                    f.setProgress((done, total) -> updates.add(new long[] {done, total}));
                    f.writeAll(new double[100_000], 100_000, Datatype.DOUBLE);
                }
                return updates;
            });
            for (final List<long[]> updates : seen) {
                // two-phase reports every round; independent access every 4 MiB chunk, here a single one
                assertTrue(updates.size() >= (mode.equals("enable") ? 2 : 1), mode + ": got " + updates.size());
                long before = 0;
                for (final long[] u : updates) {
                    assertEquals(2_400_000, u[1], mode + ": the total is every rank's bytes");
                    assertTrue(u[0] >= before && u[0] <= u[1], mode + ": rising within the total");
                    before = u[0];
                }
                assertEquals(2_400_000, before, mode + ": ends at the total");
            }
        }
    }

    @Test
    void collectiveReadsPastTheEndAreAsShortAsIndependentOnes() throws Exception {
        final Path file = dir.resolve("short.bin");
        // 1003 ints: every rank's interleaved view runs past the end at a different point
        final ByteBuffer b = ByteBuffer.allocate(4 * 1003).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 1003; i++) {
            b.putInt(4 * i, i);
        }
        Files.write(file, b.array());
        LocalCluster.run(3, comm -> {
            final int r = comm.rank();
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDONLY),
                Hints.of(Map.of("romio_cb_read", "enable", "cb_config_list", "*:*", "cb_buffer_size", "256")))) {
                f.setView(4L * r, Datatype.INT, Datatype.resized(Datatype.INT, 0, 12), DataRepresentation.NATIVE);
                final int[] collective = new int[400];
                final long got = f.readAtAll(0, collective, 400, Datatype.INT).bytes();
                final int[] independent = new int[400];
                assertEquals(f.readAt(0, independent, 400, Datatype.INT).bytes(), got);
                assertEquals(4L * (r < 1 ? 335 : 334), got, "ints r, r+3, ... below 1003");
                assertArrayEquals(independent, collective);
                for (int k = 0; k < got / 4; k++) {
                    assertEquals(3 * k + r, collective[k]);
                }
            }
        });
    }

    /**
     * {@code auto}, the default count: half a host's ranks, at least one and at most four, the first ranks of the
     * host in rank order; {@code cb_nodes} still caps the total, taking hosts in turn.
     */
    @Test
    void autoPicksHalfOfEachHostsRanksUpToFour() {
        final List<String> hosts = new java.util.ArrayList<>();
        final int[] sizes = {1, 2, 3, 4, 5, 8, 12};
        for (int h = 0; h < sizes.length; h++) {
            for (int k = 0; k < sizes[h]; k++) {
                hosts.add("host" + h);
            }
        }
        final int[] chosen = Aggregators.choose(hosts, Hints.DEFAULT);
        final int[] perHost = new int[sizes.length];
        for (final int r : chosen) {
            perHost[Integer.parseInt(hosts.get(r).substring(4))]++;
        }
        assertArrayEquals(new int[] {1, 1, 1, 2, 2, 4, 4}, perHost);
        // the first ranks of each host: host3's four ranks are 6-9, of which 6 and 7 aggregate
        assertTrue(Arrays.stream(chosen).anyMatch(r -> r == 6) && Arrays.stream(chosen).anyMatch(r -> r == 7)
            && Arrays.stream(chosen).noneMatch(r -> r == 8), Arrays.toString(chosen));
        assertArrayEquals(new int[] {0, 1, 3}, Aggregators.choose(hosts, Hints.of(Map.of("cb_nodes", "3"))));
        // one host of 4 JVM ranks, as pario bench io runs: ranks 0 and 1
        assertArrayEquals(new int[] {0, 1}, Aggregators.choose(List.of("h", "h", "h", "h"), Hints.DEFAULT));
        assertArrayEquals(new int[] {0}, Aggregators.choose(List.of("h", "h", "h", "h"),
            Hints.of(Map.of("cb_config_list", "*:1"))));
    }

    @Test
    void configListGrammarAndBadHints() {
        assertEquals(List.of(new Aggregators.Entry("node1", 2), new Aggregators.Entry("*", -1)),
            Aggregators.parseConfigList("node1:2, *:*"));
        assertEquals(List.of(new Aggregators.Entry("*", 1)), Aggregators.parseConfigList("*"));
        assertEquals(List.of(new Aggregators.Entry("*", Aggregators.AUTO)), Aggregators.parseConfigList("*:AUTO"));
        assertEquals("*:auto", Hints.DEFAULT.get("cb_config_list"));
        assertThrows(ParioException.class, () -> Hints.of(Map.of("cb_config_list", "node1:x")));
        assertThrows(ParioException.class, () -> Hints.of(Map.of("cb_config_list", "node1:-3")));
        assertThrows(ParioException.class, () -> Hints.of(Map.of("cb_nodes", "0")));
        assertThrows(ParioException.class, () -> Hints.of(Map.of("romio_cb_write", "always")));
        assertThrows(ParioException.class, () -> Hints.of(Map.of("cb_buffer_size", "-1")));
        final AtomicInteger checked = new AtomicInteger();
        LocalCluster.run(3, comm -> {
            final Hints h = Hints.of(Map.of("cb_config_list", "elsewhere:4"));
            // a list that names no host of the job falls back to one aggregator
            assertArrayEquals(new int[] {0}, Aggregators.choose(comm, h, "here"));
            assertArrayEquals(new int[] {0, 1}, Aggregators.choose(comm, Hints.of(Map.of("cb_config_list", "*:*",
                "cb_nodes", "2")), "here"));
            // two hosts of 2 ranks and 1: the default, *:auto, picks the first rank of each
            assertArrayEquals(new int[] {0, 1}, Aggregators.choose(comm, Hints.DEFAULT, comm.rank() == 1 ? "b" : "a"));
            checked.incrementAndGet();
        });
        assertEquals(3, checked.get());
    }
}
