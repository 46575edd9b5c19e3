package org.pario.io.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.io.Hints;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;

/**
 * Independent writes from a direct buffer whose bytes are the access's stream (a contiguous type, no conversion): each
 * run reaches the storage from the buffer itself, not packed into a chunk first, so a page-aligned buffer goes to the
 * disk with direct I/O and no copy at all. The file holds exactly the buffer's values wherever the buffer starts, and
 * runs that sieving gathers mix with those written from the buffer in stream order.
 */
@Timeout(60)
class DirectBufferWriteTest {
    private static final int MIB_DOUBLES = (1 << 20) / 8;
    private Path dir;

    @BeforeEach
    void makeDirectory() throws IOException {
        dir = DiskDirectory.create("direct-buffers");
    }

    @AfterEach
    void removeDirectory() throws IOException {
        DiskDirectory.delete(dir);
    }

    /** A direct buffer in native order, page-aligned, {@code skip} doubles of -1 then values from {@code seed}. */
    private static ByteBuffer values(final int seed, final int skip, final int n) {
        final ByteBuffer b = DirectBuffers.allocate(8 * (skip + n), 4096).order(ByteOrder.nativeOrder());
        for (int i = 0; i < skip; i++) {
            b.putDouble(8 * i, -1);
        }
        for (int i = 0; i < n; i++) {
            b.putDouble(8 * (skip + i), seed * 1e7 + i + 0.5);
        }
        return b;
    }

    /**
     * Writes {@code n} doubles from {@code buf} through a view of 1 MiB runs with 1 MiB gaps, over a file whose gaps
     * hold 7.0, and returns the storage's staged and direct byte counts.
     */
    private static long[] writeRuns(final Path file, final Object buf, final int n, final Map<String, String> hints)
        throws IOException {
        final ByteBuffer sevens = ByteBuffer.allocate(16 * n).order(ByteOrder.nativeOrder());
        for (int i = 0; i < 2 * n; i++) {
            sevens.putDouble(8 * i, 7.0);
        }
        Files.write(file, sevens.array());
        return LocalCluster.call(1, comm -> {
            final LocalStorage[] s = new LocalStorage[1];
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDWR), Hints.of(hints),
                st -> {
                    s[0] = (LocalStorage) st;
                    return st;
                })) {
                f.setView(0, Datatype.DOUBLE, Datatype.vector(n / MIB_DOUBLES, MIB_DOUBLES, 2L * MIB_DOUBLES,
                    Datatype.DOUBLE), DataRepresentation.NATIVE);
                assertEquals(8L * n, f.write(buf, n, Datatype.DOUBLE).bytes());
                return new long[] {s[0].stagedBytes(), s[0].directBytesWritten()};
            }
        }).get(0);
    }

    private static void assertRuns(final Path file, final int seed, final int n) throws IOException {
        final double[] d = ArrayAccessTest.doublesOf(file);
        assertEquals(2 * n, d.length);
        for (int i = 0; i < n; i++) {
            final int run = i / MIB_DOUBLES;
            final int at = 2 * run * MIB_DOUBLES + i % MIB_DOUBLES;
            assertEquals(seed * 1e7 + i + 0.5, d[at], "double " + i);
            assertEquals(7.0, d[at + MIB_DOUBLES], "the gap after double " + i);
        }
    }

    @Test
    void anAlignedBufferGoesToTheDiskAsItIs() throws IOException {
        final Path file = dir.resolve("aligned.bin");
        final int n = 4 * MIB_DOUBLES;
        final long[] counts = writeRuns(file, values(1, 0, n), n, Map.of("direct_write", "true"));
        assertRuns(file, 1, n);
        assertEquals(0, counts[0], "bytes staged");
        assertTrue(counts[1] == 0 || counts[1] == 8L * n, "direct bytes " + counts[1] + " (0 where the file system "
            + "refuses direct I/O)");
    }

    @Test
    void aBufferFromAnElementInIsWrittenWhole() throws IOException {
        final Path file = dir.resolve("from-one.bin");
        final int n = 3 * MIB_DOUBLES;
        final ByteBuffer b = values(2, 1, n);
        // the stream starts 8 bytes into the buffer: not on a block, so direct I/O stages it
        writeRuns(file, b.position(8).slice().order(ByteOrder.nativeOrder()), n, Map.of("direct_write", "true"));
        assertRuns(file, 2, n);
        writeRuns(file, values(3, 0, n), n, Map.of("direct_write", "false"));
        assertRuns(file, 3, n);
    }

    /** Short runs gathered into sieve windows and long ones written from the buffer keep the stream's order. */
    @Test
    void sievedRunsAndRunsFromTheBufferKeepStreamOrder() throws IOException {
        final Path file = dir.resolve("mixed.bin");
        // alternately 3 doubles and 1 MiB (from the buffer), each followed by a gap of 5 doubles
        final int pairs = 3;
        final long[] lengths = new long[2 * pairs];
        final long[] displacements = new long[2 * pairs];
        long at = 0;
        int n = 0;
        for (int k = 0; k < 2 * pairs; k++) {
            lengths[k] = k % 2 == 0 ? 3 : MIB_DOUBLES;
            displacements[k] = at;
            at += lengths[k] + 5;
            n += (int) lengths[k];
        }
        final long span = at;
        final ByteBuffer zeros = ByteBuffer.allocate((int) (8 * span));
        Files.write(file, zeros.array());
        final int count = n;
        final ByteBuffer data = values(4, 0, n);
        LocalCluster.call(1, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDWR),
                Hints.of(Map.of("direct_write", "false")))) {
                f.setView(0, Datatype.DOUBLE, Datatype.indexed(lengths, displacements, Datatype.DOUBLE),
                    DataRepresentation.NATIVE);
                assertEquals(8L * count, f.write(data, count, Datatype.DOUBLE).bytes());
            }
            return null;
        });
        final double[] d = ArrayAccessTest.doublesOf(file);
        int i = 0;
        for (int k = 0; k < 2 * pairs; k++) {
            for (int j = 0; j < lengths[k]; j++, i++) {
                assertEquals(4 * 1e7 + i + 0.5, d[(int) displacements[k] + j], "double " + i);
            }
            for (int j = 0; j < 5; j++) {
                assertEquals(0.0, d[(int) (displacements[k] + lengths[k]) + j], "the gap after run " + k);
            }
        }
    }
}
