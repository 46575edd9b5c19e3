package org.pario.io.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A direct access the system refuses after the file opened (here: the direct channel is closed, so every direct
 * access fails) is done again through the page cache, and direct I/O stays off for that file: no byte is lost and
 * {@code settingsInEffect()} tells.
 */
@Timeout(30)
class DirectFallbackTest {
    private static final Set<StandardOpenOption> RW = Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    @TempDir
    Path dir;

    private static FileChannel refusing(final Path file) throws IOException {
        final FileChannel c = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        c.close();
        return c;
    }

    @Test
    void aRefusedDirectWriteIsDoneThroughThePageCache() throws IOException {
        final Path file = dir.resolve("w.bin");
        final byte[] data = new byte[(20 << 20) + 123];
        new Random(5).nextBytes(data);
        try (LocalStorage s = new LocalStorage(file, RW, new LocalStorage.DirectIo(true, true), refusing(file))) {
            assertEquals(Map.of("direct_read", "true", "direct_write", "true"), s.settingsInEffect());
            s.write(100, ByteBuffer.wrap(data));
            assertEquals(Map.of("direct_read", "false", "direct_write", "false"), s.settingsInEffect());
            s.write(100 + data.length, ByteBuffer.wrap(data, 0, 5000));
        }
        final byte[] got = Files.readAllBytes(file);
        assertEquals(100 + data.length + 5000, got.length);
        assertArrayEquals(data, Arrays.copyOfRange(got, 100, 100 + data.length));
        assertArrayEquals(Arrays.copyOf(data, 5000), Arrays.copyOfRange(got, 100 + data.length, got.length));
    }

    @Test
    void aRefusedDirectReadIsDoneThroughThePageCache() throws IOException {
        final Path file = dir.resolve("r.bin");
        final byte[] data = new byte[(9 << 20) + 7];
        new Random(6).nextBytes(data);
        Files.write(file, data);
        try (LocalStorage s = new LocalStorage(file, RW, new LocalStorage.DirectIo(true, false), refusing(file))) {
            final ByteBuffer back = ByteBuffer.allocate(data.length - 10);
            assertEquals(data.length - 10, s.read(10, back));
            assertArrayEquals(Arrays.copyOfRange(data, 10, data.length), back.array());
            assertEquals("false", s.settingsInEffect().get("direct_read"));
        }
    }

    @Test
    void refusedAccessesFromAndIntoAlignedDirectBuffersAreDoneThroughThePageCache() throws IOException {
        final Path file = dir.resolve("d.bin");
        final byte[] data = new byte[(3 << 20) + 4096];
        new Random(7).nextBytes(data);
        final ByteBuffer out = aligned(data.length).put(data).flip();
        try (LocalStorage s = new LocalStorage(file, RW, new LocalStorage.DirectIo(false, true), refusing(file))) {
            s.write(0, out);
            assertEquals("false", s.settingsInEffect().get("direct_write"));
        }
        assertArrayEquals(data, Files.readAllBytes(file));
        try (LocalStorage s = new LocalStorage(file, RW, new LocalStorage.DirectIo(true, false), refusing(file))) {
            final ByteBuffer back = aligned(data.length + 4096);
            assertEquals(data.length, s.read(0, back));
            assertEquals("false", s.settingsInEffect().get("direct_read"));
            final byte[] got = new byte[data.length];
            back.flip().get(got);
            assertArrayEquals(data, got);
        }
    }

    private static ByteBuffer aligned(final int bytes) {
        return ByteBuffer.allocateDirect(bytes + (2 << 20)).alignedSlice(1 << 20).limit(bytes).slice();
    }
}
