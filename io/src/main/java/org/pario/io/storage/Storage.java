package org.pario.io.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * A file as a backend stores it. Backends declare what they can do ({@link #capabilities()}); the layers above
 * plan around them rather than emulating what is missing. Every call moves all the bytes it is asked to (short
 * reads and writes are looped inside), except reads past the end of the file, which return what exists.
 *
 * <p>Implementations are thread-safe for positional calls on distinct ranges.
 */
public interface Storage extends AutoCloseable {
    /** What a backend can do. */
    enum Capability {
        /** Writes at any offset, in any order. */
        POSITIONAL_WRITE,
        /** Reads at any offset. */
        POSITIONAL_READ,
        /** Shrinking or growing the file. */
        TRUNCATE,
        /** Byte-range locks between processes. */
        LOCK,
        /** Joining finished part files into the file in one step ({@link #concat}). */
        CONCAT
    }

    /** @return what this backend can do */
    Set<Capability> capabilities();

    /**
     * @return the unit in which the backend prefers data to be written (the file system's block size, an HDFS
     *     block): collective I/O aligns its file domains to it
     */
    long preferredBlockSize();

    /**
     * @return whether data moves between this backend and a direct buffer, aligned to
     *     {@link #preferredBlockSize()} (or at least a page), with fewer copies than with a heap buffer: callers
     *     that choose their buffers pack into direct ones then
     */
    default boolean prefersDirectBuffers() {
        return false;
    }

    /**
     * @return settings this backend took from the file's hints, as they are in effect (a file system that refuses
     *     direct I/O reports {@code direct_write=false}); {@code ParallelFile.hints()} reports them
     */
    default java.util.Map<String, String> settingsInEffect() {
        return java.util.Map.of();
    }

    /**
     * Appends the contents of finished part files to this file and removes them, in one step; only backends with
     * {@link Capability#CONCAT}.
     *
     * @param parts locations of the parts, in order
     * @throws UnsupportedOperationException when the backend cannot
     */
    default void concat(final java.util.List<String> parts) throws IOException {
        throw new UnsupportedOperationException("this storage cannot concatenate files");
    }

    /** @return the file's size in bytes */
    long size() throws IOException;

    /**
     * Reads {@code dst.remaining()} bytes from {@code position}, fewer only at the end of the file.
     *
     * @return the number of bytes read
     */
    long read(long position, ByteBuffer dst) throws IOException;

    /** Writes all of {@code src} at {@code position}, extending the file if needed. */
    void write(long position, ByteBuffer src) throws IOException;

    /**
     * Whether an access of these bytes can move straight between the file and a Java array, with
     * {@link #write(long, Object, long, long)} and {@link #read(long, Object, long, long)}, rather than through a
     * buffer the caller packs: local files on Java 22 and newer, with native access, for accesses that go through
     * the page cache.
     *
     * @param position where the access starts in the file
     * @param length   its bytes
     * @param write    a write, else a read
     * @return true where the array calls may be made for this access
     */
    default boolean takesArrays(final long position, final long length, final boolean write) {
        return false;
    }

    /**
     * Writes {@code length} bytes of an array at {@code position}, extending the file if needed; only where
     * {@link #takesArrays} says so.
     *
     * @param position where in the file
     * @param array    a {@code byte[]} or primitive array
     * @param offset   the first byte, counted from the array's first element
     * @param length   how many bytes
     * @throws UnsupportedOperationException where this storage takes no arrays
     */
    default void write(final long position, final Object array, final long offset, final long length)
        throws IOException {
        throw new UnsupportedOperationException("this storage takes no arrays");
    }

    /**
     * Reads {@code length} bytes from {@code position} into an array, fewer only at the end of the file; only where
     * {@link #takesArrays} says so.
     *
     * @param position where in the file
     * @param array    a {@code byte[]} or primitive array
     * @param offset   where the first byte goes, counted from the array's first element
     * @param length   how many bytes
     * @return the bytes read
     * @throws UnsupportedOperationException where this storage takes no arrays
     */
    default long read(final long position, final Object array, final long offset, final long length)
        throws IOException {
        throw new UnsupportedOperationException("this storage takes no arrays");
    }

    /** Sets the file's size: truncates, or extends with zeros. */
    void truncate(long size) throws IOException;

    /** Forces written data to stable storage. */
    void sync() throws IOException;

    /**
     * Locks a byte range against other processes' locks (advisory).
     *
     * @return the lock, to close when done
     */
    AutoCloseable lock(long position, long length) throws IOException;

    /**
     * A file being written in order, for backends without positional writes: it becomes the bytes
     * {@code [start, start + length)} of this file when {@link #commitParts} joins it.
     */
    interface Part {
        /** Appends all of {@code data}. */
        void append(ByteBuffer data) throws IOException;

        /** Finishes the part (durably). */
        void close() throws IOException;
    }

    /**
     * Starts part {@code index} of a collective write (backends without {@link Capability#POSITIONAL_WRITE}).
     *
     * @param index the part's place among the parts of one write
     * @param start the file offset the part's first byte will have: the end of the file for the first part,
     *              a multiple of {@link #preferredBlockSize()} for the others (a backend may use it to top up
     *              the file's partial last block before joining the parts)
     * @return the part, empty
     */
    default Part openPart(final int index, final long start) throws IOException {
        throw new UnsupportedOperationException("this storage writes at any offset; it has no parts");
    }

    /**
     * Appends the closed parts with these indices, in this order, to the end of the file, in one step, and removes
     * them.
     */
    default void commitParts(final int[] indices) throws IOException {
        throw new UnsupportedOperationException("this storage writes at any offset; it has no parts");
    }

    /** Removes the parts with these indices, if they exist (after a failed write). */
    default void discardParts(final int[] indices) throws IOException {
        throw new UnsupportedOperationException("this storage writes at any offset; it has no parts");
    }

    /** @return how the location names itself in errors */
    default String describe() {
        return toString();
    }

    @Override
    void close() throws IOException;
}
