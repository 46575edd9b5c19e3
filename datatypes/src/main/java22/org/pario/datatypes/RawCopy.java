package org.pario.datatypes;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * Raw memory copies between any primitive array and heap or direct byte buffers, through the foreign function and
 * memory API: the class this multi-release jar uses on Java 22 and newer in place of the {@code sun.misc.Unsafe}
 * one, so that no JVM warns about, or will lose, the methods Pario copies with. Bases are memory segments over
 * the array or the whole buffer, offsets count bytes from their start; the segments check every access again,
 * on top of the caller's checks. Regular stretches of 8-, 16-, 24-, 32- and 64-byte runs copy in counted loops about
 * as fast as through Unsafe; other short runs cost more (docs/benchmarks.md), and {@code pario.rawCopy=unsafe}
 * ({@link DatatypeSettings}) copies through {@link UnsafeCopy} instead.
 *
 * <p>When raw copies are turned off, {@link #AVAILABLE} is false and callers use the safe, slower path.
 */
final class RawCopy {
    /** Whether copies go through {@link UnsafeCopy}, as asked. */
    private static final boolean UNSAFE = DatatypeSettings.RAW_COPIES_THROUGH_UNSAFE;
    /** Whether raw copies can be used in this JVM. */
    static final boolean AVAILABLE = UNSAFE ? UnsafeCopy.AVAILABLE : DatatypeSettings.RAW_COPIES_ALLOWED;
    /** Marks a buffer whose bytes cannot be addressed raw (a read-only buffer). */
    static final Object UNADDRESSABLE = new Object();

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    /** Runs up to this many bytes are moved with 8-byte loads and stores instead of a copy call. */
    private static final long SHORT_COPY = 64;

    private RawCopy() {
    }

    /** @return the segment a buffer's bytes live in, from its byte 0, or {@link #UNADDRESSABLE} */
    static Object base(final ByteBuffer b) {
        if (UNSAFE) {
            return UnsafeCopy.base(b);
        }
        if (b.isReadOnly()) {
            return UNADDRESSABLE;
        }
        if (b.hasArray()) {
            return MemorySegment.ofArray(b.array());
        }
        return b.isDirect() ? MemorySegment.ofBuffer(b.duplicate().clear()) : UNADDRESSABLE;
    }

    /** @return the offset of a buffer's byte 0 within {@link #base(ByteBuffer)} */
    static long offset(final ByteBuffer b) {
        if (UNSAFE) {
            return UnsafeCopy.offset(b);
        }
        return b.hasArray() ? b.arrayOffset() : 0;
    }

    /** @return the segment over a primitive array's elements */
    static Object base(final Object array) {
        if (UNSAFE) {
            return UnsafeCopy.base(array);
        }
        return switch (array) {
            case double[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case float[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            case char[] a -> MemorySegment.ofArray(a);
            case byte[] a -> MemorySegment.ofArray(a);
            default -> UNADDRESSABLE;
        };
    }

    /** @return the offset of element 0 within {@link #base(Object)}: segments start at their first byte */
    static long arrayBase(final Class<?> arrayClass) {
        return UNSAFE ? UnsafeCopy.arrayBase(arrayClass) : 0;
    }

    /** Copies bytes; the caller has checked both ranges. */
    static void copy(final Object srcBase, final long srcOffset, final Object dstBase, final long dstOffset,
                     final long bytes) {
        if (UNSAFE) {
            UnsafeCopy.copy(srcBase, srcOffset, dstBase, dstOffset, bytes);
            return;
        }
        final MemorySegment src = (MemorySegment) srcBase;
        final MemorySegment dst = (MemorySegment) dstBase;
        if (bytes > SHORT_COPY) {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, bytes);
            return;
        }
        long i = 0;
        for (; i + 8 <= bytes; i += 8) {
            dst.set(LONG, dstOffset + i, src.get(LONG, srcOffset + i));
        }
        for (; i < bytes; i++) {
            dst.set(ValueLayout.JAVA_BYTE, dstOffset + i, src.get(ValueLayout.JAVA_BYTE, srcOffset + i));
        }
    }

    /**
     * Copies {@code runs} runs of {@code bytes} bytes, the k-th from {@code srcOffset + k * srcStride} to
     * {@code dstOffset + k * dstStride}: a regular stretch of a type's runs; the caller has checked the first and
     * the last run on both sides. Runs of 8, 16, 24, 32 and 64 bytes (one to eight doubles), the most frequent short
     * ones, go through one counted loop over the two segments, whose bounds checks the compiler can hoist (about as
     * fast as Unsafe, or faster); others run by run (a loop over the words of any run length measured slower).
     */
    static void copyRuns(final Object srcBase, final long srcOffset, final long srcStride, final Object dstBase,
                         final long dstOffset, final long dstStride, final long bytes, final long runs) {
        if (UNSAFE) {
            UnsafeCopy.copyRuns(srcBase, srcOffset, srcStride, dstBase, dstOffset, dstStride, bytes, runs);
            return;
        }
        final MemorySegment src = (MemorySegment) srcBase;
        final MemorySegment dst = (MemorySegment) dstBase;
        if (bytes == 8) {
            for (long k = 0; k < runs; k++) {
                dst.set(LONG, dstOffset + k * dstStride, src.get(LONG, srcOffset + k * srcStride));
            }
            return;
        }
        if (bytes == 16) {
            for (long k = 0; k < runs; k++) {
                final long from = srcOffset + k * srcStride;
                final long to = dstOffset + k * dstStride;
                dst.set(LONG, to, src.get(LONG, from));
                dst.set(LONG, to + 8, src.get(LONG, from + 8));
            }
            return;
        }
        if (bytes == 24) {
            for (long k = 0; k < runs; k++) {
                final long from = srcOffset + k * srcStride;
                final long to = dstOffset + k * dstStride;
                dst.set(LONG, to, src.get(LONG, from));
                dst.set(LONG, to + 8, src.get(LONG, from + 8));
                dst.set(LONG, to + 16, src.get(LONG, from + 16));
            }
            return;
        }
        if (bytes == 32) {
            for (long k = 0; k < runs; k++) {
                final long from = srcOffset + k * srcStride;
                final long to = dstOffset + k * dstStride;
                dst.set(LONG, to, src.get(LONG, from));
                dst.set(LONG, to + 8, src.get(LONG, from + 8));
                dst.set(LONG, to + 16, src.get(LONG, from + 16));
                dst.set(LONG, to + 24, src.get(LONG, from + 24));
            }
            return;
        }
        if (bytes == 64) {
            for (long k = 0; k < runs; k++) {
                final long from = srcOffset + k * srcStride;
                final long to = dstOffset + k * dstStride;
                for (long i = 0; i < 64; i += 8) {
                    dst.set(LONG, to + i, src.get(LONG, from + i));
                }
            }
            return;
        }
        for (long k = 0, from = srcOffset, to = dstOffset; k < runs; k++, from += srcStride, to += dstStride) {
            copy(src, from, dst, to, bytes);
        }
    }
}
