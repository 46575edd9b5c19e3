package org.pario.io.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;

/**
 * A file on a local or POSIX file system, through one {@link FileChannel}: positional reads and writes (looped
 * until done, so no call is limited to 2 GiB), truncate, fsync and byte-range locks. Every capability but
 * concatenation.
 */
public final class LocalStorage implements Storage {
    private final FileChannel channel;
    private final Object fileKey;
    private final RangeLocks locks;
    private final long blockSize;
    /** The system refuses exclusive locks on a file opened read-only, and shared ones on a write-only file. */
    private final boolean writable;
    /** Set by {@link #open}: false only for a write-only file the system would not let us read. */
    private boolean readable;

    /**
     * Opens a file.
     *
     * @param path    where
     * @param options how ({@code READ}, {@code WRITE}, {@code CREATE}, {@code CREATE_NEW}, ...)
     * @throws IOException as the file system reports it
     */
    public LocalStorage(final Path path, final Set<? extends OpenOption> options) throws IOException {
        this.channel = open(path, options);
        this.writable = options.contains(java.nio.file.StandardOpenOption.WRITE);
        final Object key = java.nio.file.Files.readAttributes(path,
            java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        this.fileKey = key != null ? key : path.toRealPath();
        this.locks = RangeLocks.of(fileKey);
        this.blockSize = blockSize(path);
    }

    private static long blockSize(final Path path) {
        try {
            final long b = java.nio.file.Files.getFileStore(path).getBlockSize();
            return b > 0 ? b : 4096;
        } catch (IOException | UnsupportedOperationException e) {
            return 4096;
        }
    }

    @Override
    public long preferredBlockSize() {
        return blockSize;
    }

    /**
     * Opens a file written only by the caller for reading too, when the system allows it, because data sieving
     * reads before it writes (as ROMIO does); falls back to write-only, which disables sieving.
     */
    private FileChannel open(final Path path, final Set<? extends OpenOption> options) throws IOException {
        readable = options.contains(java.nio.file.StandardOpenOption.READ);
        if (!readable && options.contains(java.nio.file.StandardOpenOption.WRITE)) {
            final Set<OpenOption> both = new java.util.HashSet<>(options);
            both.add(java.nio.file.StandardOpenOption.READ);
            try {
                final FileChannel c = FileChannel.open(path, both);
                readable = true;
                return c;
            } catch (java.nio.file.AccessDeniedException e) {
                // write permission only
            }
        }
        return FileChannel.open(path, options);
    }

    @Override
    public Set<Capability> capabilities() {
        final Set<Capability> c = EnumSet.allOf(Capability.class);
        c.remove(Capability.CONCAT);
        if (!readable) {
            c.remove(Capability.POSITIONAL_READ);
        }
        return c;
    }

    @Override
    public long size() throws IOException {
        return channel.size();
    }

    @Override
    public long read(final long position, final ByteBuffer dst) throws IOException {
        long done = 0;
        while (dst.hasRemaining()) {
            final int n = channel.read(dst, position + done);
            if (n < 0) {
                break;
            }
            done += n;
        }
        return done;
    }

    @Override
    public void write(final long position, final ByteBuffer src) throws IOException {
        long done = 0;
        while (src.hasRemaining()) {
            done += channel.write(src, position + done);
        }
    }

    @Override
    public void truncate(final long size) throws IOException {
        if (size < channel.size()) {
            channel.truncate(size);
        } else if (size > channel.size()) {
            channel.write(ByteBuffer.allocate(1), size - 1);
        }
    }

    @Override
    public void sync() throws IOException {
        channel.force(true);
    }

    @Override
    public AutoCloseable lock(final long position, final long length) throws IOException {
        final long end = position + Math.max(1, length);
        final long[] range;
        try {
            range = locks.acquire(position, end);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while waiting for a lock on bytes " + position
                + " to " + end);
        }
        final FileLock lock;
        try {
            lock = channel.lock(position, end - position, !writable);
        } catch (IOException | RuntimeException e) {
            locks.unlock(range);
            throw e;
        }
        return () -> {
            try {
                lock.release();
            } finally {
                locks.unlock(range);
            }
        };
    }

    @Override
    public void close() throws IOException {
        try {
            channel.close();
        } finally {
            locks.release(fileKey);
        }
    }
}
