package org.pario.io.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ParioException;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;
import org.pario.io.Hints;

/**
 * The checksums read from a file (a verify, a chunk no in-flight sum covered, a write read back) are each chunk's
 * exact CRC-32C when the ranks read neighbouring chunks a window at a time: across window boundaries, for runs of
 * chosen chunks, with the array shifted in the file, a short last chunk, and a file cut short.
 */
@Timeout(120)
class ChecksumsTest {
    private static final long CHUNK = 1 << 20;
    /** More than two windows of chunks, the last chunk short and not a multiple of a disk block. */
    private static final long BYTES = 2 * Checksums.WINDOW_BYTES + 8 * CHUNK + 1000;
    private static final long OFFSET = 8192;
    /** The defaults: windows of a MiB and more read past the page cache, where the file system can. */
    private static final Hints HINTS = Hints.of(Map.of());

    @TempDir
    Path dir;

    private static StoredArray array(final long offset) {
        final int chunks = (int) ((BYTES + CHUNK - 1) / CHUNK);
        return new StoredArray("a", new long[] {BYTES}, Datatype.BYTE, Order.C, List.of(Dist.block()),
            new long[] {1}, Attributes.builder().build(), offset, BYTES, new long[chunks]);
    }

    /** Writes random bytes for the array at file byte {@code at}; returns each chunk's CRC-32C. */
    private static long[] writeRandom(final Path file, final long at) throws Exception {
        final byte[] data = new byte[(int) BYTES];
        new Random(56).nextBytes(data);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            final ByteBuffer b = ByteBuffer.wrap(data);
            while (b.hasRemaining()) {
                ch.write(b, at + b.position());
            }
        }
        final long[] sums = new long[(int) ((BYTES + CHUNK - 1) / CHUNK)];
        for (int i = 0; i < sums.length; i++) {
            final CRC32C c = new CRC32C();
            c.update(data, (int) (i * CHUNK), (int) Math.min(CHUNK, BYTES - i * CHUNK));
            sums[i] = c.getValue();
        }
        return sums;
    }

    private static long[] read(final int ranks, final Path file, final StoredArray a, final long shift,
                               final boolean[] only) {
        return LocalCluster.call(ranks, comm -> Checksums.of(comm, file.toString(), a, CHUNK, shift, only, HINTS))
            .get(0);
    }

    @Test
    void everyChunkAcrossWindowsOnAnyRankCount() throws Exception {
        final Path file = dir.resolve("a.bin");
        final long[] want = writeRandom(file, OFFSET);
        for (final int ranks : new int[] {1, 3, 4}) {
            assertArrayEquals(want, read(ranks, file, array(OFFSET), 0, null), ranks + " ranks");
        }
    }

    @Test
    void onlyTheChosenChunksRunsLongerThanAWindowAmongThem() throws Exception {
        final Path file = dir.resolve("a.bin");
        final long[] want = writeRandom(file, OFFSET);
        final boolean[] only = new boolean[want.length];
        only[0] = true;
        // a run of 21 chunks across a window boundary, longer than a window
        for (int i = 5; i <= 25; i++) {
            only[i] = true;
        }
        only[want.length - 1] = true;
        final long[] got = read(3, file, array(OFFSET), 0, only);
        for (int i = 0; i < want.length; i++) {
            assertEquals(only[i] ? want[i] : 0, got[i], "chunk " + i);
        }
    }

    @Test
    void anArrayShiftedInTheFile() throws Exception {
        final Path file = dir.resolve("staged.bin");
        final long[] want = writeRandom(file, 0);
        // the header would put the array at OFFSET; the staged file holds it from byte 0
        assertArrayEquals(want, read(2, file, array(OFFSET), OFFSET, null));
    }

    @Test
    void aFileCutShortFailsTheChunksItCuts() throws Exception {
        final Path file = dir.resolve("a.bin");
        final long[] want = writeRandom(file, OFFSET);
        final long cut = OFFSET + 30 * CHUNK + 12345;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(cut);
        }
        final long[] got = read(4, file, array(OFFSET), 0, null);
        for (int i = 0; i < want.length; i++) {
            if (i < 30) {
                assertEquals(want[i], got[i], "chunk " + i);
            } else {
                assertNotEquals(want[i], got[i], "chunk " + i);
            }
        }
    }

    /** A verify of a checkpoint of more than one window finds a flipped byte deep in its second window. */
    @Test
    void aVerifyFindsDamageInALaterWindow() throws Exception {
        final long[] shape = {320, 128, 128}; // 40 MiB of doubles: 40 chunks, three windows
        final Path file = dir.resolve("big.ckpt");
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]> field = DistributedArray.of(comm, Element.DOUBLE, shape, Dist.block(),
                Dist.cyclic(), Dist.none());
            final double[] v = field.allocate();
            for (int i = 0; i < v.length; i++) {
                v[i] = field.local().globalLinear(i) + 0.25;
            }
            Checkpoint.at(file).write("field", field, v);
        });
        LocalCluster.run(3, comm -> Checkpoint.at(file).verify(comm));
        final StoredArray a = Checkpoint.at(file).header().array("field");
        assertEquals(40, a.chunks());
        CheckpointTest.flip(file, a.offset() + 27 * CHUNK + 4321, 0x04);
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm ->
            Checkpoint.at(file).verify(comm)));
        assertTrue(e.getMessage().contains("array 'field' is damaged in chunk 27,"), e.getMessage());
    }
}
