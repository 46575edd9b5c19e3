package org.pario.io.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code direct_write=automatic} and {@code direct_read=automatic}: accesses from the threshold on bypass the page
 * cache (their aligned middle), shorter ones do not, and the file holds and gives back every byte either way. The file lives under the build directory, on the disk the
 * project is checked out on, because a temporary directory may be a file system that refuses {@code O_DIRECT}.
 */
@Timeout(30)
class DirectAutomaticTest {
    private static final Set<StandardOpenOption> CREATE_RW = Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    private static final int THRESHOLD = 1 << 20;
    private Path dir;

    @BeforeEach
    void makeDirectory() throws IOException {
        dir = DiskDirectory.create("a");
    }

    @AfterEach
    void removeDirectory() throws IOException {
        DiskDirectory.delete(dir);
    }

    @Test
    void writesFromTheThresholdOnAreDirectAndShorterOnesAreNot() throws IOException {
        final Path file = dir.resolve("auto.bin");
        final byte[] data = new byte[(3 << 20) + 777];
        new Random(11).nextBytes(data);
        try (LocalStorage s = new LocalStorage(file, CREATE_RW, new LocalStorage.DirectIo(false, true, 0, THRESHOLD))) {
            assertEquals(Map.of("direct_read", "false", "direct_write", "automatic"), s.settingsInEffect(),
                "the file system under " + file.toAbsolutePath() + " refuses O_DIRECT, so this test cannot check it");
            // one byte short of the threshold, though it holds whole aligned blocks: the page cache takes it
            s.write(0, ByteBuffer.wrap(data, 0, THRESHOLD - 1));
            assertEquals(0, s.directBytesWritten());
            // from offset 100: the head up to 4096 and the tail after the last whole block go through the page
            // cache, the blocks between directly
            final long at = THRESHOLD + 100;
            s.write(at, ByteBuffer.wrap(data));
            assertEquals(wholeBlocks(at, data.length, s), s.directBytesWritten());
            final ByteBuffer back = ByteBuffer.allocate(data.length);
            assertEquals(data.length, s.read(at, back));
            assertArrayEquals(data, back.array());
            final ByteBuffer first = ByteBuffer.allocate(THRESHOLD - 1);
            assertEquals(THRESHOLD - 1, s.read(0, first));
            assertArrayEquals(Arrays.copyOf(data, THRESHOLD - 1), first.array());
            assertEquals(0, s.directBytesRead(), "direct_read is off");
        }
    }

    @Test
    void readsFromTheThresholdOnAreDirectAndShorterOnesAreNot() throws IOException {
        final Path file = dir.resolve("auto-read.bin");
        final byte[] data = new byte[(3 << 20) + 777];
        new Random(13).nextBytes(data);
        Files.write(file, data);
        try (LocalStorage s = new LocalStorage(file, CREATE_RW, new LocalStorage.DirectIo(true, false, THRESHOLD, 0))) {
            assertEquals(Map.of("direct_read", "automatic", "direct_write", "false"), s.settingsInEffect(),
                "the file system under " + file.toAbsolutePath() + " refuses O_DIRECT, so this test cannot check it");
            final ByteBuffer shorter = ByteBuffer.allocate(THRESHOLD - 1);
            assertEquals(THRESHOLD - 1, s.read(0, shorter));
            assertEquals(0, s.directBytesRead());
            assertArrayEquals(Arrays.copyOf(data, THRESHOLD - 1), shorter.array());
            // from an unaligned offset to past the end of the file: the head and the partial last block through the
            // page cache, the whole blocks between directly, and the count says where the file ended
            final int at = 100;
            final ByteBuffer back = ByteBuffer.allocate(data.length);
            assertEquals(data.length - at, s.read(at, back));
            assertEquals(wholeBlocks(at, data.length - at, s), s.directBytesRead());
            assertArrayEquals(Arrays.copyOfRange(data, at, data.length), Arrays.copyOf(back.array(), data.length - at));
            assertEquals(0, s.directBytesWritten());
        }
    }

    /** @return the bytes of whole direct-I/O blocks inside [at, at + length) */
    private static long wholeBlocks(final long at, final long length, final LocalStorage s) {
        final long block = Math.max(4096, Math.min(s.preferredBlockSize(), 1 << 20));
        final long start = (at + block - 1) / block * block;
        final long end = (at + length) / block * block;
        return end - start;
    }

    @Test
    void trueMakesEveryWriteWithAWholeBlockDirectAndFalseNone() throws IOException {
        final byte[] data = new byte[64 << 10];
        new Random(12).nextBytes(data);
        final Path direct = dir.resolve("true.bin");
        try (LocalStorage s = new LocalStorage(direct, CREATE_RW, new LocalStorage.DirectIo(false, true))) {
            assertEquals("true", s.settingsInEffect().get("direct_write"));
            s.write(0, ByteBuffer.wrap(data));
            assertEquals(data.length, s.directBytesWritten());
        }
        final Path buffered = dir.resolve("false.bin");
        try (LocalStorage s = new LocalStorage(buffered, CREATE_RW, LocalStorage.DirectIo.NONE)) {
            assertEquals("false", s.settingsInEffect().get("direct_write"));
            s.write(0, ByteBuffer.wrap(data));
            assertEquals(0, s.directBytesWritten());
        }
        assertArrayEquals(data, Files.readAllBytes(direct));
        assertArrayEquals(data, Files.readAllBytes(buffered));
    }

    @Test
    void theHintsChooseTheMode() {
        assertEquals(new LocalStorage.DirectIo(true, true, 1 << 20, 1 << 20), Storages.directIo(Map.of("direct_write",
            "automatic", "pario_direct_write_threshold", "1048576", "direct_read", "automatic",
            "pario_direct_read_threshold", "1048576")));
        // a threshold of 0 still means "automatic": reported as such, and every whole block is direct
        assertEquals(new LocalStorage.DirectIo(true, true, 0, 1), Storages.directIo(Map.of("direct_write", "automatic",
            "pario_direct_write_threshold", "0", "direct_read", "true")));
        assertEquals(new LocalStorage.DirectIo(true, false, 1, 0), Storages.directIo(Map.of("direct_read",
            "automatic", "pario_direct_read_threshold", "0")));
        assertEquals(new LocalStorage.DirectIo(false, true, 0, 0), Storages.directIo(Map.of("direct_write", "true")));
        assertEquals(LocalStorage.DirectIo.NONE, Storages.directIo(Map.of()));
        assertThrows(IllegalArgumentException.class, () -> new LocalStorage.DirectIo(false, true, 0, -1));
        assertThrows(IllegalArgumentException.class, () -> new LocalStorage.DirectIo(true, false, -1, 0));
    }
}
