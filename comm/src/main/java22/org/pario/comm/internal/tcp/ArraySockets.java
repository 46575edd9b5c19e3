package org.pario.comm.internal.tcp;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Socket reads into and writes from a Java array: {@code read(2)} and {@code write(2)} called through the foreign
 * function API with heap access ({@code Linker.Option.critical(true)}), so the kernel copies between the socket and
 * the array itself, where Java 17 goes through direct memory. The class this multi-release jar uses on Java 22 and
 * newer.
 *
 * <p>A critical call holds the garbage collector off while it runs; the sockets are non-blocking, so a call lasts
 * only as long as the kernel takes to copy what is there or what fits, and each call moves at most
 * {@link #MAX_CALL_BYTES}. Without native access for Pario's module (the JVM's {@code --enable-native-access}), or
 * where the linker cannot make the calls, {@link #AVAILABLE} is false and arrays go through direct memory as on
 * Java 17.
 */
final class ArraySockets {
    /** At most this many bytes a call, so that no call holds the collector off for long. */
    static final long MAX_CALL_BYTES = 4L << 20;
    /** {@code ssize_t write(int, void *, size_t)}, and {@code read} of the same shape. */
    private static final FunctionDescriptor TRANSFER = FunctionDescriptor.of(ValueLayout.JAVA_LONG,
        ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG);
    // critical with heap access: the calls take the array itself
    private static final MethodHandle WRITE = linked("write", TRANSFER, true);
    private static final MethodHandle READ = linked("read", TRANSFER, true);
    /** Linux's {@code MSG_MORE}: more data follows at once, so the kernel sends this with it. */
    private static final int MSG_MORE = 0x8000;
    private static final MethodHandle SEND = linked("send", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
        ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT), false);
    /** Whether {@link #write}, {@link #writeHeader} and {@link #read} can be called in this JVM. */
    static final boolean AVAILABLE = WRITE != null && READ != null && SEND != null;

    private ArraySockets() {
    }

    /** @return a downcall to the C library's {@code function}, or null where there is no native access or no call */
    private static MethodHandle linked(final String function, final FunctionDescriptor shape,
                                       final boolean heapAccess) {
        // asked first: linking a call without native access would have the JVM warn, or refuse it
        if (!ArraySockets.class.getModule().isNativeAccessEnabled()) {
            return null;
        }
        try {
            final Linker linker = Linker.nativeLinker();
            return linker.downcallHandle(linker.defaultLookup().find(function).orElseThrow(), shape,
                Linker.Option.critical(heapAccess));
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * Writes what a non-blocking socket takes of a frame's header in direct memory, telling the kernel that the data
     * follows at once ({@code MSG_MORE}): header and data then leave in the same segments, as one gathering write of
     * both would send them, instead of the header alone waking the receiver first.
     *
     * @param socket  the socket's file descriptor
     * @param address the header's first byte
     * @param length  its length
     * @return the bytes the socket took; 0 or less when it took none
     */
    static long writeHeader(final int socket, final long address, final long length) {
        try {
            return (long) SEND.invokeExact(socket, MemorySegment.ofAddress(address), length, MSG_MORE);
        } catch (Throwable e) {
            throw new IllegalStateException("send(2) of a header could not be called", e);
        }
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
        return transfer(WRITE, socket, array, offset, length);
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
        return transfer(READ, socket, array, offset, length);
    }

    /** Calls {@link #WRITE} or {@link #READ} on at most {@link #MAX_CALL_BYTES} of the array from {@code offset}. */
    private static long transfer(final MethodHandle call, final int socket, final Object array, final long offset,
                                 final long length) {
        final MemorySegment bytes = segment(array).asSlice(offset, Math.min(length, MAX_CALL_BYTES));
        try {
            return (long) call.invokeExact(socket, bytes, bytes.byteSize());
        } catch (Throwable e) {
            throw new IllegalStateException("a socket call on an array could not be made", e);
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
