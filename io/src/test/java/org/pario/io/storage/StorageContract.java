package org.pario.io.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

/**
 * What every storage backend must do, one test body for all of them: a backend's test extends this class and
 * names where its files go. Where a backend does not declare a capability, its test checks that the operation is
 * refused and leaves the file as it was.
 */
public abstract class StorageContract {
    /**
     * @param name a file name
     * @return a location for it in a directory of this test's own, which exists and starts empty
     */
    protected abstract String location(String name) throws Exception;

    private StorageProvider provider(final String location) {
        return Storages.providerOf(location);
    }

    private static ByteBuffer bytes(final int n, final int seed) {
        final byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return ByteBuffer.wrap(b);
    }

    private static byte[] readAll(final String location) throws IOException {
        try (Storage s = Storages.open(location, new StorageProvider.Request(true, false, false, false))) {
            final ByteBuffer b = ByteBuffer.allocate((int) s.size());
            s.read(0, b);
            return b.array();
        }
    }

    @Test
    void aCreatedFileReadsBackWholeAndReadsPastTheEndReturnWhatExists() throws Exception {
        final String f = location("created.bin");
        provider(f).create(f, bytes(5000, 1));
        assertArrayEquals(bytes(5000, 1).array(), readAll(f));
        try (Storage s = Storages.open(f, new StorageProvider.Request(true, false, false, false))) {
            assertEquals(5000, s.size());
            final ByteBuffer tail = ByteBuffer.allocate(100);
            assertEquals(50, s.read(4950, tail), "a read past the end returns the bytes that exist");
            assertEquals(0, s.read(6000, ByteBuffer.allocate(10)));
        }
    }

    @Test
    void missingFilesAndExclusiveCreatesFailAsTheNioExceptionsSay() throws Exception {
        final String f = location("missing.bin");
        assertThrows(NoSuchFileException.class, () -> Storages.open(f, new StorageProvider.Request(true, false,
            false, false)));
        assertThrows(NoSuchFileException.class, () -> provider(f).delete(f));
        provider(f).create(f, bytes(10, 2));
        assertThrows(FileAlreadyExistsException.class, () -> Storages.open(f, new StorageProvider.Request(true,
            true, true, true)).close());
        assertThrows(IOException.class, () -> provider(f).create(f, bytes(10, 3)));
        provider(f).delete(f);
        assertThrows(NoSuchFileException.class, () -> Storages.open(f, new StorageProvider.Request(true, false,
            false, false)));
    }

    @Test
    void theProviderDeclaresWhatItsFilesCanDo() throws Exception {
        final String f = location("caps.bin");
        provider(f).create(f, bytes(10, 4));
        try (Storage s = Storages.open(f, new StorageProvider.Request(true, false, false, false))) {
            assertEquals(provider(f).capabilities(), s.capabilities());
            assertTrue(s.capabilities().contains(Storage.Capability.POSITIONAL_READ), "every backend reads anywhere");
            assertTrue(s.preferredBlockSize() > 0);
        }
    }

    @Test
    void positionalWritesLandAtTheirOffsetsAndHolesReadAsZeros() throws Exception {
        final String f = location("positional.bin");
        if (!provider(f).capabilities().contains(Storage.Capability.POSITIONAL_WRITE)) {
            provider(f).create(f, bytes(10, 5));
            try (Storage s = Storages.open(f, new StorageProvider.Request(true, true, false, false))) {
                assertThrows(IOException.class, () -> s.write(0, bytes(10, 6)), "not declared, so refused");
            }
            assertArrayEquals(bytes(10, 5).array(), readAll(f), "and the file is as it was");
            return;
        }
        try (Storage s = Storages.open(f, new StorageProvider.Request(true, true, true, true))) {
            s.write(3000, bytes(1000, 5));
            s.write(0, bytes(1000, 6));
            s.sync();
            assertEquals(4000, s.size());
        }
        final byte[] all = readAll(f);
        assertArrayEquals(bytes(1000, 6).array(), Arrays.copyOfRange(all, 0, 1000));
        assertArrayEquals(new byte[2000], Arrays.copyOfRange(all, 1000, 3000));
        assertArrayEquals(bytes(1000, 5).array(), Arrays.copyOfRange(all, 3000, 4000));
    }

    @Test
    void truncateShrinksAndGrowsWithZeros() throws Exception {
        final String f = location("truncate.bin");
        provider(f).create(f, bytes(1000, 7));
        if (!provider(f).capabilities().contains(Storage.Capability.TRUNCATE)) {
            try (Storage s = Storages.open(f, new StorageProvider.Request(true, true, false, false))) {
                assertThrows(IOException.class, () -> s.truncate(100), "not declared, so refused");
            }
            assertArrayEquals(bytes(1000, 7).array(), readAll(f), "and the file is as it was");
            return;
        }
        try (Storage s = Storages.open(f, new StorageProvider.Request(true, true, false, false))) {
            s.truncate(100);
            assertEquals(100, s.size());
            s.truncate(300);
        }
        final byte[] all = readAll(f);
        assertArrayEquals(Arrays.copyOf(bytes(1000, 7).array(), 100), Arrays.copyOf(all, 100));
        assertArrayEquals(new byte[200], Arrays.copyOfRange(all, 100, 300));
    }

    @Test
    void concatAppendsTheSourcesInOrderAndRemovesThem() throws Exception {
        final String a = location("a.bin");
        final String b = location("b.bin");
        final String c = location("c.bin");
        final StorageProvider p = provider(a);
        p.create(a, bytes(3000, 8));
        p.create(b, bytes(2000, 9));
        p.create(c, bytes(1000, 10));
        p.concat(a, b, c);
        final ByteBuffer want = ByteBuffer.allocate(6000).put(bytes(3000, 8)).put(bytes(2000, 9)).put(bytes(1000, 10));
        assertArrayEquals(want.array(), readAll(a));
        assertThrows(NoSuchFileException.class, () -> p.delete(b));
        assertThrows(NoSuchFileException.class, () -> p.delete(c));
    }

    @Test
    void replaceRenamesOverTheTargetInOneStep() throws Exception {
        final String from = location(".new.tmp");
        final String to = location("published.bin");
        final StorageProvider p = provider(to);
        p.create(to, bytes(100, 11));
        p.create(from, bytes(200, 12));
        p.replace(from, to);
        assertArrayEquals(bytes(200, 12).array(), readAll(to));
        assertThrows(NoSuchFileException.class, () -> p.delete(from));
        final String fresh = location("fresh.bin");
        p.create(from, bytes(50, 13));
        p.replace(from, fresh);
        assertArrayEquals(bytes(50, 13).array(), readAll(fresh), "replacing where nothing was publishes the file");
    }
}
