package org.pario.io.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.io.Hints;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;

/**
 * Independent reads and writes of Java arrays whose bytes are the access's stream (a contiguous type, no conversion),
 * on a JVM that can hand an array to the kernel (Java 22+ with native access, the multi-release jar's classes: the
 * build's {@code multi-release-jar} run sets {@code pario.expectArrayFiles=true}): the runs that go through the page
 * cache move straight between the file and the array, direct ones and every other access are packed as before.
 * Elsewhere (Java 17, the build directory's classes) nothing moves that way. Either way the file holds exactly the
 * array's values and reads give them back, for arrays of every kind, runs that start inside the array, views with
 * gaps, and reads cut short by the end of the file.
 */
@Timeout(60)
class ArrayAccessTest {
    private static final boolean EXPECTED = Boolean.getBoolean("pario.expectArrayFiles");
    private static final Set<Mode> CREATE_RW = EnumSet.of(Mode.CREATE, Mode.RDWR);
    private static final Map<String, String> PAGE_CACHE = Map.of("direct_write", "false", "direct_read", "false");
    private Path dir;

    @BeforeEach
    void makeDirectory() throws IOException {
        dir = DiskDirectory.create("arrays");
    }

    @AfterEach
    void removeDirectory() throws IOException {
        DiskDirectory.delete(dir);
    }

    private static double[] values(final int seed, final int n) {
        final double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = seed * 1e7 + i + 0.5;
        }
        return a;
    }

    /** The file's bytes as doubles in this machine's byte order. */
    static double[] doublesOf(final Path file) throws IOException {
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.nativeOrder());
        final double[] d = new double[b.remaining() / 8];
        b.asDoubleBuffer().get(d);
        return d;
    }

    /** The file's storage as this rank opened it, for its counters. */
    private static ParallelFile open(final org.pario.comm.Communicator comm, final Path file,
                                     final Map<String, String> hints, final LocalStorage[] storage) {
        return ParallelFile.open(comm, file.toString(), CREATE_RW, Hints.of(hints), s -> {
            storage[0] = (LocalStorage) s;
            return s;
        });
    }

    @Test
    void twoRanksWriteAndReadTheirPartsStraightFromAndIntoTheirArrays() throws IOException {
        final Path file = dir.resolve("parts.bin");
        final int n = 300_001;
        final long[][] moved = LocalCluster.call(2, comm -> {
            final LocalStorage[] s = new LocalStorage[1];
            try (ParallelFile f = open(comm, file, PAGE_CACHE, s)) {
                final int me = comm.rank();
                // rank 1 writes from 3 doubles into its array: the memory's array is still the array itself
                final double[] a = values(me, n + 3);
                final Memory from = me == 0 ? Memory.of(a) : Memory.of(a).at(24);
                f.writeAt(8L * n * me, from, n, Datatype.DOUBLE);
                comm.barrier();
                final double[] back = new double[n + 2];
                final long got = f.readAt(8L * n * (1 - me), Memory.of(back).at(8), n, Datatype.DOUBLE).bytes();
                assertEquals(8L * n, got);
                final double[] other = values(1 - me, n + 3);
                assertEquals(0.0, back[0], "the double before the run");
                assertEquals(0.0, back[n + 1], "the double after the run");
                for (int i = 0; i < n; i++) {
                    if (back[i + 1] != other[i + 3 * (1 - me)]) {
                        assertEquals(other[i + 3 * (1 - me)], back[i + 1], "rank " + (1 - me) + "'s double " + i);
                    }
                }
                return new long[] {s[0].arrayBytesWritten(), s[0].arrayBytesRead()};
            }
        }).toArray(new long[0][]);
        final double[] d = doublesOf(file);
        assertEquals(2 * n, d.length);
        for (int r = 0; r < 2; r++) {
            final double[] v = values(r, n + 3);
            for (int i = 0; i < n; i++) {
                if (d[r * n + i] != v[i + 3 * r]) {
                    assertEquals(v[i + 3 * r], d[r * n + i], "rank " + r + "'s double " + i + " in the file");
                }
            }
            assertEquals(EXPECTED ? 8L * n : 0, moved[r][0], "bytes written from rank " + r + "'s array");
            assertEquals(EXPECTED ? 8L * n : 0, moved[r][1], "bytes read into rank " + r + "'s array");
        }
    }

    /**
     * A view of 4 KiB runs with 4 KiB gaps and sieving off: every run goes straight from the array and back into
     * another; with a strided memory type nothing does, and the file is the same.
     */
    @Test
    void theRunsOfAViewWithGapsMoveStraightAndStridedMemoryIsPacked() throws IOException {
        final int runs = 64;
        final int perRun = 512;
        final Map<String, String> hints = Map.of("direct_write", "false", "direct_read", "false",
            "romio_ds_write", "disable", "romio_ds_read", "disable");
        final Datatype filetype = Datatype.resized(Datatype.contiguous(perRun, Datatype.DOUBLE), 0, 16L * perRun);
        final float[] floats = new float[runs * perRun * 2];
        for (int i = 0; i < floats.length; i++) {
            floats[i] = i * 0.25f;
        }
        for (final boolean strided : new boolean[] {false, true}) {
            final Path file = dir.resolve("gaps-" + strided + ".bin");
            final long[] moved = LocalCluster.call(1, comm -> {
                final LocalStorage[] s = new LocalStorage[1];
                try (ParallelFile f = open(comm, file, hints, s)) {
                    f.setView(0, Datatype.DOUBLE, filetype, DataRepresentation.NATIVE);
                    final double[] a = values(7, 2 * runs * perRun);
                    final double[] back = new double[2 * runs * perRun];
                    if (strided) {
                        // every other double of the array
                        final Datatype everyOther = Datatype.vector(runs * perRun, 1, 2, Datatype.DOUBLE);
                        f.writeAt(0, a, 1, everyOther);
                        f.readAt(0, back, 1, everyOther);
                        for (int i = 0; i < runs * perRun; i++) {
                            assertEquals(a[2 * i], back[2 * i], "double " + i);
                        }
                    } else {
                        f.writeAt(0, a, runs * perRun, Datatype.DOUBLE);
                        f.readAt(0, back, runs * perRun, Datatype.DOUBLE);
                        assertArrayEquals(java.util.Arrays.copyOf(a, runs * perRun),
                            java.util.Arrays.copyOf(back, runs * perRun));
                        // a float[] through the same view, as doubles' bytes: any primitive array moves
                        f.writeAt(runs * perRun, floats, runs * perRun * 2, Datatype.FLOAT);
                        final float[] fb = new float[floats.length];
                        f.readAt(runs * perRun, fb, runs * perRun * 2, Datatype.FLOAT);
                        assertArrayEquals(floats, fb);
                    }
                    return new long[] {s[0].arrayBytesWritten(), s[0].arrayBytesRead()};
                }
            }).get(0);
            final double[] d = doublesOf(file);
            final double[] a = values(7, 2 * runs * perRun);
            for (int r = 0; r < runs; r++) {
                for (int k = 0; k < perRun; k++) {
                    final int element = r * perRun + k;
                    final double want = strided ? a[2 * element] : a[element];
                    assertEquals(want, d[2 * r * perRun + k], "run " + r + " double " + k);
                }
            }
            final long bytes = 8L * runs * perRun;
            if (strided) {
                assertEquals(0, moved[0], "nothing written from a strided array");
                assertEquals(0, moved[1], "nothing read into a strided array");
            } else {
                assertEquals(EXPECTED ? 2 * bytes : 0, moved[0], "bytes written from arrays");
                assertEquals(EXPECTED ? 2 * bytes : 0, moved[1], "bytes read into arrays");
            }
        }
    }

    /**
     * With the default hints, direct writes and reads (from 1 MiB) are staged as before; shorter ones that sieving
     * leaves alone (from 32 KiB) move straight.
     */
    @Test
    void directAccessesStayStagedAndShortOnesMoveStraight() throws IOException {
        final Path file = dir.resolve("direct.bin");
        final int big = (4 << 20) / 8;
        // 400 KB: sieving leaves runs from 32 KiB on alone, direct I/O takes them from 1 MiB on
        final int small = 50_000;
        final long[] moved = LocalCluster.call(1, comm -> {
            final LocalStorage[] s = new LocalStorage[1];
            try (ParallelFile f = open(comm, file, Map.of(), s)) {
                final double[] a = values(3, big);
                f.writeAt(0, a, big, Datatype.DOUBLE);
                f.writeAt(8L * big, a, small, Datatype.DOUBLE);
                final double[] back = new double[big];
                assertEquals(8L * big, f.readAt(0, back, big, Datatype.DOUBLE).bytes());
                assertArrayEquals(a, back);
                final double[] tail = new double[small];
                assertEquals(8L * small, f.readAt(8L * big, tail, small, Datatype.DOUBLE).bytes());
                assertArrayEquals(java.util.Arrays.copyOf(a, small), tail);
                return new long[] {s[0].arrayBytesWritten(), s[0].arrayBytesRead(), s[0].directBytesWritten()};
            }
        }).get(0);
        assertEquals(EXPECTED ? 8L * small : 0, moved[0], "bytes written from arrays: the short write's");
        assertEquals(EXPECTED ? 8L * small : 0, moved[1], "bytes read into arrays: the short read's");
        assertTrue(moved[2] > 0, "the large write went direct");
    }

    /** A read that meets the end of the file stops there and leaves the rest of the array alone. */
    @Test
    void aReadCutShortByTheEndOfTheFileGivesWhatIsThere() throws IOException {
        final Path file = dir.resolve("short.bin");
        final int n = 5000;
        LocalCluster.call(1, comm -> {
            final LocalStorage[] s = new LocalStorage[1];
            try (ParallelFile f = open(comm, file, PAGE_CACHE, s)) {
                f.writeAt(0, values(5, n), n, Datatype.DOUBLE);
                final double[] back = new double[2 * n];
                java.util.Arrays.fill(back, -1.0);
                assertEquals(8L * (n - 100), f.readAt(8L * 100, back, 2 * n, Datatype.DOUBLE).bytes());
                final double[] v = values(5, n);
                for (int i = 0; i < n - 100; i++) {
                    assertEquals(v[i + 100], back[i], "double " + i);
                }
                for (int i = n - 100; i < 2 * n; i++) {
                    assertEquals(-1.0, back[i], "double " + i + " past the end");
                }
                assertEquals(EXPECTED ? 8L * (n - 100) : 0, s[0].arrayBytesRead());
            }
            return null;
        });
    }

    /** The storage's own calls: an array written at an offset lands there, and reads back; past the end, short. */
    @Test
    void theStorageTakesArraysOnlyWhereItCan() throws IOException {
        final Path file = dir.resolve("storage.bin");
        final Set<StandardOpenOption> rw = Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
            StandardOpenOption.WRITE);
        try (LocalStorage s = new LocalStorage(file, rw, new LocalStorage.DirectIo(true, true, 1 << 20, 1 << 20))) {
            assertEquals(EXPECTED, s.takesArrays(0, 4096, true), "a short write");
            assertEquals(EXPECTED, s.takesArrays(100, 4096, false), "a short read");
            final boolean direct = !s.settingsInEffect().get("direct_write").equals("false");
            assertEquals(EXPECTED && !direct, s.takesArrays(0, 4 << 20, true), "a long write, direct where it can be");
            if (EXPECTED) {
                final long[] longs = {1, 2, 3, 4, 5};
                s.write(3, longs, 8, 24);
                final long[] back = new long[8];
                assertEquals(24, s.read(3, back, 16, 48), "to the end of the file");
                assertArrayEquals(new long[] {0, 0, 2, 3, 4, 0, 0, 0}, back);
                assertEquals(27, s.size());
            }
        }
        try (LocalStorage s = new LocalStorage(file, Set.of(StandardOpenOption.READ))) {
            assertEquals(false, s.takesArrays(0, 4096, true), "no writes to a file open for reading");
            assertEquals(EXPECTED, s.takesArrays(0, 4096, false));
        }
    }
}
