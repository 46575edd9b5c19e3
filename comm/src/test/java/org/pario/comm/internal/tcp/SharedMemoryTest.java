package org.pario.comm.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.comm.settings.CommSettings;

/** The shared-memory staging area: arena space, what a receiver agrees to map, clean-up after dead processes. */
@Timeout(60)
class SharedMemoryTest {
    private static final CommSettings DEFAULTS = CommSettings.defaults();

    @Test
    void arenaSpaceIsTakenFirstFitAndMergedWhenGivenBack() {
        final SharedMemory shm = SharedMemory.open(DEFAULTS);
        assertNotNull(shm, "/dev/shm is writable on the machines the tests run on");
        try {
            final int third = DEFAULTS.shmArenaBytes() / 3;
            final SharedMemory.Segment a = shm.take(1, third);
            final SharedMemory.Segment b = shm.take(1, third);
            final SharedMemory.Segment c = shm.take(1, third);
            assertEquals(0, a.offset());
            assertEquals(third, b.offset());
            assertEquals(2L * third, c.offset());
            assertNull(shm.take(1, third), "the arena is full: the message waits in the sender's own memory");
            assertNotNull(shm.take(2, third), "each peer has its own arena");
            b.release();
            a.release();
            final SharedMemory.Segment ab = shm.take(1, 2 * third);
            assertEquals(0, ab.offset(), "the two freed neighbours merged into one range");
            c.release();
            ab.release();
            assertEquals(0, shm.take(1, DEFAULTS.shmArenaBytes()).offset());
            assertTrue(SharedMemory.touch(shm.take(2, 4096 * 3)));
        } finally {
            shm.close();
        }
        assertFalse(Files.exists(shm.directory()), "closing removes the rank's directory");
    }

    @Test
    void aReceiverMapsOnlyPariosArenasAndOnlyTheRangesTheyHold() throws IOException {
        final SharedMemory sender = SharedMemory.open(DEFAULTS);
        final SharedMemory receiver = SharedMemory.open(DEFAULTS);
        try {
            final SharedMemory.Segment s = sender.takeMessage(1, 8192);
            s.data(8192).putLong(0, 0x1234_5678_9ABCL);
            s.publish(8192);
            final String path = s.arena().file().toString();
            final SharedMemory.Staged staged = receiver.staged(path, s.offset(), 8192);
            assertEquals(8192, staged.packed());
            assertEquals(0x1234_5678_9ABCL, staged.data().getLong(0));
            assertThrows(IOException.class, () -> receiver.staged("/etc/passwd", 0, 16));
            assertThrows(IOException.class, () -> receiver.staged(sender.directory().resolve("../../etc/passwd")
                .toString(), 0, 16));
            assertThrows(IOException.class, () -> receiver.staged(path, DEFAULTS.shmArenaBytes() - 64, 16),
                "a range beyond the arena");
            assertThrows(IOException.class, () -> receiver.staged(path, -8, 16));
            assertThrows(IOException.class, () -> receiver.staged(path, 4, 16), "a count that is not aligned");
        } finally {
            sender.close();
            receiver.close();
        }
    }

    @Test
    void directoriesOfProcessesThatNoLongerRunAreSweptAtStart() throws Exception {
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        final Path stale = SharedMemory.base(DEFAULTS).resolve("pario-" + gone.pid() + "-42");
        Files.createDirectories(stale);
        Files.write(stale.resolve("to-1"), new byte[4096]);
        final Path alive = SharedMemory.base(DEFAULTS).resolve("pario-" + ProcessHandle.current().pid() + "-43");
        Files.createDirectories(alive);
        try {
            final SharedMemory shm = SharedMemory.open(DEFAULTS);
            shm.close();
            assertFalse(Files.exists(stale), "left by a process that was killed");
            assertTrue(Files.exists(alive), "a running process's directory stays");
        } finally {
            Files.deleteIfExists(alive);
        }
    }

    @Test
    void aReceiverSeesEachChunkOnceItsCountIsPublishedAndDataBeforeTheCountIsComplete() throws Exception {
        final SharedMemory sender = SharedMemory.open(DEFAULTS);
        final SharedMemory receiver = SharedMemory.open(DEFAULTS);
        try {
            final int bytes = 8 * DEFAULTS.shmChunkBytes();
            final SharedMemory.Segment s = sender.takeMessage(1, bytes);
            assertEquals(0, s.offset() % SharedMemory.HEADER, "every message's count on a cache line of its own");
            final SharedMemory.Staged staged = receiver.staged(s.arena().file().toString(), s.offset(), bytes);
            assertEquals(0, staged.packed(), "nothing is packed when the message is announced");
            final Thread packer = new Thread(() -> {
                final java.nio.ByteBuffer data = s.data(bytes);
                for (int at = 0; at < bytes; at += DEFAULTS.shmChunkBytes()) {
                    for (int i = at; i < at + DEFAULTS.shmChunkBytes(); i += 8) {
                        data.putLong(i, i);
                    }
                    s.publish(at + DEFAULTS.shmChunkBytes());
                }
            });
            packer.start();
            final java.nio.ByteBuffer data = staged.data();
            long done = 0;
            while (done < bytes) {
                final long packed = staged.awaitMore(done, 10_000_000_000L, () -> false);
                assertTrue(packed > done && packed <= bytes && packed % DEFAULTS.shmChunkBytes() == 0, "" + packed);
                for (long i = done; i < packed; i += 8) {
                    assertEquals(i, data.getLong((int) i));
                }
                done = packed;
            }
            packer.join();
        } finally {
            sender.close();
            receiver.close();
        }
    }

    @Test
    void aReceiverStopsWaitingWhenTheSendersProcessIsGoneOrItsCountStandsStill(@TempDir final Path base)
        throws Exception {
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        // a directory of this test's own, which no Pario process starting meanwhile sweeps
        final CommSettings own = CommSettings.defaults().with("shmDir", base);
        final Path dead = base.resolve("pario-" + gone.pid() + "-7");
        final SharedMemory receiver = SharedMemory.open(own);
        final SharedMemory live = SharedMemory.open(own);
        try {
            // an arena whose sender was killed after announcing a message, its count still 0 (made after opening,
            // which sweeps such directories away)
            Files.createDirectories(dead);
            Files.write(dead.resolve("to-1"), new byte[1 << 16]);
            final SharedMemory.Staged orphan = receiver.staged(dead.resolve("to-1").toString(), 0, 4096);
            final long t0 = System.nanoTime();
            assertEquals(SharedMemory.SENDER_GONE, orphan.awaitMore(0, 60_000_000_000L, () -> false));
            assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "noticed well before the stall bound");
            // the sender's process runs but its rank is known to have failed; then it runs but packs nothing
            final SharedMemory.Segment s = live.takeMessage(1, 4096);
            final SharedMemory.Staged stuck = receiver.staged(s.arena().file().toString(), s.offset(), 4096);
            assertEquals(SharedMemory.SENDER_GONE, stuck.awaitMore(0, 60_000_000_000L, () -> true));
            assertEquals(SharedMemory.STALLED, stuck.awaitMore(0, 20_000_000L, () -> false));
            s.publish(SharedMemory.PACKING_FAILED);
            assertEquals(SharedMemory.PACKING_FAILED, stuck.awaitMore(0, 20_000_000L, () -> false));
        } finally {
            live.close();
            receiver.close();
        }
    }

    @Test
    void pagesAreTouchedOnceAndAMessageThatCannotFitTheArenaIsNotStaged() {
        final SharedMemory shm = SharedMemory.open(DEFAULTS);
        try {
            final SharedMemory.Segment a = shm.takeMessage(1, 3 * 4096);
            assertTrue(SharedMemory.touch(a), "touched again: nothing to do");
            a.release();
            assertNull(shm.takeMessage(1, DEFAULTS.shmArenaBytes()), "the header makes it larger than the arena");
            assertEquals(0, shm.takeMessage(1, DEFAULTS.shmArenaBytes() - SharedMemory.HEADER).offset());
        } finally {
            shm.close();
        }
    }

    /**
     * New pages are allocated through the arena's file, a run at a time; a page that holds part of a message in use
     * is never allocated again, so a message staged beside the new pages keeps its bytes.
     */
    @Test
    void touchingNewPagesLeavesTheBytesOfMessagesBesideThemAlone() {
        final SharedMemory shm = SharedMemory.open(DEFAULTS);
        try {
            // 64 + 5056 bytes: pages 0 and 1; the next message starts in page 1 and runs on into new pages
            final SharedMemory.Segment a = shm.takeMessage(1, 5000);
            final ByteBuffer data = a.data(5000);
            for (int i = 0; i < 5000; i++) {
                data.put(i, (byte) (i * 31 + 7));
            }
            final SharedMemory.Segment b = shm.takeMessage(1, 5 * 4096 + 100);
            assertEquals(a.offset() + a.length(), b.offset());
            for (int i = 0; i < 5000; i++) {
                assertEquals((byte) (i * 31 + 7), data.get(i), "byte " + i + " of the first message");
            }
            final ByteBuffer fresh = b.data(5 * 4096 + 100);
            for (int i = 0; i < fresh.capacity(); i++) {
                assertEquals(0, fresh.get(i), "byte " + i + " of the new pages");
                fresh.put(i, (byte) 1);
            }
            assertTrue(SharedMemory.touch(b), "touched again: nothing to do");
            assertEquals(1, fresh.get(fresh.capacity() - 1));
        } finally {
            shm.close();
        }
    }

    /**
     * Random takes and gives of many sizes, with space given back out of order so that the free list holds many
     * ranges: no two segments in use ever overlap, and once all is given back the arena is one free range again.
     */
    @Test
    void segmentsInUseNeverOverlapWhateverTheOrderSpaceIsGivenBackIn() {
        final SharedMemory shm = SharedMemory.open(DEFAULTS);
        try {
            final java.util.Random random = new java.util.Random(42);
            final java.util.List<SharedMemory.Segment> live = new java.util.ArrayList<>();
            for (int step = 0; step < 20_000; step++) {
                if (live.isEmpty() || random.nextInt(3) > 0) {
                    final SharedMemory.Segment s = shm.take(1, 64 * (1 + random.nextInt(1 << 14)));
                    if (s != null) {
                        for (final SharedMemory.Segment other : live) {
                            assertTrue(s.offset() + s.length() <= other.offset()
                                || other.offset() + other.length() <= s.offset(),
                                "step " + step + ": " + s + " overlaps " + other);
                        }
                        live.add(s);
                        continue;
                    }
                }
                live.remove(random.nextInt(live.size())).release();
            }
            live.forEach(SharedMemory.Segment::release);
            assertEquals(0, shm.take(1, DEFAULTS.shmArenaBytes()).offset(), "every range merged back into one");
        } finally {
            shm.close();
        }
    }
}
