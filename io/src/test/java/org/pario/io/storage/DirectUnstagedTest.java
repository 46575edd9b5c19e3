package org.pario.io.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * Direct accesses from and into a direct buffer aligned where the access's aligned middle starts skip the staging
 * copy; a heap buffer or a misaligned direct one is staged; the file holds and gives back every byte either way,
 * head, tail and a last block cut short by the end of the file included.
 */
@Timeout(30)
class DirectUnstagedTest {
    private static final Set<StandardOpenOption> CREATE_RW = Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    private static final int BLOCK = 4096;
    private Path dir;

    @BeforeEach
    void makeDirectory() throws IOException {
        dir = DiskDirectory.create("u");
    }

    @AfterEach
    void removeDirectory() throws IOException {
        DiskDirectory.delete(dir);
    }

    private static ByteBuffer alignedDirect(final int bytes, final int skew) {
        final ByteBuffer b = ByteBuffer.allocateDirect(bytes + 2 * (1 << 20)).alignedSlice(1 << 20);
        return b.position(skew).limit(skew + bytes).slice();
    }

    @Test
    void anAlignedDirectBufferGoesStraightToTheDiskAndBack() throws IOException {
        final Path file = dir.resolve("straight.bin");
        final byte[] data = new byte[(2 << 20) + 3 * BLOCK];
        new Random(21).nextBytes(data);
        try (LocalStorage s = new LocalStorage(file, CREATE_RW, new LocalStorage.DirectIo(true, true))) {
            assertEquals(Map.of("direct_read", "true", "direct_write", "true"), s.settingsInEffect(),
                "the file system under " + file.toAbsolutePath() + " refuses O_DIRECT, so this test cannot check it");
            final long block = Math.max(BLOCK, Math.min(s.preferredBlockSize(), 1 << 20));
            final ByteBuffer out = alignedDirect(data.length, 0).put(data).flip();
            s.write(0, out);
            assertEquals(data.length, out.position());
            assertEquals(data.length / block * block, s.directBytesWritten());
            assertEquals(0, s.stagedBytes());

            final ByteBuffer in = alignedDirect(data.length, 0);
            assertEquals(data.length, s.read(0, in));
            assertEquals(data.length, in.position());
            assertEquals(data.length / block * block, s.directBytesRead());
            assertEquals(0, s.stagedBytes());
            assertArrayEquals(data, bytes(in.flip()));
        }
        assertArrayEquals(data, Files.readAllBytes(file));
    }

    @Test
    void anUnalignedStartIsAlignedByItsHeadAndTheRestGoesStraight() throws IOException {
        final Path file = dir.resolve("head.bin");
        final byte[] data = new byte[(1 << 20) + 5 * BLOCK + 123];
        new Random(22).nextBytes(data);
        Files.write(file, data);
        try (LocalStorage s = new LocalStorage(file, CREATE_RW, new LocalStorage.DirectIo(true, true))) {
            // the buffer is skewed like the file offset: after the 100-byte head both are on a block
            final int at = BLOCK - 100;
            final ByteBuffer in = alignedDirect(data.length - at + 1000, BLOCK - 100);
            // past the end of the file: the short count says where it ended, the last partial block included
            assertEquals(data.length - at, s.read(at, in));
            assertEquals(0, s.stagedBytes());
            assertArrayEquals(Arrays.copyOfRange(data, at, data.length), bytes(in.flip()));

            final byte[] more = new byte[(1 << 20) + 77];
            new Random(23).nextBytes(more);
            final ByteBuffer out = alignedDirect(more.length, BLOCK - 100).put(more).flip();
            s.write(at, out);
            assertEquals(0, s.stagedBytes());
            System.arraycopy(more, 0, data, at, more.length);
        }
        assertArrayEquals(data, Files.readAllBytes(file));
    }

    @Test
    void heapAndMisalignedBuffersAreStaged() throws IOException {
        final Path file = dir.resolve("staged.bin");
        final byte[] data = new byte[1 << 20];
        new Random(24).nextBytes(data);
        try (LocalStorage s = new LocalStorage(file, CREATE_RW, new LocalStorage.DirectIo(true, true))) {
            s.write(0, ByteBuffer.wrap(data));
            assertEquals(data.length, s.stagedBytes());
            // direct, but one byte off the block where the file offset is on one
            final ByteBuffer skewed = alignedDirect(data.length, 1);
            assertEquals(data.length, s.read(0, skewed));
            assertEquals(2L * data.length, s.stagedBytes());
            assertArrayEquals(data, bytes(skewed.flip()));
            assertEquals(2L * data.length, s.directBytesRead() + s.directBytesWritten());
        }
        assertArrayEquals(data, Files.readAllBytes(file));
    }

    private static byte[] bytes(final ByteBuffer b) {
        final byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }
}
