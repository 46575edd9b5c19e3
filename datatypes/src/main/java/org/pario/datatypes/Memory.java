package org.pario.datatypes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

import org.pario.ParioException;

/**
 * User memory seen as bytes in this machine's native layout (little-endian), addressed with {@code long}
 * offsets: a primitive array, a {@code byte[]} or a {@code ByteBuffer} (heap or direct). A {@code double[]} of
 * n elements is 8n bytes, element {@code i} at byte {@code 8i}, exactly as a C array of doubles.
 *
 * <p>All access is absolute: a buffer's position and limit are neither used nor changed. Memory is the user's
 * side of {@link Packer}; every copy checks that it stays inside the memory and fails with a
 * {@link ParioException} naming the offending byte range otherwise.
 */
public abstract class Memory {
    Memory() {
    }

    /** @return the number of addressable bytes */
    public abstract long byteSize();

    /** @return the object holding the bytes for {@link RawCopy}: an array, null (direct) or unaddressable */
    abstract Object rawBase();

    /** @return the raw offset of byte 0 within {@link #rawBase()} */
    abstract long rawOffset();

    /** Copies {@code length} bytes at memory offset {@code from} into {@code dst} at {@code dstIndex}. */
    abstract void read(long from, ByteBuffer dst, int dstIndex, int length);

    /** Copies {@code length} bytes of {@code src} at {@code srcIndex} to memory offset {@code to}. */
    abstract void write(long to, ByteBuffer src, int srcIndex, int length);

    /**
     * The byte offset of the buffer address within this memory: where displacement 0 of a datatype lies. It is 0
     * for memory made by the {@code of} factories and moves with {@link #at(long)}.
     *
     * @return the origin in bytes
     */
    public long origin() {
        return 0;
    }

    /**
     * The same memory with the buffer address moved by {@code bytes}, as {@code &a[i][j]} in C: displacements
     * are then counted from there, and may be negative to reach bytes before it.
     *
     * @param bytes how far to move the buffer address, possibly negative
     * @return a view of the same memory
     */
    public Memory at(final long bytes) {
        return new Shifted(root(), Checks.add("memory", origin(), bytes));
    }

    /** @return the memory this is a view of, or itself */
    Memory root() {
        return this;
    }

    /**
     * The bytes {@code [from, from + length)} as a direct {@code ByteBuffer} sharing this memory, for a transport
     * that hands the caller's memory to the operating system instead of copying it first; null when this memory is
     * not a direct buffer (arrays and heap buffers move with the garbage collector, so only a copy can go out).
     *
     * @param from     the first byte, counted as {@link #read} counts (from the start of the memory, not the origin)
     * @param length   how many bytes
     * @param writable whether the caller will write into the bytes: a read-only buffer then gives null
     * @return a buffer over exactly those bytes (position 0, limit {@code length}), or null
     * @throws ParioException if the range is not inside the memory
     */
    public ByteBuffer directRegion(final long from, final int length, final boolean writable) {
        final Memory root = root();
        return root == this ? null : root.directRegion(from, length, writable);
    }

    /**
     * The primitive array this memory lies over, for code that works on the values themselves instead of on their
     * bytes (a reduction that combines a received block straight into the caller's {@code double[]}): the
     * {@code double[]}, {@code float[]}, {@code long[]}, {@code int[]}, {@code short[]} or {@code char[]} given to
     * {@code of}, whose element {@code i} is bytes {@code [i * size, (i + 1) * size)} counted as {@link #origin()}
     * counts them; null for byte arrays and buffers.
     *
     * @return the array, shared, or null
     */
    public Object primitiveArray() {
        final Memory root = root();
        return root == this ? null : root.primitiveArray();
    }

    /**
     * The Java array this memory's bytes are, byte 0 of the memory being byte 0 of the array's elements, for a
     * transport that hands an array to the operating system where the JVM allows it (the foreign function API with
     * heap access, Java 22+): the {@code byte[]} or primitive array given to {@code of}, or a writable heap
     * {@code ByteBuffer}'s array when the buffer starts at its array's start; null for direct buffers, read-only
     * buffers and slices that start further in.
     *
     * @return the array, shared, or null
     */
    public Object heapArray() {
        final Memory root = root();
        return root == this ? null : root.heapArray();
    }

    /**
     * Copies a regular stretch of runs between two memories: {@code runs} runs of {@code runBytes} bytes, the k-th
     * from {@code src} byte {@code srcFrom + k * srcStride} to {@code dst} byte {@code dstFrom + k * dstStride}
     * (bytes counted from the start of each memory, as {@link #directRegion} counts them). This is what
     * {@link Packer} does for each stretch a {@link Cursor} reports ({@link Cursor#repeats()}), for code that
     * moves a type's runs between two buffers of its own, such as a file aggregator placing a rank's piece in its
     * window: one checked call for the stretch, the copy raw where both memories allow it (8- and 16-byte runs in
     * one counted loop), else run by run through the buffers' own bulk copies.
     *
     * @param src       where the runs come from
     * @param srcFrom   the first run's byte in {@code src}
     * @param srcStride bytes from one run to the next in {@code src}, possibly negative
     * @param dst       where they go
     * @param dstFrom   the first run's byte in {@code dst}
     * @param dstStride bytes from one run to the next in {@code dst}, possibly negative
     * @param runBytes  bytes in a run
     * @param runs      how many runs
     * @throws ParioException if a count is negative or a run lies outside either memory
     */
    public static void copyRuns(final Memory src, final long srcFrom, final long srcStride, final Memory dst,
                                final long dstFrom, final long dstStride, final long runBytes, final long runs) {
        if (runBytes < 0 || runs < 0) {
            throw ParioException.argument("copyRuns: run bytes and runs must be >= 0, got " + runBytes + " and "
                + runs);
        }
        if (runs == 0 || runBytes == 0) {
            return;
        }
        // the runs lie on a line, so the first and the last bound them all
        final Memory from = src.root();
        final Memory to = dst.root();
        from.check(srcFrom, runBytes);
        from.check(Checks.add("copyRuns", srcFrom, Checks.mul("copyRuns", runs - 1, srcStride)), runBytes);
        to.check(dstFrom, runBytes);
        to.check(Checks.add("copyRuns", dstFrom, Checks.mul("copyRuns", runs - 1, dstStride)), runBytes);
        final Object srcBase = from.rawBase();
        final Object dstBase = to.rawBase();
        if (RawCopy.AVAILABLE && srcBase != RawCopy.UNADDRESSABLE && dstBase != RawCopy.UNADDRESSABLE) {
            RawCopy.copyRuns(srcBase, from.rawOffset() + srcFrom, srcStride, dstBase, to.rawOffset() + dstFrom,
                dstStride, runBytes, runs);
            return;
        }
        final ByteBuffer bounce = ByteBuffer.allocate((int) Math.min(runBytes, 1 << 16));
        for (long k = 0; k < runs; k++) {
            for (long done = 0; done < runBytes; done += bounce.capacity()) {
                final int n = (int) Math.min(bounce.capacity(), runBytes - done);
                from.read(srcFrom + k * srcStride + done, bounce, 0, n);
                to.write(dstFrom + k * dstStride + done, bounce, 0, n);
            }
        }
    }

    final void check(final long offset, final long length) {
        if (offset < 0 || length < 0 || offset > byteSize() - length) {
            throw ParioException.argument("datatype reaches bytes [" + offset + ", " + (offset + length)
                + ") of a buffer of " + byteSize() + " bytes");
        }
    }

    /**
     * @param array bytes
     * @return memory over the whole array
     */
    public static Memory of(final byte[] array) {
        return new BufferMemory(ByteBuffer.wrap(Objects.requireNonNull(array, "array")));
    }

    /**
     * @param buffer heap or direct; its whole capacity is addressable, independent of position and limit
     * @return memory over the buffer
     */
    public static Memory of(final ByteBuffer buffer) {
        return new BufferMemory(Objects.requireNonNull(buffer, "buffer"));
    }

    /**
     * @param array values, each 8 bytes
     * @return memory over the array
     */
    public static Memory of(final double[] array) {
        return new PrimitiveArrayMemory.Doubles(Objects.requireNonNull(array, "array"));
    }

    /**
     * @param array values, each 4 bytes
     * @return memory over the array
     */
    public static Memory of(final float[] array) {
        return new PrimitiveArrayMemory.Floats(Objects.requireNonNull(array, "array"));
    }

    /**
     * @param array values, each 8 bytes
     * @return memory over the array
     */
    public static Memory of(final long[] array) {
        return new PrimitiveArrayMemory.Longs(Objects.requireNonNull(array, "array"));
    }

    /**
     * @param array values, each 4 bytes
     * @return memory over the array
     */
    public static Memory of(final int[] array) {
        return new PrimitiveArrayMemory.Ints(Objects.requireNonNull(array, "array"));
    }

    /**
     * @param array values, each 2 bytes
     * @return memory over the array
     */
    public static Memory of(final short[] array) {
        return new PrimitiveArrayMemory.Shorts(Objects.requireNonNull(array, "array"));
    }

    /**
     * @param array values, each 2 bytes (UTF-16 code units)
     * @return memory over the array
     */
    public static Memory of(final char[] array) {
        return new PrimitiveArrayMemory.Chars(Objects.requireNonNull(array, "array"));
    }

    /**
     * Memory over any supported array or {@code ByteBuffer}.
     *
     * @param buffer a primitive array or a {@code ByteBuffer}
     * @return memory over it
     * @throws ParioException for other objects
     */
    public static Memory ofObject(final Object buffer) {
        if (buffer instanceof Memory m) {
            return m;
        } else if (buffer instanceof byte[] a) {
            return of(a);
        } else if (buffer instanceof ByteBuffer b) {
            return of(b);
        } else if (buffer instanceof double[] a) {
            return of(a);
        } else if (buffer instanceof float[] a) {
            return of(a);
        } else if (buffer instanceof long[] a) {
            return of(a);
        } else if (buffer instanceof int[] a) {
            return of(a);
        } else if (buffer instanceof short[] a) {
            return of(a);
        } else if (buffer instanceof char[] a) {
            return of(a);
        }
        throw ParioException.argument("buffer must be a primitive array or a ByteBuffer, got "
            + (buffer == null ? "null" : buffer.getClass().getName()));
    }

    /** A view of other memory with a moved buffer address. */
    static final class Shifted extends Memory {
        private final Memory root;
        private final long origin;

        Shifted(final Memory root, final long origin) {
            this.root = root;
            this.origin = origin;
        }

        @Override
        public long origin() {
            return origin;
        }

        @Override
        Memory root() {
            return root;
        }

        @Override
        public long byteSize() {
            return root.byteSize();
        }

        @Override
        Object rawBase() {
            return root.rawBase();
        }

        @Override
        long rawOffset() {
            return root.rawOffset();
        }

        @Override
        void read(final long from, final ByteBuffer dst, final int dstIndex, final int length) {
            root.read(from, dst, dstIndex, length);
        }

        @Override
        void write(final long to, final ByteBuffer src, final int srcIndex, final int length) {
            root.write(to, src, srcIndex, length);
        }
    }

    /** Memory over a ByteBuffer (a wrapped byte[] included). */
    static final class BufferMemory extends Memory {
        /** Marks {@link #rawBase} as not yet looked up. */
        private static final Object NOT_YET = new Object();
        private final ByteBuffer buffer;
        /**
         * Where raw copies address the bytes, or {@link RawCopy#UNADDRESSABLE}; looked up at the first raw copy,
         * since many buffers are wrapped and never copied that way (on Java 22+ the lookup makes a memory segment).
         * Written without a lock: every thread that looks it up finds the same.
         */
        private Object rawBase = NOT_YET;

        BufferMemory(final ByteBuffer buffer) {
            // absolute bulk copies check against the limit, so work on a full-capacity view of the same bytes
            this.buffer = buffer.duplicate().clear();
        }

        @Override
        public long byteSize() {
            return buffer.capacity();
        }

        @Override
        Object rawBase() {
            Object base = rawBase;
            if (base == NOT_YET) {
                base = RawCopy.AVAILABLE && !buffer.isReadOnly() ? RawCopy.base(buffer) : RawCopy.UNADDRESSABLE;
                rawBase = base;
            }
            return base;
        }

        @Override
        long rawOffset() {
            return RawCopy.offset(buffer);
        }

        @Override
        void read(final long from, final ByteBuffer dst, final int dstIndex, final int length) {
            dst.put(dstIndex, buffer, (int) from, length);
        }

        @Override
        public Object heapArray() {
            return buffer.hasArray() && buffer.arrayOffset() == 0 ? buffer.array() : null;
        }

        @Override
        public ByteBuffer directRegion(final long from, final int length, final boolean writable) {
            check(from, length);
            if (!buffer.isDirect() || writable && buffer.isReadOnly()) {
                return null;
            }
            return buffer.slice((int) from, length);
        }

        @Override
        void write(final long to, final ByteBuffer src, final int srcIndex, final int length) {
            if (buffer.isReadOnly()) {
                throw ParioException.argument("cannot unpack into a read-only ByteBuffer");
            }
            buffer.put((int) to, src, srcIndex, length);
        }
    }

    static final VarHandle LONG_LE = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle INT_LE = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle SHORT_LE = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
}
