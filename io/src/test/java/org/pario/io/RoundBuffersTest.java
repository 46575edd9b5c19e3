package org.pario.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.io.storage.Storage;
import org.pario.io.storage.StorageProvider;
import org.pario.io.storage.Storages;

/** The buffers a closed file hands on to the next one: who gets them, and that nothing of the old file shows. */
@Timeout(120)
class RoundBuffersTest {
    @TempDir
    Path dir;

    @BeforeEach
    void keepSets() throws Exception {
        // what other tests of this JVM left kept would answer this test's requests
        System.clearProperty(RoundBuffers.KEPT_PROPERTY);
        System.setProperty(RoundBuffers.KEPT_BYTES_PROPERTY, "0");
        try (Storage s = storage("first")) {
            RoundBuffers.forFile(1, 1, false, s).release();
        } finally {
            System.clearProperty(RoundBuffers.KEPT_BYTES_PROPERTY);
        }
        System.setProperty(RoundBuffers.KEPT_PROPERTY, "4");
    }

    @AfterEach
    void keepNone() throws Exception {
        System.clearProperty(RoundBuffers.KEPT_PROPERTY);
        // a release under the default empties what the test left kept
        try (Storage s = storage("last")) {
            RoundBuffers.forFile(1, 1, false, s).release();
        }
    }

    private Storage storage(final String name) throws Exception {
        return Storages.open(dir.resolve(name).toString(), new StorageProvider.Request(true, true, true, false));
    }

    @Test
    void aReleasedSetGoesToTheNextFileOfTheSameShapeOnly() throws Exception {
        try (Storage s = storage("a")) {
            // a shape no other test uses, so that the JVM-wide pool holds only this test's sets
            final RoundBuffers first = RoundBuffers.forFile(7919, 3, true, s);
            final ByteBuffer incoming = first.incoming(0, 5, 1000);
            final ByteBuffer window = first.window(0, 0, 1 << 16);
            first.release();
            assertNotSame(first, RoundBuffers.forFile(7919, 3, false, s), "a non-aggregator gets no aggregator's set");
            assertNotSame(first, RoundBuffers.forFile(7919, 2, true, s), "nor a file with other aggregators");
            final RoundBuffers again = RoundBuffers.forFile(7919, 3, true, s);
            assertSame(first, again);
            assertSame(incoming, again.incoming(0, 5, 1000), "the arrays come along, grown as they were");
            assertEquals(window.capacity(), again.window(0, 0, 1 << 16).capacity());
            assertNotSame(again, RoundBuffers.forFile(7919, 3, true, s), "a set is handed out once");
        }
    }

    @Test
    void byDefaultTheJvmKeepsNone() throws Exception {
        System.clearProperty(RoundBuffers.KEPT_PROPERTY);
        try (Storage s = storage("d")) {
            final RoundBuffers first = RoundBuffers.forFile(7883, 1, true, s);
            first.release();
            assertNotSame(first, RoundBuffers.forFile(7883, 1, true, s));
        }
    }

    /** A closed file's packing chunks go to the next file's independent accesses: no new memory to touch. */
    @Test
    void aClosedFilesPackingChunksGoToTheNextFiles() throws Exception {
        try (Storage s = storage("c")) {
            final Chunks first = new Chunks(1 << 20, s.preferredBlockSize(), true);
            final ByteBuffer chunk = first.take();
            chunk.putLong(24, 0xc0ffeeL);
            first.give(chunk);
            first.release();
            final ByteBuffer again = new Chunks(1 << 20, s.preferredBlockSize(), true).take();
            assertEquals(0xc0ffeeL, again.getLong(24), "the same memory, not a new buffer");
            assertEquals(1 << 20, again.capacity());
            assertEquals(0, again.alignmentOffset(0, Chunks.alignment(s.preferredBlockSize())));
            final Chunks heap = new Chunks(1 << 20, s.preferredBlockSize(), false);
            heap.give(heap.take());
            heap.release();
            assertEquals(0L, new Chunks(1 << 20, s.preferredBlockSize(), true).take().getLong(24),
                "heap chunks are not handed on, and a chunk goes to one file only");
        }
    }

    @Test
    void byDefaultAClosedFilesDirectBuffersGoToTheNextFiles() throws Exception {
        System.clearProperty(RoundBuffers.KEPT_PROPERTY);
        try (Storage s = storage("w")) {
            final RoundBuffers first = RoundBuffers.forFile(7877, 1, true, s);
            final ByteBuffer window = first.window(0, 0, 1 << 16);
            window.putLong(8, 0x5eed_f00dL);
            final ByteBuffer piece = first.incoming(1, 0, 3000);
            assertTrue(piece.isDirect());
            piece.putLong(16, 0xfeedL);
            first.release();
            // another shape and role: the buffers are plain memory, whoever opens the next file
            final RoundBuffers next = RoundBuffers.forFile(7873, 2, false, s);
            final ByteBuffer again = next.window(1, 0, 1 << 15);
            assertTrue(again.isDirect());
            assertEquals(0x5eed_f00dL, again.getLong(8), "the same memory, not a new buffer");
            assertEquals(0, again.alignmentOffset(0, Chunks.alignment(s.preferredBlockSize())));
            assertEquals(0xfeedL, next.readBuffer(1, 2000).getLong(16), "a piece buffer goes to a piece that fits");
            assertEquals(0L, next.outgoing(2000).getLong(16), "and to one piece only");
            next.release();
        }
    }

    @Test
    void theJvmKeepsAtMostTheBoundOfBytes() throws Exception {
        System.clearProperty(RoundBuffers.KEPT_PROPERTY);
        try (Storage s = storage("v")) {
            final RoundBuffers first = RoundBuffers.forFile(7867, 1, true, s);
            first.window(0, 0, 4096).putLong(0, 11L);
            final ByteBuffer last = first.window(1, 0, 4096);
            last.putLong(0, 22L);
            // a window's buffer holds a spare block in front of the window
            System.setProperty(RoundBuffers.KEPT_BYTES_PROPERTY,
                Integer.toString(4096 + Chunks.alignment(s.preferredBlockSize())));
            first.release();
            final RoundBuffers next = RoundBuffers.forFile(7867, 1, true, s);
            assertEquals(22L, next.window(0, 0, 4096).getLong(0), "the most recently kept window");
            assertEquals(0L, next.window(1, 0, 4096).getLong(0), "the other one was let go: a new, zeroed one");
        } finally {
            System.clearProperty(RoundBuffers.KEPT_BYTES_PROPERTY);
        }
    }

    @Test
    void aKeptBufferFarLargerThanTheRequestIsLeftForALargerOne() throws Exception {
        System.clearProperty(RoundBuffers.KEPT_PROPERTY);
        try (Storage s = storage("u")) {
            final RoundBuffers first = RoundBuffers.forFile(7853, 1, true, s);
            first.outgoing(100_000).putLong(0, 33L);
            first.release();
            final RoundBuffers next = RoundBuffers.forFile(7853, 1, true, s);
            assertEquals(0L, next.outgoing(1000).getLong(0), "a small piece gets a new buffer");
            assertEquals(33L, next.readBuffer(0, 60_000).getLong(0), "a piece of more than half takes the kept one");
            next.release();
        }
    }

    @Test
    void theJvmKeepsTheMostRecentlyReleasedSets() throws Exception {
        try (Storage s = storage("b")) {
            final RoundBuffers[] sets = new RoundBuffers[RoundBuffers.kept() + 1];
            for (int i = 0; i < sets.length; i++) {
                sets[i] = RoundBuffers.forFile(7907 + i, 1, true, s);
            }
            for (final RoundBuffers b : sets) {
                b.release();
            }
            assertNotSame(sets[0], RoundBuffers.forFile(7907, 1, true, s), "the oldest went beyond the bound");
            for (int i = 1; i < sets.length; i++) {
                assertSame(sets[i], RoundBuffers.forFile(7907 + i, 1, true, s));
            }
        }
    }

    @Test
    void theMaskOfPlacedBytesStartsClearInEveryRound() throws Exception {
        try (Storage s = storage("c")) {
            final RoundBuffers b = RoundBuffers.forFile(7901, 1, true, s);
            Arrays.fill(b.covered(100), -1L);
            final long[] reused = b.covered(60);
            for (int i = 0; i < 60; i++) {
                assertEquals(0L, reused[i], "long " + i);
            }
            assertTrue(b.covered(200).length >= 200);
        }
    }

    /**
     * A file whose view leaves holes, written after another file of the same shape left its windows full of other
     * bytes: the holes are the new file's zeros, never the old file's data, and the written bytes are the new ones.
     */
    @Test
    void aFileWrittenWithReusedBuffersHoldsOnlyItsOwnBytes() throws Exception {
        writeOverAnotherFilesBuffers();
    }

    /** The same with the default keeping: only the direct windows go on to the next file. */
    @Test
    void aFileWrittenWithReusedWindowsHoldsOnlyItsOwnBytes() throws Exception {
        System.clearProperty(RoundBuffers.KEPT_PROPERTY);
        writeOverAnotherFilesBuffers();
    }

    private void writeOverAnotherFilesBuffers() throws Exception {
        final int ranks = 3;
        final int perRank = 40_000;
        final Map<String, String> hints = Map.of("romio_cb_write", "enable", "cb_config_list", "*:1",
            "cb_buffer_size", "65536");
        final Path full = dir.resolve("full.bin");
        final Path gappy = dir.resolve("gappy.bin");
        LocalCluster.run(ranks, comm -> {
            final int r = comm.rank();
            // every rank's ints interleaved one by one: the file is whole
            final Datatype dense = Datatype.resized(Datatype.vector(perRank, 1, ranks, Datatype.INT), 0,
                4L * ranks * perRank);
            try (ParallelFile f = ParallelFile.open(comm, full.toString(), EnumSet.of(Mode.CREATE, Mode.RDWR),
                Hints.of(hints))) {
                f.setView(4L * r, Datatype.INT, dense, DataRepresentation.NATIVE);
                final int[] mine = new int[perRank];
                Arrays.fill(mine, -7);
                f.writeAll(mine, mine.length, Datatype.INT);
            }
            // the same interleaving with every other int of each rank left out: half the file is holes
            final Datatype sparse = Datatype.resized(Datatype.vector(perRank / 2, 1, 2 * ranks, Datatype.INT), 0,
                4L * ranks * perRank);
            try (ParallelFile f = ParallelFile.open(comm, gappy.toString(), EnumSet.of(Mode.CREATE, Mode.RDWR),
                Hints.of(hints))) {
                f.setView(4L * r, Datatype.INT, sparse, DataRepresentation.NATIVE);
                final int[] mine = new int[perRank / 2];
                Arrays.setAll(mine, k -> 1 + r + ranks * k);
                f.writeAll(mine, mine.length, Datatype.INT);
            }
        });
        final ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(gappy)).order(ByteOrder.nativeOrder());
        final int[] expected = new int[b.remaining() / 4];
        for (int i = 0; i < expected.length; i++) {
            final int block = i / ranks;
            expected[i] = block % 2 == 0 ? 1 + i % ranks + ranks * (block / 2) : 0;
        }
        final int[] actual = new int[expected.length];
        b.asIntBuffer().get(actual);
        assertArrayEquals(expected, actual);
    }
}
