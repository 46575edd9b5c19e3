package org.pario.io.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;
import org.pario.io.Hints;
import org.pario.io.storage.LocalStorage;
import org.pario.io.storage.Storage;

/**
 * Checksums computed as the bytes pass equal the checksums of the file's bytes, whatever path the bytes took
 * (two-phase rounds, independent runs, sieved read-modify-writes, direct I/O, ranks with nothing), and restores
 * that sum what they read still find damage.
 */
@Timeout(120)
class InFlightChecksumsTest {
    private static final long[] SHAPE = {40, 33, 17};
    /** Three checksum chunks of zeros, the last one short. */
    private static final long[] BIG = {64, 64, 65};
    /** A struct element with 4 bytes of padding, which nothing writes. */
    private static final Element<ByteBuffer> PAIR = Element.of(Datatype.parse("struct([1,1], [0,8], [double, int])"));

    @TempDir
    Path dir;

    /** The checksums of the file's own bytes, chunk by chunk. */
    private static long[] fromFile(final Path file, final StoredArray a, final long chunk) throws Exception {
        final long[] out = new long[a.chunks()];
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            for (int i = 0; i < out.length; i++) {
                final ByteBuffer b = ByteBuffer.allocate((int) Math.min(chunk, a.bytes() - i * chunk));
                while (b.hasRemaining()) {
                    if (ch.read(b, a.offset() + i * chunk + b.position()) < 0) {
                        break; // past the end: zeros
                    }
                }
                final CRC32C c = new CRC32C();
                c.update(b.array());
                out[i] = c.getValue();
            }
        }
        return out;
    }

    private void writeAndCompare(final String name, final int ranks, final Map<String, String> hints,
                                 final Dist... dists) throws Exception {
        final Path file = dir.resolve(name + ".ckpt");
        LocalCluster.run(ranks, comm -> {
            final DistributedArray<double[]> field = DistributedArray.of(comm, Element.DOUBLE, SHAPE, dists);
            final double[] v = field.allocate();
            for (int i = 0; i < v.length; i++) {
                v[i] = field.local().globalLinear(i) * 1.5 + 1;
            }
            final DistributedArray<ByteBuffer> pairs = DistributedArray.of(comm, PAIR, new long[] {70_001},
                Dist.cyclic(3));
            final ByteBuffer p = pairs.allocate();
            for (int i = 0; i < pairs.local().intCount(); i++) {
                p.putDouble(16 * i, i + 0.25).putInt(16 * i + 8, -i);
            }
            Checkpoint.at(file).hints(Hints.of(hints)).writer().array("pairs", pairs, p).array("field", field, v)
                .write();
        });
        final CheckpointHeader h = Checkpoint.at(file).header();
        for (final StoredArray a : h.arrays()) {
            assertArrayEquals(fromFile(file, a, h.chunkBytes()), a.crc32c(), name + ": " + a.name());
        }
        // and restored on another rank count, verified in flight
        LocalCluster.run(3, comm -> {
            final DistributedArray<double[]> field = DistributedArray.of(comm, Element.DOUBLE, SHAPE, Dist.cyclic(),
                Dist.none(), Dist.none());
            final double[] back = Checkpoint.at(file).hints(Hints.of(hints)).restore("field", field);
            for (int i = 0; i < back.length; i++) {
                assertEquals(field.local().globalLinear(i) * 1.5 + 1, back[i], 0.0);
            }
        });
    }

    @Test
    void twoPhaseRoundsOfEveryPattern() throws Exception {
        writeAndCompare("cyclic", 4, Map.of(), Dist.cyclic(), Dist.cyclic(), Dist.none());
        writeAndCompare("small-rounds", 3, Map.of("cb_buffer_size", "65536", "romio_cb_write", "enable",
            "cb_config_list", "*:*"), Dist.block(), Dist.cyclic(2), Dist.none());
    }

    @Test
    void independentRunsSievedOrNot() throws Exception {
        writeAndCompare("independent", 4, Map.of("romio_cb_write", "disable", "romio_ds_write", "disable"),
            Dist.block(), Dist.block(), Dist.none());
        // sieving reads each window before writing it back: those chunks are read back, not summed
        writeAndCompare("sieved", 4, Map.of("romio_cb_write", "disable", "romio_ds_write", "enable",
            "romio_cb_read", "disable"), Dist.none(), Dist.cyclic(), Dist.none());
    }

    @Test
    void directWritesAndRanksWithNothing() throws Exception {
        writeAndCompare("direct", 4, Map.of("direct_write", "true", "direct_read", "true"), Dist.block(),
            Dist.none(), Dist.none());
        // 5 ranks over 2 x 2 grid cells of a 2-row array: some hold nothing
        writeAndCompare("empty-ranks", 5, Map.of(), Dist.cyclic(7), Dist.none(), Dist.none());
    }

    @Test
    void readingBackAfterTheWriteAgrees() throws Exception {
        writeAndCompare("read-back", 4, Map.of("pario_verify_after_write", "true"), Dist.block(), Dist.cyclic(),
            Dist.none());
        final ParioException e = assertThrows(ParioException.class, () -> Hints.of(Map.of(
            "pario_verify_after_write", "sometimes")));
        assertTrue(e.getMessage().contains("pario_verify_after_write"), e.getMessage());
    }

    /** A damaged byte is found by a restore that sums what it reads, on every layout and path. */
    @Test
    void aDamagedChunkFailsEveryRestore() throws Exception {
        final Path file = dir.resolve("damaged.ckpt");
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]> field = DistributedArray.of(comm, Element.DOUBLE, BIG, Dist.block(),
                Dist.none(), Dist.none());
            Checkpoint.at(file).write("field", field, field.allocate());
        });
        final StoredArray a = Checkpoint.at(file).header().array("field");
        assertEquals(3, a.chunks());
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {1}), a.offset() + (1 << 20) + 12345);
        }
        for (final Map<String, String> hints : new Map[] {Map.of(), Map.of("romio_cb_read", "disable"),
            Map.of("romio_cb_read", "enable", "cb_buffer_size", "65536"), Map.of("direct_read", "true")}) {
            final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm -> {
                final DistributedArray<double[]> field = DistributedArray.of(comm, Element.DOUBLE, BIG,
                    Dist.cyclic(), Dist.none(), Dist.none());
                Checkpoint.at(file).hints(Hints.of(hints)).restore("field", field);
            }), hints.toString());
            assertTrue(e.getMessage().contains("array 'field' is damaged in chunk 1,"), e.getMessage());
            assertEquals(2, e.getSuppressed().length, "every rank fails");
        }
        assertThrows(ParioException.class, () -> LocalCluster.run(2, (Communicator comm) ->
            Checkpoint.at(file).verify(comm)));
    }

    /**
     * Windows larger than {@link InFlightChecksums#SUMMED_BESIDE_BYTES} are written with their sums computed beside
     * the write, and read whole, then summed: the sums still equal the file's, a clean restore passes, and a damaged
     * byte deep in a window still fails the restore.
     */
    @Test
    void windowsLargerThanASliceAreSummedExactly() throws Exception {
        final long[] shape = {200, 128, 64}; // 12.5 MiB: 13 chunks, the last one short
        final Path file = dir.resolve("large.ckpt");
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]> field = DistributedArray.of(comm, Element.DOUBLE, shape, Dist.block(),
                Dist.cyclic(), Dist.none());
            final double[] v = field.allocate();
            for (int i = 0; i < v.length; i++) {
                v[i] = field.local().globalLinear(i) * 0.5 - 3;
            }
            Checkpoint.at(file).write("field", field, v);
        });
        final CheckpointHeader h = Checkpoint.at(file).header();
        final StoredArray a = h.array("field");
        assertEquals(13, a.chunks());
        assertArrayEquals(fromFile(file, a, h.chunkBytes()), a.crc32c());
        LocalCluster.run(3, comm -> {
            final DistributedArray<double[]> field = DistributedArray.of(comm, Element.DOUBLE, shape, Dist.none(),
                Dist.cyclic(), Dist.block());
            final double[] back = Checkpoint.at(file).restore("field", field);
            for (int i = 0; i < back.length; i++) {
                assertEquals(field.local().globalLinear(i) * 0.5 - 3, back[i], 0.0);
            }
        });
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, a.offset() + 9 * (1L << 20) + 777);
            one.put(0, (byte) (one.get(0) ^ 0x10)).clear();
            ch.write(one, a.offset() + 9 * (1L << 20) + 777);
        }
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> field = DistributedArray.of(comm, Element.DOUBLE, shape, Dist.block(),
                Dist.none(), Dist.none());
            Checkpoint.at(file).restore("field", field);
        }));
        assertTrue(e.getMessage().contains("array 'field' is damaged in chunk 9,"), e.getMessage());
    }

    /**
     * The decorator itself: one write and one read of 10.5 MiB, from and to offsets that are not multiples of a
     * chunk, the read running into the end of the file, give every chunk's exact sum, none left unsure.
     */
    @Test
    void largeAccessesThroughTheDecoratorSumEveryChunkOnce() throws Exception {
        final long chunk = 1 << 20;
        final long offset = 4096 + 24;
        final long bytes = 10 * chunk + chunk / 2;
        final StoredArray a = new StoredArray("a", new long[] {bytes / 8}, Datatype.DOUBLE, Order.C,
            List.of(Dist.block()), new long[] {1}, Attributes.builder().build(), offset, bytes, new long[11]);
        final byte[] data = new byte[(int) bytes];
        new java.util.Random(50).nextBytes(data);
        final Path file = dir.resolve("decorated.bin");
        final InFlightChecksums written = InFlightChecksums.ofWrites(List.of(a), chunk, 0);
        try (Storage s = written.watching(new LocalStorage(file, Set.of(StandardOpenOption.CREATE,
            StandardOpenOption.READ, StandardOpenOption.WRITE)))) {
            s.write(offset, ByteBuffer.wrap(data));
        }
        final long[] expected = fromFile(file, a, chunk);
        final InFlightChecksums read = InFlightChecksums.ofReads(a, chunk);
        final ByteBuffer back = ByteBuffer.allocateDirect((int) bytes + 5000);
        try (Storage s = read.watching(new LocalStorage(file, Set.of(StandardOpenOption.READ)))) {
            assertEquals(bytes, s.read(offset, back));
            // a large read from past the end of the file tells what the storage itself tells, and sums nothing
            final ByteBuffer beyond = ByteBuffer.allocateDirect(9 << 20);
            try (Storage plain = new LocalStorage(file, Set.of(StandardOpenOption.READ))) {
                assertEquals(plain.read(offset + bytes + 100, beyond.duplicate()), s.read(offset + bytes + 100,
                    beyond));
            }
            assertEquals(0, beyond.position());
        }
        assertEquals(bytes, back.position());
        back.flip();
        final byte[] got = new byte[(int) bytes];
        back.get(got);
        assertArrayEquals(data, got);
        LocalCluster.run(1, comm -> {
            assertArrayEquals(expected, written.joined(comm)[0], "sums of the write");
            assertArrayEquals(expected, read.joined(comm)[0], "sums of the read");
        });
    }
}
