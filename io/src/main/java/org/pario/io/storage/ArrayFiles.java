package org.pario.io.storage;

/**
 * File reads into and writes from a Java array, which Java 17 cannot do: there a heap array's bytes go through a
 * direct buffer on their way to the kernel. The multi-release jar's class for Java 22 and newer,
 * {@code META-INF/versions/22}, makes the calls through the foreign function API; this one says it cannot.
 */
final class ArrayFiles {
    /**
     * Whether {@link #open}, {@link #write} and {@link #read} can be called in this JVM; never here. Not a constant,
     * which the compiler would copy into the callers and so hide the versioned class's value from them.
     */
    static final boolean AVAILABLE = Boolean.parseBoolean("false");

    private ArrayFiles() {
    }

    /**
     * Opens a file that already exists, for the calls below.
     *
     * @param path     the file
     * @param writable for writing too, else for reading only
     * @return a file descriptor, or -1 where the file cannot be opened that way
     */
    static int open(final String path, final boolean writable) {
        return -1;
    }

    /**
     * Writes bytes of an array at a file position, as much as one call takes.
     *
     * @param fd       from {@link #open}
     * @param array    a {@code byte[]} or primitive array
     * @param offset   the first byte, counted from the array's first element
     * @param length   how many bytes, at most
     * @param position where in the file
     * @return the bytes written; 0 or less when none (the caller writes the rest another way, which tells why)
     */
    static long write(final int fd, final Object array, final long offset, final long length, final long position) {
        throw new UnsupportedOperationException("file writes from arrays need Java 22 or newer");
    }

    /**
     * Reads bytes at a file position into an array, as much as one call gives.
     *
     * @param fd       from {@link #open}
     * @param array    a {@code byte[]} or primitive array
     * @param offset   where the first byte goes, counted from the array's first element
     * @param length   how many bytes, at most
     * @param position where in the file
     * @return the bytes read; 0 at the end of the file, less when the call failed (the caller reads another way,
     *     which tells why)
     */
    static long read(final int fd, final Object array, final long offset, final long length, final long position) {
        throw new UnsupportedOperationException("file reads into arrays need Java 22 or newer");
    }

    /** Closes a descriptor from {@link #open}. */
    static void close(final int fd) {
        // never opened here
    }
}
