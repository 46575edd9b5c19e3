package org.pario.datatypes;

import java.nio.ByteBuffer;

/**
 * Raw memory copies between any primitive array and heap or direct byte buffers: the fast path of {@link Packer}.
 * Every copy through it has been bounds-checked by the caller first ({@link Memory#check} and the packed-buffer range
 * check). A base is the object a copy addresses bytes in, an offset counts bytes within it, as this class hands
 * them out. This version, for Java 17 to 21, copies through {@code sun.misc.Unsafe} ({@link UnsafeCopy}); the
 * multi-release jar holds another for Java 22 and newer, which copies through the foreign function and memory API
 * unless asked otherwise ({@link DatatypeSettings}).
 *
 * <p>When raw copies are unavailable or turned off, {@link #AVAILABLE} is false and callers use the safe, slower
 * path.
 */
final class RawCopy {
    /** Whether raw copies can be used in this JVM. */
    static final boolean AVAILABLE = UnsafeCopy.AVAILABLE;
    /** Marks a buffer whose bytes cannot be addressed raw (a read-only heap buffer). */
    static final Object UNADDRESSABLE = new Object();

    private RawCopy() {
    }

    /** @return the object a buffer's bytes live in, or {@link #UNADDRESSABLE} */
    static Object base(final ByteBuffer b) {
        return UnsafeCopy.base(b);
    }

    /** @return the object a primitive array's elements are addressed in */
    static Object base(final Object array) {
        return UnsafeCopy.base(array);
    }

    /** @return the offset of a buffer's byte 0 within {@link #base(ByteBuffer)} */
    static long offset(final ByteBuffer b) {
        return UnsafeCopy.offset(b);
    }

    /** @return the offset of element 0 of an array of the given class within {@link #base(Object)} */
    static long arrayBase(final Class<?> arrayClass) {
        return UnsafeCopy.arrayBase(arrayClass);
    }

    /** Copies bytes; the caller has checked both ranges. */
    static void copy(final Object srcBase, final long srcOffset, final Object dstBase, final long dstOffset,
                     final long bytes) {
        UnsafeCopy.copy(srcBase, srcOffset, dstBase, dstOffset, bytes);
    }

    /**
     * Copies {@code runs} runs of {@code bytes} bytes, the k-th from {@code srcOffset + k * srcStride} to
     * {@code dstOffset + k * dstStride}: a regular stretch of a type's runs; the caller has checked the first and
     * the last run on both sides.
     */
    static void copyRuns(final Object srcBase, final long srcOffset, final long srcStride, final Object dstBase,
                         final long dstOffset, final long dstStride, final long bytes, final long runs) {
        UnsafeCopy.copyRuns(srcBase, srcOffset, srcStride, dstBase, dstOffset, dstStride, bytes, runs);
    }
}
