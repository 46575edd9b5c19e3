package org.pario.io.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.pario.datatypes.Memory;

/**
 * A file on a local or POSIX file system, through one {@link FileChannel}: positional reads and writes (looped
 * until done, so no call is limited to 2 GiB), truncate, fsync and byte-range locks. Every capability but
 * concatenation.
 *
 * <p>With direct I/O asked for (ROMIO's {@code direct_write} and {@code direct_read} hints), the block-aligned
 * middle of each access goes through a second channel opened with {@code O_DIRECT}, straight from or into the
 * caller's buffer when that is a direct buffer aligned there too, else staged through aligned buffers, and the unaligned head and tail through the page cache; the kernel keeps the two coherent. Reads and
 * writes can be direct from a size on ({@code automatic}), so that small ones keep the page cache's help. Large
 * accesses then cost no page-cache memory (no allocation, no dirty-page throttling, no later writeback). Where the
 * file system refuses {@code O_DIRECT} (tmpfs before Linux 6.6), the file works as without it and
 * {@link #settingsInEffect()} says so.
 *
 * <p>On Java 22 and newer, with native access, accesses through the page cache move straight between the file and a
 * caller's Java array ({@link #takesArrays}): the kernel copies the array itself, where a heap buffer would be copied
 * into direct memory first.
 */
public final class LocalStorage implements Storage {
    private static final System.Logger LOG = System.getLogger(LocalStorage.class.getName());
    /** Bytes of one aligned staging buffer for direct accesses. */
    private static final int STAGING_BYTES = 8 << 20;

    /**
     * Which accesses bypass the page cache.
     *
     * @param read          reads
     * @param write         writes
     * @param readMinBytes  reads shorter than this go through the page cache: 0 when every read with a whole aligned
     *                      block in it is direct ({@code direct_read=true}), more for {@code direct_read=automatic}
     * @param writeMinBytes the same for writes ({@code direct_write})
     */
    public record DirectIo(boolean read, boolean write, long readMinBytes, long writeMinBytes) {
        /** Everything through the page cache. */
        public static final DirectIo NONE = new DirectIo(false, false);

        /** @throws IllegalArgumentException for a negative {@code readMinBytes} or {@code writeMinBytes} */
        public DirectIo {
            if (readMinBytes < 0 || writeMinBytes < 0) {
                throw new IllegalArgumentException("readMinBytes and writeMinBytes must be >= 0, got " + readMinBytes
                    + " and " + writeMinBytes);
            }
        }

        /**
         * Reads and writes direct or not, every size.
         *
         * @param read  reads
         * @param write writes
         */
        public DirectIo(final boolean read, final boolean write) {
            this(read, write, 0, 0);
        }

        /** @return {@code direct_read} as reported: true, automatic (direct from a size on) or false */
        String readSetting() {
            return setting(read, readMinBytes);
        }

        /** @return {@code direct_write} as reported */
        String writeSetting() {
            return setting(write, writeMinBytes);
        }

        private static String setting(final boolean on, final long minBytes) {
            return !on ? "false" : minBytes > 0 ? "automatic" : "true";
        }

        /** @return whether any access is direct */
        boolean any() {
            return read || write;
        }
    }

    private final FileChannel channel;
    /** The same file opened with {@code O_DIRECT}, or null when direct I/O is off or refused. */
    private final FileChannel directChannel;
    /** Volatile: a direct access the system refuses at run time turns direct I/O off for every thread. */
    private volatile DirectIo direct;
    /** What offsets, lengths and buffer addresses of direct accesses must be multiples of. */
    private final int directAlignment;
    private final ConcurrentLinkedQueue<ByteBuffer> staging = new ConcurrentLinkedQueue<>();
    /** Bytes written through {@code O_DIRECT}: tests see from it which writes bypassed the page cache. */
    private final java.util.concurrent.atomic.LongAdder directBytesWritten = new java.util.concurrent.atomic.LongAdder();
    /** Bytes read through {@code O_DIRECT}, for the same reason. */
    private final java.util.concurrent.atomic.LongAdder directBytesRead = new java.util.concurrent.atomic.LongAdder();
    /** Bytes of direct accesses copied through a staging buffer, for the same reason. */
    private final java.util.concurrent.atomic.LongAdder stagedBytes = new java.util.concurrent.atomic.LongAdder();
    /** Bytes written straight from Java arrays ({@link ArrayFiles}), for the same reason. */
    private final java.util.concurrent.atomic.LongAdder arrayBytesWritten =
        new java.util.concurrent.atomic.LongAdder();
    /** Bytes read straight into Java arrays, for the same reason. */
    private final java.util.concurrent.atomic.LongAdder arrayBytesRead = new java.util.concurrent.atomic.LongAdder();
    /** The file opened once more for {@link ArrayFiles}' calls (Java 22+), or -1 when arrays go through buffers. */
    private final int arrayFile;
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
        this(path, options, DirectIo.NONE);
    }

    /**
     * Opens a file, with direct I/O where asked for and the file system allows it.
     *
     * @param path    where
     * @param options how ({@code READ}, {@code WRITE}, {@code CREATE}, {@code CREATE_NEW}, ...)
     * @param direct  which accesses should bypass the page cache
     * @throws IOException as the file system reports it
     */
    public LocalStorage(final Path path, final Set<? extends OpenOption> options, final DirectIo direct)
        throws IOException {
        this(path, options, direct, null);
    }

    /**
     * Opens a file, with the direct channel given (tests stand in a channel that fails).
     *
     * @param directChannel the channel with {@code O_DIRECT}, or null to open it here
     */
    LocalStorage(final Path path, final Set<? extends OpenOption> options, final DirectIo direct,
                 final FileChannel directChannel) throws IOException {
        this.channel = open(path, options);
        this.writable = options.contains(java.nio.file.StandardOpenOption.WRITE);
        final Object key = java.nio.file.Files.readAttributes(path,
            java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        this.fileKey = key != null ? key : path.toRealPath();
        this.locks = RangeLocks.of(fileKey);
        this.blockSize = blockSize(path);
        this.directAlignment = (int) Math.max(4096, Math.min(blockSize, 1 << 20));
        FileChannel d = directChannel;
        if (d == null && direct.any()) {
            try {
                final Set<OpenOption> o = new java.util.HashSet<>(options);
                o.remove(java.nio.file.StandardOpenOption.CREATE);
                o.remove(java.nio.file.StandardOpenOption.CREATE_NEW);
                o.remove(java.nio.file.StandardOpenOption.TRUNCATE_EXISTING);
                if (readable) {
                    // a write-only file is read for sieving and holes, as through the main channel
                    o.add(java.nio.file.StandardOpenOption.READ);
                }
                o.add(com.sun.nio.file.ExtendedOpenOption.DIRECT);
                d = FileChannel.open(path, o);
            } catch (IOException | UnsupportedOperationException e) {
                // the file system has no O_DIRECT (older tmpfs, some network file systems): the page cache it is
                d = null;
            }
        }
        this.directChannel = d;
        this.direct = d == null ? DirectIo.NONE : direct;
        // the file exists now, so this open creates nothing; where it fails, arrays go through buffers
        this.arrayFile = ArrayFiles.AVAILABLE && (writable || readable) ? ArrayFiles.open(path.toString(), writable)
            : -1;
    }

    /** @return {@code direct_read} and {@code direct_write} as in effect ({@code false} where refused) */
    @Override
    public Map<String, String> settingsInEffect() {
        return Map.of("direct_read", direct.readSetting(), "direct_write", direct.writeSetting());
    }

    private static long blockSize(final Path path) {
        try {
            final long b = java.nio.file.Files.getFileStore(path).getBlockSize();
            return b > 0 ? b : 4096;
        } catch (IOException | UnsupportedOperationException e) {
            return 4096;
        }
    }

    /** @return true: a file channel copies a heap buffer through a temporary direct one, and direct I/O stages it */
    @Override
    public boolean prefersDirectBuffers() {
        return true;
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
        final long middleStart = alignUp(position);
        final long middleEnd = alignDown(position + dst.remaining());
        final DirectIo now = direct;
        if (!now.read() || dst.remaining() < now.readMinBytes() || middleEnd - middleStart < directAlignment) {
            return readBuffered(position, dst);
        }
        final int end = dst.limit();
        long done = 0;
        if (middleStart > position) {
            dst.limit(dst.position() + (int) (middleStart - position));
            done += readBuffered(position, dst);
            dst.limit(end);
            if (done < middleStart - position) {
                return done;
            }
        }
        if (aligned(dst)) {
            // the head is done: the buffer's position is where the middle starts
            final int from = dst.position();
            final ByteBuffer middle = dst.slice(from, (int) (middleEnd - middleStart));
            final long got = readDirectInto(middle, middleStart);
            dst.position(from + (int) got);
            done += got;
            if (got < middleEnd - middleStart) {
                return done;
            }
            return done + readBuffered(middleEnd, dst);
        }
        final ByteBuffer stage = takeStaging();
        try {
            for (long at = middleStart; at < middleEnd; ) {
                stage.clear().limit((int) Math.min(stage.capacity(), middleEnd - at));
                // a direct read stops short only at the end of the file, possibly mid-block, where no further
                // direct read may start
                try {
                    while (stage.hasRemaining() && stage.position() % directAlignment == 0) {
                        final int n = directChannel.read(stage, at + stage.position());
                        if (n <= 0) {
                            break;
                        }
                        directBytesRead.add(n);
                    }
                } catch (IOException e) {
                    refused("read", e);
                    final int staged = stage.position();
                    dst.put(stage.flip());
                    return done + staged + readBuffered(at + staged, dst);
                }
                final int wanted = stage.limit();
                final int got = stage.position();
                stagedBytes.add(got);
                stage.flip();
                dst.put(stage);
                done += got;
                at += got;
                if (got < wanted) {
                    return done;
                }
            }
        } finally {
            staging.offer(stage);
        }
        return done + readBuffered(middleEnd, dst);
    }

    /**
     * Whether the block-aligned middle of an access, starting at the buffer's position, may go between the disk
     * and the caller's buffer with no staging copy: a direct buffer whose memory there is aligned too.
     */
    private boolean aligned(final ByteBuffer b) {
        return b.isDirect() && Integer.bitCount(directAlignment) == 1
            && b.alignmentOffset(b.position(), directAlignment) == 0;
    }

    /**
     * Reads an aligned stretch straight into the caller's aligned direct buffer; after a refused read or a short
     * one (the end of the file, possibly mid-block) the rest goes through the page cache.
     *
     * @return the bytes read, fewer than asked only at the end of the file
     */
    private long readDirectInto(final ByteBuffer middle, final long at) throws IOException {
        try {
            while (middle.hasRemaining() && middle.position() % directAlignment == 0) {
                final int n = directChannel.read(middle, at + middle.position());
                if (n <= 0) {
                    break;
                }
                directBytesRead.add(n);
            }
        } catch (IOException e) {
            refused("read", e);
        }
        if (middle.hasRemaining() && middle.position() % directAlignment != 0) {
            // a short direct read ended inside the last block of the file: nothing more to read there
            return middle.position();
        }
        return middle.position() + readBuffered(at + middle.position(), middle);
    }

    private long readBuffered(final long position, final ByteBuffer dst) throws IOException {
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

    /**
     * @return true for accesses through the page cache on Java 22+ with native access: the kernel then copies
     *     between the page cache and the array; direct ones need aligned memory, which an array is not
     */
    @Override
    public boolean takesArrays(final long position, final long length, final boolean write) {
        if (arrayFile < 0 || (write ? !writable : !readable)) {
            return false;
        }
        final DirectIo now = direct;
        return write ? !goesDirect(now.write(), now.writeMinBytes(), position, length)
            : !goesDirect(now.read(), now.readMinBytes(), position, length);
    }

    /** @return whether an access would take its aligned middle through {@code O_DIRECT}, as read and write decide */
    private boolean goesDirect(final boolean on, final long minBytes, final long position, final long length) {
        return on && length >= minBytes && alignDown(position + length) - alignUp(position) >= directAlignment;
    }

    @Override
    public void write(final long position, final Object array, final long offset, final long length)
        throws IOException {
        long done = 0;
        while (done < length) {
            final long n = ArrayFiles.write(arrayFile, array, offset + done, length - done, position + done);
            if (n <= 0) {
                // the channel tells why (a full disk, say) or writes it after all
                writeCopied(position + done, array, offset + done, length - done);
                return;
            }
            arrayBytesWritten.add(n);
            done += n;
        }
    }

    @Override
    public long read(final long position, final Object array, final long offset, final long length)
        throws IOException {
        long done = 0;
        while (done < length) {
            final long n = ArrayFiles.read(arrayFile, array, offset + done, length - done, position + done);
            if (n == 0) {
                return done;
            }
            if (n < 0) {
                return done + readCopied(position + done, array, offset + done, length - done);
            }
            arrayBytesRead.add(n);
            done += n;
        }
        return done;
    }

    /** Writes bytes of an array through the channel, a buffer's worth at a time. */
    private void writeCopied(final long position, final Object array, final long offset, final long length)
        throws IOException {
        final Memory from = Memory.ofObject(array);
        final ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(length, 1 << 20));
        final Memory through = Memory.of(buffer);
        for (long done = 0; done < length; ) {
            final int n = (int) Math.min(buffer.capacity(), length - done);
            Memory.copyRuns(from, offset + done, 0, through, 0, 0, n, 1);
            writeBuffered(position + done, buffer.clear().limit(n));
            done += n;
        }
    }

    /** Reads into an array through the channel, a buffer's worth at a time; fewer bytes only at the end. */
    private long readCopied(final long position, final Object array, final long offset, final long length)
        throws IOException {
        final Memory into = Memory.ofObject(array);
        final ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(length, 1 << 20));
        final Memory through = Memory.of(buffer);
        long done = 0;
        while (done < length) {
            final int want = (int) Math.min(buffer.capacity(), length - done);
            final int got = (int) readBuffered(position + done, buffer.clear().limit(want));
            Memory.copyRuns(through, 0, 0, into, offset + done, 0, got, 1);
            done += got;
            if (got < want) {
                break;
            }
        }
        return done;
    }

    @Override
    public void write(final long position, final ByteBuffer src) throws IOException {
        final long middleStart = alignUp(position);
        final long middleEnd = alignDown(position + src.remaining());
        final DirectIo now = direct;
        if (!now.write() || src.remaining() < now.writeMinBytes() || middleEnd - middleStart < directAlignment) {
            writeBuffered(position, src);
            return;
        }
        final int end = src.limit();
        if (middleStart > position) {
            src.limit(src.position() + (int) (middleStart - position));
            writeBuffered(position, src);
            src.limit(end);
        }
        if (aligned(src)) {
            // the head is done: the buffer's position is where the middle starts
            final int from = src.position();
            final ByteBuffer middle = src.slice(from, (int) (middleEnd - middleStart));
            writeDirectFrom(middle, middleStart);
            src.position(from + middle.capacity());
            writeBuffered(middleEnd, src);
            return;
        }
        final ByteBuffer stage = takeStaging();
        try {
            for (long at = middleStart; at < middleEnd; ) {
                final int n = (int) Math.min(stage.capacity(), middleEnd - at);
                stage.clear();
                src.limit(src.position() + n);
                stage.put(src);
                src.limit(end);
                stage.flip();
                stagedBytes.add(n);
                if (!writeDirectFrom(stage, at)) {
                    writeBuffered(at + n, src);
                    return;
                }
                at += n;
            }
        } finally {
            staging.offer(stage);
        }
        writeBuffered(middleEnd, src);
    }

    /**
     * Writes an aligned stretch from an aligned direct buffer, the caller's or a staging one.
     *
     * @return false when the system refused the direct write: the stretch went through the page cache instead
     */
    private boolean writeDirectFrom(final ByteBuffer middle, final long at) throws IOException {
        try {
            while (middle.hasRemaining()) {
                if (middle.position() % directAlignment != 0) {
                    // after a short direct write the rest no longer starts on a block
                    writeBuffered(at + middle.position(), middle);
                } else {
                    directBytesWritten.add(directChannel.write(middle, at + middle.position()));
                }
            }
        } catch (IOException e) {
            refused("write", e);
            // the whole stretch again through the page cache: a real storage error shows there again
            writeBuffered(at, middle.rewind());
            return false;
        }
        return true;
    }

    /** @return the bytes written through {@code O_DIRECT} so far */
    long directBytesWritten() {
        return directBytesWritten.sum();
    }

    /** @return bytes read through {@code O_DIRECT} so far */
    long directBytesRead() {
        return directBytesRead.sum();
    }

    /** @return bytes of direct accesses that went through a staging buffer so far */
    long stagedBytes() {
        return stagedBytes.sum();
    }

    /** @return bytes written straight from Java arrays so far */
    long arrayBytesWritten() {
        return arrayBytesWritten.sum();
    }

    /** @return bytes read straight into Java arrays so far */
    long arrayBytesRead() {
        return arrayBytesRead.sum();
    }

    /** Turns direct I/O off for this file after the system refused a direct access. */
    private void refused(final String what, final IOException e) {
        if (direct.any()) {
            direct = DirectIo.NONE;
            LOG.log(System.Logger.Level.WARNING, "a direct " + what + " failed (" + e + "); this file goes through "
                + "the page cache from now on");
        }
    }

    private void writeBuffered(final long position, final ByteBuffer src) throws IOException {
        long done = 0;
        while (src.hasRemaining()) {
            done += channel.write(src, position + done);
        }
    }

    private long alignUp(final long offset) {
        return (offset + directAlignment - 1) / directAlignment * directAlignment;
    }

    private long alignDown(final long offset) {
        return offset / directAlignment * directAlignment;
    }

    /** @return an aligned staging buffer: one per concurrent direct access, kept for the next */
    private ByteBuffer takeStaging() {
        final ByteBuffer pooled = staging.poll();
        if (pooled != null) {
            return pooled;
        }
        final int bytes = STAGING_BYTES / directAlignment * directAlignment;
        // O_DIRECT needs memory aligned to the device's logical block, at most a page, whatever the file system's
        // block: a page serves block sizes that are not powers of two
        return DirectBuffers.allocate(bytes, Integer.bitCount(directAlignment) == 1 ? directAlignment : 4096);
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
        try (FileChannel d = directChannel) {
            channel.close();
        } finally {
            if (arrayFile >= 0) {
                ArrayFiles.close(arrayFile);
            }
            locks.release(fileKey);
        }
    }
}
