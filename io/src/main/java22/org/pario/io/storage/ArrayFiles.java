package org.pario.io.storage;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * File reads into and writes from a Java array: {@code pread(2)} and {@code pwrite(2)} called through the foreign
 * function API with heap access ({@code Linker.Option.critical(true)}), so the kernel copies between the page cache
 * and the array itself, where Java 17 packs the array into direct memory first. The class this multi-release jar
 * uses on Java 22 and newer.
 *
 * <p>A critical call holds the garbage collector off while it runs, and a read may wait for the disk: each call moves
 * at most {@link #MAX_CALL_BYTES}, a millisecond or less from a local disk. Without native access for Pario's module
 * (the JVM's {@code --enable-native-access}), or where the linker cannot make the calls, {@link #AVAILABLE} is false
 * and arrays go through direct memory as on Java 17.
 */
final class ArrayFiles {
    /** At most this many bytes a call, so that no call holds the collector off for long. */
    static final long MAX_CALL_BYTES = 1L << 20;
    /** {@code ssize_t pwrite(int, const void *, size_t, off_t)}, and {@code pread} of the same shape. */
    private static final FunctionDescriptor TRANSFER = FunctionDescriptor.of(ValueLayout.JAVA_LONG,
        ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
    // critical with heap access: the calls take the array itself
    private static final MethodHandle PWRITE = linked("pwrite", TRANSFER, Linker.Option.critical(true));
    private static final MethodHandle PREAD = linked("pread", TRANSFER, Linker.Option.critical(true));
    /** {@code int open(const char *, int, ...)}: the mode is its one variadic argument. */
    private static final MethodHandle OPEN = linked("open", FunctionDescriptor.of(ValueLayout.JAVA_INT,
        ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle CLOSE = linked("close", FunctionDescriptor.of(ValueLayout.JAVA_INT,
        ValueLayout.JAVA_INT));
    /** Linux's {@code open} flags. */
    private static final int O_RDONLY = 0;
    private static final int O_RDWR = 2;
    private static final int O_CLOEXEC = 0x80000;
    /** Whether {@link #open}, {@link #write} and {@link #read} can be called in this JVM. */
    static final boolean AVAILABLE = PWRITE != null && PREAD != null && OPEN != null && CLOSE != null
        && System.getProperty("os.name", "").startsWith("Linux");

    private ArrayFiles() {
    }

    /** @return a downcall to the C library's {@code function}, or null where there is no native access or no call */
    private static MethodHandle linked(final String function, final FunctionDescriptor shape,
                                       final Linker.Option... options) {
        // asked first: linking a call without native access would have the JVM warn, or refuse it
        if (!ArrayFiles.class.getModule().isNativeAccessEnabled()) {
            return null;
        }
        try {
            final Linker linker = Linker.nativeLinker();
            return linker.downcallHandle(linker.defaultLookup().find(function).orElseThrow(), shape, options);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * Opens a file that already exists, for the calls below.
     *
     * @param path     the file
     * @param writable for writing too, else for reading only
     * @return a file descriptor, or -1 where the file cannot be opened that way
     */
    static int open(final String path, final boolean writable) {
        try (Arena arena = Arena.ofConfined()) {
            return (int) OPEN.invokeExact(arena.allocateFrom(path), (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC, 0);
        } catch (Throwable e) {
            return -1;
        }
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
        return transfer(PWRITE, fd, array, offset, length, position);
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
        return transfer(PREAD, fd, array, offset, length, position);
    }

    /** Calls {@link #PWRITE} or {@link #PREAD} on at most {@link #MAX_CALL_BYTES} of the array from {@code offset}. */
    private static long transfer(final MethodHandle call, final int fd, final Object array, final long offset,
                                 final long length, final long position) {
        final MemorySegment bytes = segment(array).asSlice(offset, Math.min(length, MAX_CALL_BYTES));
        try {
            return (long) call.invokeExact(fd, bytes, bytes.byteSize(), position);
        } catch (Throwable e) {
            throw new IllegalStateException("a file call on an array could not be made", e);
        }
    }

    /** Closes a descriptor from {@link #open}. */
    static void close(final int fd) {
        try {
            final int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable e) {
            throw new IllegalStateException("close(2) could not be called", e);
        }
    }

    private static MemorySegment segment(final Object array) {
        return switch (array) {
            case byte[] a -> MemorySegment.ofArray(a);
            case double[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            case char[] a -> MemorySegment.ofArray(a);
            default -> throw new IllegalArgumentException("not an array of bytes or primitives: " + array.getClass());
        };
    }
}
