package org.pario.io.array;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

import org.pario.ParioException;
import org.pario.datatypes.BufferTypes;
import org.pario.datatypes.Datatype;

/**
 * The element type of a {@link DistributedArray} together with the Java buffer that holds a rank's elements:
 * {@code Element<double[]>} for doubles, {@code Element<ByteBuffer>} for structs. Carrying the buffer's class in
 * the type lets the compiler refuse an {@code int[]} for an array of doubles, and lets a restore allocate the
 * right buffer itself. Immutable.
 *
 * @param <T> the buffer class: a primitive array or {@code ByteBuffer}
 */
public final class Element<T> {
    /** 8-byte floating values in a {@code double[]}. */
    public static final Element<double[]> DOUBLE = new Element<>(Datatype.DOUBLE, double[].class, 8);
    /** 4-byte floating values in a {@code float[]}. */
    public static final Element<float[]> FLOAT = new Element<>(Datatype.FLOAT, float[].class, 4);
    /** 8-byte integers in a {@code long[]}. */
    public static final Element<long[]> LONG = new Element<>(Datatype.LONG, long[].class, 8);
    /** 4-byte integers in an {@code int[]}. */
    public static final Element<int[]> INT = new Element<>(Datatype.INT, int[].class, 4);
    /** 2-byte integers in a {@code short[]}. */
    public static final Element<short[]> SHORT = new Element<>(Datatype.SHORT, short[].class, 2);
    /** Bytes in a {@code byte[]}. */
    public static final Element<byte[]> BYTE = new Element<>(Datatype.BYTE, byte[].class, 1);

    private final Datatype type;
    private final Class<T> bufferClass;
    private final int unit;

    private Element(final Datatype type, final Class<T> bufferClass, final int unit) {
        this.type = type;
        this.bufferClass = bufferClass;
        this.unit = unit;
    }

    /**
     * Elements of any datatype (a struct, a padded record) held as their bytes in a {@code ByteBuffer} of this
     * machine's byte order, one element extent apart.
     *
     * @param type the element type: its lower bound 0 and its extent at least its size
     * @return the element
     */
    public static Element<ByteBuffer> of(final Datatype type) {
        return of(type, ByteBuffer.class);
    }

    /**
     * Elements of a datatype held in a buffer of the given class, for example {@code contiguous(3, double)} in a
     * {@code double[]}, three values an element.
     *
     * @param type        the element type
     * @param bufferClass {@code double[].class}, {@code float[].class}, {@code long[].class}, {@code int[].class},
     *                    {@code short[].class}, {@code byte[].class} or {@code ByteBuffer.class}
     * @param <T>         the buffer class
     * @return the element
     * @throws ParioException if such a buffer cannot hold the type's values, or the type's layout cannot be one
     *                        element of an array
     */
    public static <T> Element<T> of(final Datatype type, final Class<T> bufferClass) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(bufferClass, "bufferClass");
        final String why = BufferTypes.mismatch(bufferClass, type);
        if (why != null) {
            throw ParioException.argument("element " + type + ": " + why);
        }
        if (type.lb() != 0 || type.extent() < type.size() || type.extent() < 1) {
            throw ParioException.argument("element " + type + " has lower bound " + type.lb() + " and extent "
                + type.extent() + "; array elements must start at their lower bound 0 and not overlap");
        }
        final int unit = unitOf(bufferClass);
        if (type.extent() % unit != 0) {
            throw ParioException.argument("element " + type + " has an extent of " + type.extent() + " bytes, not a "
                + "whole number of the " + unit + "-byte values of a " + bufferClass.getSimpleName());
        }
        return new Element<>(type, bufferClass, unit);
    }

    private static int unitOf(final Class<?> c) {
        if (c == double[].class || c == long[].class) {
            return 8;
        } else if (c == float[].class || c == int[].class) {
            return 4;
        } else if (c == short[].class || c == char[].class) {
            return 2;
        }
        return 1;
    }

    /** @return the datatype of one element */
    public Datatype type() {
        return type;
    }

    /** @return the class of the buffers that hold these elements */
    public Class<T> bufferClass() {
        return bufferClass;
    }

    /**
     * A zeroed buffer for {@code count} elements: a primitive array of exactly that many elements' values, or a
     * heap {@code ByteBuffer} in this machine's byte order.
     *
     * @param count how many elements
     * @return the buffer
     * @throws ParioException if so many elements do not fit one Java array or buffer
     */
    public T allocate(final long count) {
        final long length = length(count);
        final int n = (int) length;
        final Object b;
        if (bufferClass == double[].class) {
            b = new double[n];
        } else if (bufferClass == float[].class) {
            b = new float[n];
        } else if (bufferClass == long[].class) {
            b = new long[n];
        } else if (bufferClass == int[].class) {
            b = new int[n];
        } else if (bufferClass == short[].class) {
            b = new short[n];
        } else if (bufferClass == char[].class) {
            b = new char[n];
        } else if (bufferClass == byte[].class) {
            b = new byte[n];
        } else {
            b = ByteBuffer.allocate(n).order(ByteOrder.nativeOrder());
        }
        return bufferClass.cast(b);
    }

    /**
     * @param buffer a buffer of this element's class
     * @param from   the first element to copy
     * @param count  how many
     * @return a new buffer holding a copy of those elements
     */
    T copyOf(final T buffer, final long from, final long count) {
        return copyInto(buffer, from, count, allocate(count));
    }

    /**
     * @param buffer a buffer of this element's class
     * @param from   the first element to copy
     * @param count  how many
     * @param copy   a buffer of exactly {@code count} elements
     * @return {@code copy}, holding those elements
     */
    T copyInto(final T buffer, final long from, final long count, final T copy) {
        if (buffer instanceof ByteBuffer b) {
            final long extent = type.extent();
            ((ByteBuffer) copy).put(0, b, Math.toIntExact(from * extent), Math.toIntExact(count * extent));
        } else {
            final long perElement = type.extent() / unit;
            System.arraycopy(buffer, Math.toIntExact(from * perElement), copy, 0, Math.toIntExact(count * perElement));
        }
        return copy;
    }

    /**
     * @param count elements
     * @return the length of a buffer (array elements, or bytes) that holds exactly {@code count} elements
     * @throws ParioException past what one Java array can hold
     */
    long length(final long count) {
        final long bytes = Math.multiplyExact(count, type.extent());
        final long length = bytes / unit;
        if (length > Integer.MAX_VALUE - 8) {
            throw ParioException.argument(count + " elements of " + type + " need " + length + " " + unitName()
                + ", more than one Java array holds (" + (Integer.MAX_VALUE - 8) + "): use more ranks or a "
                + "distribution that gives each rank less");
        }
        return length;
    }

    /**
     * Throws unless {@code buffer} holds exactly {@code count} elements.
     *
     * @param buffer the user's buffer
     * @param count  the elements it must hold
     * @param what   what it is, for the message
     */
    void check(final Object buffer, final long count, final String what) {
        if (buffer == null) {
            throw ParioException.argument(what + " is null");
        }
        if (!bufferClass.isInstance(buffer)) {
            // reachable through raw types and unchecked casts, which the compiler lets through
            throw ParioException.argument(what + " is a " + buffer.getClass().getSimpleName() + ", but the array's "
                + "elements (" + type + ") are held in a " + bufferClass.getSimpleName());
        }
        BufferTypes.require(buffer, type, what);
        final long want = Math.multiplyExact(count, type.extent());
        final long have = bytesOf(buffer);
        if (buffer instanceof ByteBuffer ? have < want : have != want) {
            throw ParioException.argument(what + " holds " + have / unit + " " + unitName() + " ("
                + (have / type.extent()) + " elements of " + type + "), but this rank's part has " + count
                + " elements, " + want / unit + " " + unitName());
        }
    }

    private String unitName() {
        return unit == 1 && bufferClass != byte[].class ? "bytes" : bufferClass.getSimpleName().replace("[]", "")
            + " values";
    }

    private static long bytesOf(final Object b) {
        if (b instanceof ByteBuffer bb) {
            return bb.capacity();
        }
        return (long) java.lang.reflect.Array.getLength(b) * unitOf(b.getClass());
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof Element<?> e && e.type.equals(type) && e.bufferClass == bufferClass;
    }

    @Override
    public int hashCode() {
        return type.hashCode() * 31 + bufferClass.hashCode();
    }

    @Override
    public String toString() {
        return type + " in " + bufferClass.getSimpleName();
    }
}
