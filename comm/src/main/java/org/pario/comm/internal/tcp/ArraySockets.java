package org.pario.comm.internal.tcp;

/**
 * Socket reads into and writes from a Java array, which Java 17 cannot do: there every heap byte goes through
 * direct memory on its way. The multi-release jar's class for Java 22 and newer, {@code META-INF/versions/22}, does
 * them through the foreign function API; this one says it cannot.
 */
final class ArraySockets {
    /**
     * Whether {@link #write}, {@link #writeHeader} and {@link #read} can be called in this JVM; never here. Not a
     * constant, which the compiler would copy into the callers and so hide the versioned class's value from them.
     */
    static final boolean AVAILABLE = Boolean.parseBoolean("false");

    /** At most this many bytes a call moves. */
    static final long MAX_CALL_BYTES = 4L << 20;

    private ArraySockets() {
    }

    /**
     * Writes what a non-blocking socket takes of a frame's header in direct memory, telling the kernel that the data
     * follows at once ({@code MSG_MORE}), so that header and data leave in the same segments.
     *
     * @param socket  the socket's file descriptor
     * @param address the header's first byte
     * @param length  its length
     * @return the bytes the socket took; 0 or less when it took none
     */
    static long writeHeader(final int socket, final long address, final long length) {
        throw new UnsupportedOperationException("header writes need Java 22 or newer");
    }

    /**
     * Writes what a non-blocking socket takes of {@code length} bytes of an array.
     *
     * @param socket the socket's file descriptor
     * @param array  a {@code byte[]} or primitive array
     * @param offset the first byte, counted from the array's first element
     * @param length how many bytes
     * @return the bytes the socket took; 0 or less when it took none (full, or failed: the caller writes the rest
     *     another way, which tells which)
     */
    static long write(final int socket, final Object array, final long offset, final long length) {
        throw new UnsupportedOperationException("socket writes from arrays need Java 22 or newer");
    }

    /**
     * Reads what a non-blocking socket has, up to {@code length} bytes, into an array.
     *
     * @param socket the socket's file descriptor
     * @param array  a {@code byte[]} or primitive array
     * @param offset where the first byte goes, counted from the array's first element
     * @param length at most this many bytes
     * @return the bytes read; 0 or less when none (nothing there, the end of the stream, or failed: the caller reads
     *     another way, which tells which)
     */
    static long read(final int socket, final Object array, final long offset, final long length) {
        throw new UnsupportedOperationException("socket reads into arrays need Java 22 or newer");
    }
}
