package org.pario.datatypes;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Memory over a primitive array, element bytes in little-endian order. Whole-element runs to or from a heap buffer
 * are copied element by element through byte-array views, which compile to plain loads and stores (JDK 17's
 * view buffers over heap byte buffers convert one element at a time, several times slower); runs to or from a
 * direct buffer use its native-order view's bulk copy. Runs that start or end inside an element fall back to
 * byte-wise access.
 */
abstract class PrimitiveArrayMemory extends Memory {
    private static final java.lang.invoke.VarHandle LONG_ARRAY =
        java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final java.lang.invoke.VarHandle INT_ARRAY =
        java.lang.invoke.MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final java.lang.invoke.VarHandle SHORT_ARRAY =
        java.lang.invoke.MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

    /** Runs of at most this many elements are copied element-wise instead of through a view buffer. */
    private static final int SHORT_RUN = 16;

    private final int shift;
    private final long bytes;
    private final Object array;
    private final long arrayBase;
    /** Where raw copies address the elements, or {@link RawCopy#UNADDRESSABLE}. */
    private final Object rawBase;

    PrimitiveArrayMemory(final int shift, final int elements, final Object array) {
        this.shift = shift;
        this.bytes = (long) elements << shift;
        this.array = array;
        this.arrayBase = RawCopy.arrayBase(array.getClass());
        this.rawBase = RawCopy.AVAILABLE ? RawCopy.base(array) : RawCopy.UNADDRESSABLE;
    }

    @Override
    public final Object primitiveArray() {
        return array;
    }

    @Override
    public final Object heapArray() {
        return array;
    }

    @Override
    final Object rawBase() {
        return rawBase;
    }

    @Override
    final long rawOffset() {
        return arrayBase;
    }

    @Override
    public final long byteSize() {
        return bytes;
    }

    abstract long bits(int index);

    abstract void bits(int index, long value);

    abstract void bulkRead(int first, ByteBuffer leView, int count);

    /** Copies n elements from index first into a byte array at byte offset at, little-endian. */
    abstract void toArray(int first, byte[] bytes, int at, int n);

    /** Copies n elements from a byte array at byte offset at into index first. */
    abstract void fromArray(int first, byte[] bytes, int at, int n);

    abstract void bulkWrite(int first, ByteBuffer leView, int count);

    @Override
    final void read(final long from, final ByteBuffer dst, final int dstIndex, final int length) {
        final int unit = 1 << shift;
        final int mask = unit - 1;
        if (((from | length) & mask) == 0) {
            final int first = (int) (from >>> shift);
            final int n = length >>> shift;
            if (dst.hasArray()) {
                toArray(first, dst.array(), dst.arrayOffset() + dstIndex, n);
            } else if (n > SHORT_RUN) {
                // a direct buffer's native-order view copies in bulk
                bulkRead(first, dst.slice(dstIndex, length).order(ByteOrder.LITTLE_ENDIAN), n);
            } else {
                for (int k = 0; k < n; k++) {
                    putBits(dst, dstIndex + (k << shift), bits(first + k));
                }
            }
            return;
        }
        for (int k = 0; k < length; k++) {
            final long b = from + k;
            dst.put(dstIndex + k, (byte) (bits((int) (b >>> shift)) >>> ((b & mask) << 3)));
        }
    }

    @Override
    final void write(final long to, final ByteBuffer src, final int srcIndex, final int length) {
        final int unit = 1 << shift;
        final int mask = unit - 1;
        if (((to | length) & mask) == 0) {
            final int first = (int) (to >>> shift);
            final int n = length >>> shift;
            if (src.hasArray()) {
                fromArray(first, src.array(), src.arrayOffset() + srcIndex, n);
            } else if (n > SHORT_RUN) {
                bulkWrite(first, src.slice(srcIndex, length).order(ByteOrder.LITTLE_ENDIAN), n);
            } else {
                for (int k = 0; k < n; k++) {
                    bits(first + k, getBits(src, srcIndex + (k << shift)));
                }
            }
            return;
        }
        for (int k = 0; k < length; k++) {
            final long b = to + k;
            final int index = (int) (b >>> shift);
            final long bitShift = (b & mask) << 3;
            final long old = bits(index);
            final long value = (old & ~(0xFFL << bitShift)) | ((src.get(srcIndex + k) & 0xFFL) << bitShift);
            bits(index, value);
        }
    }

    private void putBits(final ByteBuffer dst, final int index, final long value) {
        switch (shift) {
            case 3 -> LONG_LE.set(dst, index, value);
            case 2 -> INT_LE.set(dst, index, (int) value);
            default -> SHORT_LE.set(dst, index, (short) value);
        }
    }

    private long getBits(final ByteBuffer src, final int index) {
        return switch (shift) {
            case 3 -> (long) LONG_LE.get(src, index);
            case 2 -> (int) INT_LE.get(src, index);
            default -> (short) SHORT_LE.get(src, index);
        };
    }

    static final class Doubles extends PrimitiveArrayMemory {
        private final double[] a;

        Doubles(final double[] a) {
            super(3, a.length, a);
            this.a = a;
        }

        @Override
        long bits(final int i) {
            return Double.doubleToRawLongBits(a[i]);
        }

        @Override
        void bits(final int i, final long v) {
            a[i] = Double.longBitsToDouble(v);
        }

        @Override
        void toArray(final int first, final byte[] bytes, final int at, final int n) {
            for (int k = 0; k < n; k++) {
                LONG_ARRAY.set(bytes, at + 8 * k, Double.doubleToRawLongBits(a[first + k]));
            }
        }

        @Override
        void fromArray(final int first, final byte[] bytes, final int at, final int n) {
            for (int k = 0; k < n; k++) {
                a[first + k] = Double.longBitsToDouble((long) LONG_ARRAY.get(bytes, at + 8 * k));
            }
        }

        @Override
        void bulkRead(final int first, final ByteBuffer v, final int n) {
            v.asDoubleBuffer().put(a, first, n);
        }

        @Override
        void bulkWrite(final int first, final ByteBuffer v, final int n) {
            v.asDoubleBuffer().get(a, first, n);
        }
    }

    static final class Longs extends PrimitiveArrayMemory {
        private final long[] a;

        Longs(final long[] a) {
            super(3, a.length, a);
            this.a = a;
        }

        @Override
        long bits(final int i) {
            return a[i];
        }

        @Override
        void bits(final int i, final long v) {
            a[i] = v;
        }

        @Override
        void toArray(final int first, final byte[] bytes, final int at, final int n) {
            for (int k = 0; k < n; k++) {
                LONG_ARRAY.set(bytes, at + 8 * k, a[first + k]);
            }
        }

        @Override
        void fromArray(final int first, final byte[] bytes, final int at, final int n) {
            for (int k = 0; k < n; k++) {
                a[first + k] = (long) LONG_ARRAY.get(bytes, at + 8 * k);
            }
        }

        @Override
        void bulkRead(final int first, final ByteBuffer v, final int n) {
            v.asLongBuffer().put(a, first, n);
        }

        @Override
        void bulkWrite(final int first, final ByteBuffer v, final int n) {
            v.asLongBuffer().get(a, first, n);
        }
    }

    static final class Floats extends PrimitiveArrayMemory {
        private final float[] a;

        Floats(final float[] a) {
            super(2, a.length, a);
            this.a = a;
        }

        @Override
        long bits(final int i) {
            return Float.floatToRawIntBits(a[i]) & 0xFFFFFFFFL;
        }

        @Override
        void bits(final int i, final long v) {
            a[i] = Float.intBitsToFloat((int) v);
        }

        @Override
        void toArray(final int first, final byte[] bytes, final int at, final int n) {
            for (int k = 0; k < n; k++) {
                INT_ARRAY.set(bytes, at + 4 * k, Float.floatToRawIntBits(a[first + k]));
            }
        }

        @Override
        void fromArray(final int first, final byte[] bytes, final int at, final int n) {
            for (int k = 0; k < n; k++) {
                a[first + k] = Float.intBitsToFloat((int) INT_ARRAY.get(bytes, at + 4 * k));
            }
        }

        @Override
        void bulkRead(final int first, final ByteBuffer v, final int n) {
            v.asFloatBuffer().put(a, first, n);
        }

        @Override
        void bulkWrite(final int first, final ByteBuffer v, final int n) {
            v.asFloatBuffer().get(a, first, n);
        }
    }

    static final class Ints extends PrimitiveArrayMemory {
        private final int[] a;

        Ints(final int[] a) {
            super(2, a.length, a);
            this.a = a;
        }

        @Override
        long bits(final int i) {
            return a[i] & 0xFFFFFFFFL;
        }

        @Override
        void bits(final int i, final long v) {
            a[i] = (int) v;
        }

        @Override
        void toArray(final int first, final byte[] bytes, final int at, final int n) {
            for (int k = 0; k < n; k++) {
                INT_ARRAY.set(bytes, at + 4 * k, a[first + k]);
            }
        }

        @Override
        void fromArray(final int first, final byte[] bytes, final int at, final int n) {
            for (int k = 0; k < n; k++) {
                a[first + k] = (int) INT_ARRAY.get(bytes, at + 4 * k);
            }
        }

        @Override
        void bulkRead(final int first, final ByteBuffer v, final int n) {
            v.asIntBuffer().put(a, first, n);
        }

        @Override
        void bulkWrite(final int first, final ByteBuffer v, final int n) {
            v.asIntBuffer().get(a, first, n);
        }
    }

    static final class Shorts extends PrimitiveArrayMemory {
        private final short[] a;

        Shorts(final short[] a) {
            super(1, a.length, a);
            this.a = a;
        }

        @Override
        long bits(final int i) {
            return a[i] & 0xFFFFL;
        }

        @Override
        void bits(final int i, final long v) {
            a[i] = (short) v;
        }

        @Override
        void toArray(final int first, final byte[] bytes, final int at, final int n) {
            for (int k = 0; k < n; k++) {
                SHORT_ARRAY.set(bytes, at + 2 * k, a[first + k]);
            }
        }

        @Override
        void fromArray(final int first, final byte[] bytes, final int at, final int n) {
            for (int k = 0; k < n; k++) {
                a[first + k] = (short) SHORT_ARRAY.get(bytes, at + 2 * k);
            }
        }

        @Override
        void bulkRead(final int first, final ByteBuffer v, final int n) {
            v.asShortBuffer().put(a, first, n);
        }

        @Override
        void bulkWrite(final int first, final ByteBuffer v, final int n) {
            v.asShortBuffer().get(a, first, n);
        }
    }

    static final class Chars extends PrimitiveArrayMemory {
        private final char[] a;

        Chars(final char[] a) {
            super(1, a.length, a);
            this.a = a;
        }

        @Override
        long bits(final int i) {
            return a[i];
        }

        @Override
        void bits(final int i, final long v) {
            a[i] = (char) v;
        }

        @Override
        void toArray(final int first, final byte[] bytes, final int at, final int n) {
            for (int k = 0; k < n; k++) {
                SHORT_ARRAY.set(bytes, at + 2 * k, (short) a[first + k]);
            }
        }

        @Override
        void fromArray(final int first, final byte[] bytes, final int at, final int n) {
            for (int k = 0; k < n; k++) {
                a[first + k] = (char) (short) SHORT_ARRAY.get(bytes, at + 2 * k);
            }
        }

        @Override
        void bulkRead(final int first, final ByteBuffer v, final int n) {
            v.asCharBuffer().put(a, first, n);
        }

        @Override
        void bulkWrite(final int first, final ByteBuffer v, final int n) {
            v.asCharBuffer().get(a, first, n);
        }
    }
}
