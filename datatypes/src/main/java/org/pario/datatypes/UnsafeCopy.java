package org.pario.datatypes;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * Raw memory copies between any primitive array and heap or direct byte buffers, through
 * {@code sun.misc.Unsafe.copyMemory}: the same memmove {@code System.arraycopy} uses, without the per-element
 * byte-order handling of JDK 17's view buffers. {@link RawCopy} copies through it on Java 17 to 21, and on Java 22+
 * when asked ({@code pario.rawCopy=unsafe}, {@link DatatypeSettings}). Every copy through it has been bounds-checked
 * by the caller first ({@link Memory#check} and the packed-buffer range check), because a raw copy does not check.
 * When {@code Unsafe} is unavailable, or raw copies are turned off, {@link #AVAILABLE} is false.
 */
final class UnsafeCopy {
    /** Whether raw copies can be used in this JVM. */
    static final boolean AVAILABLE;

    private static final sun.misc.Unsafe UNSAFE;
    private static final long ADDRESS_FIELD;
    private static final long BYTE_ARRAY_BASE;

    static {
        sun.misc.Unsafe unsafe = null;
        long address = -1;
        long base = 0;
        boolean available = false;
        if (DatatypeSettings.RAW_COPIES_ALLOWED) {
            try {
                final Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
                f.setAccessible(true);
                unsafe = (sun.misc.Unsafe) f.get(null);
                address = unsafe.objectFieldOffset(Buffer.class.getDeclaredField("address"));
                base = unsafe.arrayBaseOffset(byte[].class);
                available = true;
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                available = false;
            }
        }
        UNSAFE = unsafe;
        ADDRESS_FIELD = address;
        BYTE_ARRAY_BASE = base;
        AVAILABLE = available;
    }

    private UnsafeCopy() {
    }

    /** @return the object a buffer's bytes live in: its array, null for direct memory, or {@link #UNADDRESSABLE} */
    static Object base(final ByteBuffer b) {
        if (b.hasArray()) {
            return b.array();
        }
        return b.isDirect() ? null : RawCopy.UNADDRESSABLE;
    }

    /** @return the object a primitive array's elements are addressed in: the array itself */
    static Object base(final Object array) {
        return array;
    }

    /** @return the raw offset of a buffer's byte 0 within {@link #base(ByteBuffer)} */
    static long offset(final ByteBuffer b) {
        return b.hasArray() ? BYTE_ARRAY_BASE + b.arrayOffset() : UNSAFE.getLong(b, ADDRESS_FIELD);
    }

    /** @return the raw offset of element 0 of an array of the given class */
    static long arrayBase(final Class<?> arrayClass) {
        return AVAILABLE ? UNSAFE.arrayBaseOffset(arrayClass) : 0;
    }

    /** Runs up to this many bytes are moved with 8-byte loads and stores instead of a copy call. */
    private static final long SHORT_COPY = 64;

    /** Copies bytes; the caller has checked both ranges. */
    static void copy(final Object srcBase, final long srcOffset, final Object dstBase, final long dstOffset,
                     final long bytes) {
        if (bytes > SHORT_COPY) {
            UNSAFE.copyMemory(srcBase, srcOffset, dstBase, dstOffset, bytes);
            return;
        }
        long i = 0;
        for (; i + 8 <= bytes; i += 8) {
            UNSAFE.putLong(dstBase, dstOffset + i, UNSAFE.getLong(srcBase, srcOffset + i));
        }
        for (; i < bytes; i++) {
            UNSAFE.putByte(dstBase, dstOffset + i, UNSAFE.getByte(srcBase, srcOffset + i));
        }
    }

    /**
     * Copies {@code runs} runs of {@code bytes} bytes, the k-th from {@code srcOffset + k * srcStride} to
     * {@code dstOffset + k * dstStride}; the caller has checked the first and the last run on both sides. Runs of 8
     * and 16 bytes, the most frequent short ones (one double, a pair), are one counted loop of loads and stores:
     * a call of {@link #copy} per run costs about twice as much for 8-byte runs (docs/benchmarks.md).
     */
    static void copyRuns(final Object srcBase, final long srcOffset, final long srcStride, final Object dstBase,
                         final long dstOffset, final long dstStride, final long bytes, final long runs) {
        if (bytes == 8) {
            for (long k = 0, from = srcOffset, to = dstOffset; k < runs; k++, from += srcStride, to += dstStride) {
                UNSAFE.putLong(dstBase, to, UNSAFE.getLong(srcBase, from));
            }
            return;
        }
        if (bytes == 16) {
            for (long k = 0, from = srcOffset, to = dstOffset; k < runs; k++, from += srcStride, to += dstStride) {
                UNSAFE.putLong(dstBase, to, UNSAFE.getLong(srcBase, from));
                UNSAFE.putLong(dstBase, to + 8, UNSAFE.getLong(srcBase, from + 8));
            }
            return;
        }
        for (long k = 0, from = srcOffset, to = dstOffset; k < runs; k++, from += srcStride, to += dstStride) {
            copy(srcBase, from, dstBase, to, bytes);
        }
    }
}
