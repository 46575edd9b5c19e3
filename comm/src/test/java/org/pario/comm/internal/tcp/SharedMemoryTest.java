package org.pario.comm.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The shared-memory staging area: arena space, what a receiver agrees to map, clean-up after dead processes. */
@Timeout(60)
class SharedMemoryTest {
    @Test
    void arenaSpaceIsTakenFirstFitAndMergedWhenGivenBack() {
        final SharedMemory shm = SharedMemory.open();
        assertNotNull(shm, "/dev/shm is writable on the machines the tests run on");
        try {
            final int third = SharedMemory.ARENA_BYTES / 3;
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
            assertEquals(0, shm.take(1, SharedMemory.ARENA_BYTES).offset());
            assertTrue(SharedMemory.touch(shm.take(2, 4096 * 3)));
        } finally {
            shm.close();
        }
        assertFalse(Files.exists(shm.directory()), "closing removes the rank's directory");
    }

    @Test
    void aReceiverMapsOnlyPariosArenasAndOnlyTheRangesTheyHold() throws IOException {
        final SharedMemory sender = SharedMemory.open();
        final SharedMemory receiver = SharedMemory.open();
        try {
            final SharedMemory.Segment s = sender.take(1, 8192);
            s.buffer().putLong(0, 0x1234_5678_9ABCL);
            final String path = s.arena().file().toString();
            assertEquals(0x1234_5678_9ABCL, receiver.announced(path, s.offset(), 8192).getLong(0));
            assertThrows(IOException.class, () -> receiver.announced("/etc/passwd", 0, 16));
            assertThrows(IOException.class, () -> receiver.announced(sender.directory().resolve("../../etc/passwd")
                .toString(), 0, 16));
            assertThrows(IOException.class, () -> receiver.announced(path, SharedMemory.ARENA_BYTES - 8, 16),
                "a range beyond the arena");
            assertThrows(IOException.class, () -> receiver.announced(path, -1, 16));
        } finally {
            sender.close();
            receiver.close();
        }
    }

    @Test
    void directoriesOfProcessesThatNoLongerRunAreSweptAtStart() throws Exception {
        final Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        final Path stale = SharedMemory.base().resolve("pario-" + gone.pid() + "-42");
        Files.createDirectories(stale);
        Files.write(stale.resolve("to-1"), new byte[4096]);
        final Path alive = SharedMemory.base().resolve("pario-" + ProcessHandle.current().pid() + "-43");
        Files.createDirectories(alive);
        try {
            final SharedMemory shm = SharedMemory.open();
            shm.close();
            assertFalse(Files.exists(stale), "left by a process that was killed");
            assertTrue(Files.exists(alive), "a running process's directory stays");
        } finally {
            Files.deleteIfExists(alive);
        }
    }
}
