package org.pario.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import com.sun.nio.file.ExtendedOpenOption;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ParioException;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
import org.pario.datatypes.Order;
import org.pario.io.storage.DiskDirectory;
import org.pario.io.storage.LocalStorage;

/**
 * The {@code direct_write} and {@code direct_read} hints: the aligned middle of each access bypasses the page cache,
 * the unaligned head and tail do not, and no byte is lost or misplaced either way. The files live under the build
 * directory, on the disk the project is checked out on, because a temporary directory may be tmpfs, which refuses
 * {@code O_DIRECT}; the tests check that direct I/O really is in effect there.
 */
@Timeout(60)
class DirectIoTest {
    private static final Set<StandardOpenOption> CREATE_RW = Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    private Path dir;

    @BeforeEach
    void makeDirectory() throws IOException {
        dir = DiskDirectory.create("t");
    }

    @AfterEach
    void removeDirectory() throws IOException {
        DiskDirectory.delete(dir);
    }

    private static LocalStorage directStorage(final Path file) throws IOException {
        final LocalStorage s = new LocalStorage(file, CREATE_RW, new LocalStorage.DirectIo(true, true));
        assertEquals(Map.of("direct_read", "true", "direct_write", "true"), s.settingsInEffect(),
            "the file system under " + file.toAbsolutePath() + " refuses O_DIRECT, so this test cannot check it");
        return s;
    }

    @Test
    void unalignedAccessesOfEverySizeReadBackWhatWasWritten() throws IOException {
        final Path file = dir.resolve("mixed.bin");
        final byte[] expected = new byte[3 << 20];
        final Random random = new Random(7);
        try (LocalStorage s = directStorage(file)) {
            // heads, tails and middles of every shape: shorter than a block, straddling blocks, aligned, many MiB
            final long[][] accesses = {{0, 100}, {4000, 200}, {4096, 4096}, {5000, 70000}, {8192, 12 << 17},
                {1 << 20, 2 << 20}, {(3 << 20) - 5000, 5000}, {12345, 1 << 20}, {100, 9000000 % (3 << 20) - 100}};
            for (final long[] a : accesses) {
                final byte[] data = new byte[(int) a[1]];
                random.nextBytes(data);
                System.arraycopy(data, 0, expected, (int) a[0], data.length);
                // a buffer that does not start at index 0 of its array, as the pack buffers' slices do
                final ByteBuffer src = ByteBuffer.allocate(data.length + 3).position(3).slice().put(data).flip();
                s.write(a[0], src);
                assertEquals(0, src.remaining(), "a write consumes its whole buffer");
            }
            assertArrayEquals(expected, Files.readAllBytes(file), "what the page cache sees");
            for (final long[] a : accesses) {
                final ByteBuffer dst = ByteBuffer.allocate((int) a[1]);
                assertEquals(a[1], s.read(a[0], dst));
                assertArrayEquals(Arrays.copyOfRange(expected, (int) a[0], (int) (a[0] + a[1])), dst.array());
            }
            // past the end of the file a direct read stops at the end, as a buffered one does
            final ByteBuffer over = ByteBuffer.allocate(1 << 20);
            assertEquals(4096 + 10, s.read(expected.length - 4096 - 10, over));
            assertArrayEquals(Arrays.copyOfRange(expected, expected.length - 4096 - 10, expected.length),
                Arrays.copyOf(over.array(), 4096 + 10));
            assertEquals(0, s.read(expected.length + 8192, ByteBuffer.allocate(1 << 20)));
            // a file that ends mid-block: the direct read from an aligned offset stops there
            s.write(expected.length, ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5}));
            final ByteBuffer acrossTheEnd = ByteBuffer.allocate(1 << 20);
            assertEquals(4096 + 5, s.read(expected.length - 4096, acrossTheEnd));
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, Arrays.copyOfRange(acrossTheEnd.array(), 4096, 4096 + 5));
        }
    }

    @Test
    void directIoIsReportedAsTheFileSystemAllowsItAndDataIsRightEitherWay() throws IOException {
        // tmpfs refuses O_DIRECT before Linux 6.6 and takes it since; the report must follow what the system does
        final Path shm = Path.of("/dev/shm");
        final Path file = Files.createTempFile(Files.isDirectory(shm) ? shm : dir, "pario-direct", ".bin");
        boolean allowed;
        try (FileChannel probe = FileChannel.open(file, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT)) {
            allowed = true;
        } catch (IOException | UnsupportedOperationException e) {
            allowed = false;
        }
        try (LocalStorage s = new LocalStorage(file, CREATE_RW, new LocalStorage.DirectIo(false, true))) {
            assertEquals(Map.of("direct_read", "false", "direct_write", Boolean.toString(allowed)),
                s.settingsInEffect());
            final byte[] data = new byte[1 << 20];
            new Random(3).nextBytes(data);
            s.write(100, ByteBuffer.wrap(data));
            final ByteBuffer back = ByteBuffer.allocate(data.length);
            assertEquals(data.length, s.read(100, back));
            assertArrayEquals(data, back.array());
        } finally {
            Files.delete(file);
        }
    }

    @Test
    void hintsTakeTheirValuesAndReportWhatIsInEffect() throws IOException {
        final ParioException e = assertThrows(ParioException.class, () -> Hints.of(Map.of("direct_write", "yes")));
        assertEquals("hint direct_write must be automatic, true or false, got 'yes'", e.getMessage());
        final ParioException r = assertThrows(ParioException.class, () -> Hints.of(Map.of("direct_read",
            "sometimes")));
        assertEquals("hint direct_read must be automatic, true or false, got 'sometimes'", r.getMessage());
        for (final String key : new String[] {"pario_direct_write_threshold", "pario_direct_read_threshold"}) {
            final ParioException t = assertThrows(ParioException.class, () -> Hints.of(Map.of(key, "-1")));
            assertEquals("hint " + key + " must be >= 0, got -1", t.getMessage());
        }
        assertEquals("automatic", Hints.DEFAULT.asMap().get("direct_read"));
        assertEquals("automatic", Hints.DEFAULT.asMap().get("direct_write"));
        assertEquals("1048576", Hints.DEFAULT.asMap().get("pario_direct_write_threshold"));
        assertEquals("1048576", Hints.DEFAULT.asMap().get("pario_direct_read_threshold"));
        final Path file = dir.resolve("hints.bin");
        for (final String[] asked : new String[][] {{"TRUE", "true"}, {"Automatic", "automatic"}, {"false", "false"}}) {
            Files.deleteIfExists(file);
            LocalCluster.run(2, comm -> {
                try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.CREATE, Mode.RDWR),
                    Hints.of(Map.of("direct_write", asked[0], "direct_read", asked[0])))) {
                    assertEquals(asked[1], f.hints().asMap().get("direct_write"));
                    assertEquals(asked[1], f.hints().asMap().get("direct_read"));
                }
            });
        }
        // the default, on a disk that takes O_DIRECT
        Files.deleteIfExists(file);
        LocalCluster.run(2, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.CREATE, Mode.RDWR))) {
                assertEquals("automatic", f.hints().asMap().get("direct_write"));
                assertEquals("automatic", f.hints().asMap().get("direct_read"));
            }
        });
    }

    @Test
    void sievedWritesToAWriteOnlyFileReadTheirWindowsDirectlyAndKeepTheHoles() throws IOException {
        final Path file = dir.resolve("sieved.bin");
        final byte[] old = new byte[3 << 20];
        Arrays.fill(old, (byte) 0x55);
        Files.write(file, old);
        final int ranks = 2;
        LocalCluster.run(ranks, comm -> {
            final int r = comm.rank();
            // 1 KiB of each 4 KiB to each rank: the two 2 KiB holes between keep the old bytes
            final Datatype tile = Datatype.resized(Datatype.hindexed(new long[] {1024}, new long[] {1024L * r},
                Datatype.BYTE), 0, 4096);
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.WRONLY),
                Hints.of(Map.of("direct_write", "true", "direct_read", "true", "romio_cb_write", "disable")))) {
                f.setView(0, Datatype.BYTE, tile, DataRepresentation.NATIVE);
                final byte[] mine = new byte[(3 << 20) / 4];
                Arrays.fill(mine, (byte) (r + 1));
                f.writeAll(mine, mine.length, Datatype.BYTE);
            }
        });
        final byte[] got = Files.readAllBytes(file);
        for (int i = 0; i < got.length; i++) {
            final int slot = (i % 4096) / 1024;
            final byte expected = slot < ranks ? (byte) (slot + 1) : (byte) 0x55;
            if (got[i] != expected) {
                assertEquals(expected, got[i], "byte " + i);
            }
        }
    }

    @Test
    void withDirectWritesAutomaticModeAggregatesRunsThatWouldBeSieved() throws IOException {
        // 2 KiB runs, every other one each rank's: written independently (sieved) through the page cache, through
        // the one aggregator (rank 0) with direct writes, automatic (the default) or always
        for (final String direct : new String[] {"false", "true", "automatic"}) {
            final Path file = dir.resolve("automatic-" + direct + ".bin");
            final int[] rankOneWrites = new int[1];
            LocalCluster.run(2, comm -> {
                final int r = comm.rank();
                final Datatype tile = everyOther2KiB(r);
                final SievingTest.Counting[] counting = new SievingTest.Counting[1];
                try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.CREATE, Mode.RDWR),
                    Hints.of(Map.of("direct_write", direct)),
                    s -> counting[0] = new SievingTest.Counting(s))) {
                    assertEquals(direct, f.hints().asMap().get("direct_write"));
                    f.setView(0, Datatype.BYTE, tile, DataRepresentation.NATIVE);
                    final byte[] mine = new byte[2 << 20];
                    Arrays.fill(mine, (byte) (r + 1));
                    f.writeAll(mine, mine.length, Datatype.BYTE);
                    if (r == 1) {
                        rankOneWrites[0] = counting[0].writes.get();
                    }
                }
            });
            assertAggregatedUnlessBuffered(direct, rankOneWrites[0], "writes");
            final byte[] got = Files.readAllBytes(file);
            assertEquals(4 << 20, got.length);
            for (int i = 0; i < got.length; i += 512) {
                assertEquals((byte) ((i % 4096) / 2048 + 1), got[i], "byte " + i);
            }
        }
    }

    @Test
    void withDirectReadsAutomaticModeAggregatesRunsThatWouldBeSieved() throws IOException {
        // 2 KiB runs, every other one each rank's: read independently (sieved) through the page cache, by the one
        // aggregator (rank 0) with direct reads, automatic (the default) or always
        final Path file = dir.resolve("read-runs.bin");
        final byte[] data = new byte[4 << 20];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i / 2048 * 7 + i % 251);
        }
        Files.write(file, data);
        for (final String direct : new String[] {"false", "true", "automatic"}) {
            final int[] rankOneReads = new int[1];
            LocalCluster.run(2, comm -> {
                final int r = comm.rank();
                final Datatype tile = everyOther2KiB(r);
                final SievingTest.Counting[] counting = new SievingTest.Counting[1];
                try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDONLY),
                    Hints.of(Map.of("direct_read", direct)), s -> counting[0] = new SievingTest.Counting(s))) {
                    assertEquals(direct, f.hints().asMap().get("direct_read"));
                    f.setView(0, Datatype.BYTE, tile, DataRepresentation.NATIVE);
                    final byte[] mine = new byte[2 << 20];
                    assertEquals(mine.length, f.readAll(mine, mine.length, Datatype.BYTE).bytes());
                    for (int i = 0; i < mine.length; i++) {
                        final int at = i / 2048 * 4096 + 2048 * r + i % 2048;
                        if (mine[i] != data[at]) {
                            assertEquals(data[at], mine[i], "rank " + r + ", file byte " + at + " (" + direct + ")");
                        }
                    }
                    if (r == 1) {
                        rankOneReads[0] = counting[0].reads.get();
                    }
                }
            });
            assertAggregatedUnlessBuffered(direct, rankOneReads[0], "reads");
        }
    }

    /** @return a filetype giving rank {@code r} of 2 the {@code r}-th 2 KiB of every 4 KiB */
    private static Datatype everyOther2KiB(final int r) {
        return Datatype.resized(Datatype.hindexed(new long[] {2048}, new long[] {2048L * r}, Datatype.BYTE), 0, 4096);
    }

    /**
     * Rank 1's storage calls: none when direct I/O is in effect (the one aggregator, rank 0, makes them), some when
     * everything goes through the page cache (rank 1 accesses its own runs).
     */
    private static void assertAggregatedUnlessBuffered(final String direct, final int rankOneCalls, final String what) {
        if (!direct.equals("false")) {
            assertEquals(0, rankOneCalls, "with direct " + what + " the aggregator " + what + " rank 1's runs");
        } else {
            assertTrue(rankOneCalls > 0, "through the page cache rank 1 " + what + " its own runs");
        }
    }

    @Test
    void collectiveAndIndependentWritesOfAnInterleavedViewLandByteForByte() throws IOException {
        final Path file = dir.resolve("cyclic.bin");
        final int ranks = 3;
        final long n = 3 * (1 << 17) + 5; // not a whole number of blocks: the file's tail is unaligned
        final Map<String, String> hints = Map.of("direct_write", "true", "direct_read", "true", "cb_buffer_size",
            "1048576", "cb_config_list", "*:2");
        for (final String cb : new String[] {"enable", "disable"}) {
            Files.deleteIfExists(file);
            LocalCluster.run(ranks, comm -> {
                final int r = comm.rank();
                final Datatype cyclic = Datatype.darray(ranks, r, new long[] {n}, new Distribution[] {
                    Distribution.CYCLIC}, new long[] {64}, new long[] {ranks}, Order.C, Datatype.DOUBLE);
                final Map<String, String> h = new java.util.HashMap<>(hints);
                h.put("romio_cb_write", cb);
                h.put("romio_cb_read", cb);
                try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.CREATE, Mode.RDWR),
                    Hints.of(h))) {
                    f.setView(0, Datatype.DOUBLE, cyclic, DataRepresentation.NATIVE);
                    final double[] mine = new double[(int) (cyclic.size() / 8)];
                    final org.pario.datatypes.Cursor c = cyclic.cursor(1);
                    int k = 0;
                    while (c.next()) {
                        for (long b = 0; b < c.length(); b += 8) {
                            mine[k++] = (c.offset() + b) / 8;
                        }
                    }
                    f.writeAll(mine, mine.length, Datatype.DOUBLE);
                    final double[] back = new double[mine.length];
                    f.seek(0);
                    f.readAll(back, back.length, Datatype.DOUBLE);
                    assertArrayEquals(mine, back, "rank " + r + " reads back what it wrote (" + cb + ")");
                }
            });
            final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(8 * n, b.capacity());
            for (int i = 0; i < n; i++) {
                assertEquals(i, b.getDouble(8 * i), 0.0, "double " + i + " (romio_cb_write=" + cb + ")");
            }
        }
    }
}
