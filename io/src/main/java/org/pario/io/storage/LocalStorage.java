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
 * until done, so no call is limited to 2 GiB), truncate, fsync and byte-range locks. All capabilities.
 */
public final class LocalStorage implements Storage {
    private final FileChannel channel;

    /**
     * Opens a file.
     *
     * @param path    where
     * @param options how ({@code READ}, {@code WRITE}, {@code CREATE}, {@code CREATE_NEW}, ...)
     * @throws IOException as the file system reports it
     */
    public LocalStorage(final Path path, final Set<? extends OpenOption> options) throws IOException {
        this.channel = FileChannel.open(path, options);
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.allOf(Capability.class);
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
        final FileLock lock = channel.lock(position, Math.max(1, length), false);
        return lock::release;
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
