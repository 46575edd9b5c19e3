package org.pario.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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

/** Independent reads of noncontiguous views go to storage as few large reads (data sieving). */
@Timeout(60)
class SievingTest {
    @TempDir
    Path dir;

    /** Counts the read calls that reach storage. */
    static final class Counting implements Storage {
        final Storage inner;
        final AtomicInteger reads = new AtomicInteger();

        Counting(final Storage inner) {
            this.inner = inner;
        }

        @Override
        public Set<Capability> capabilities() {
            return inner.capabilities();
        }

        @Override
        public long size() throws IOException {
            return inner.size();
        }

        @Override
        public long read(final long position, final ByteBuffer dst) throws IOException {
            reads.incrementAndGet();
            return inner.read(position, dst);
        }

        @Override
        public void write(final long position, final ByteBuffer src) throws IOException {
            inner.write(position, src);
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
}
