package org.pario.datatypes;

import java.nio.ByteBuffer;

import org.pario.ParioException;

/**
 * Which Java buffers may hold the elements of which datatypes. A {@code double[]} holds 8-byte floating values,
 * an {@code int[]} 4-byte integers, and so on: handing an {@code int[]} to an access whose datatype is
 * {@code double} compiles, runs and moves the wrong values, so every typed entry point checks it first.
 * {@code byte[]}, {@code ByteBuffer} and {@link Memory} are raw bytes and hold any type.
 */
public final class BufferTypes {
    private BufferTypes() {
    }

    /**
     * Why a buffer of this class cannot hold values of this type.
     *
     * @param bufferClass the buffer's class ({@code double[].class}, {@code ByteBuffer.class}, ...)
     * @param type        the datatype of the values
     * @return null when it can, else a sentence naming both
     */
    public static String mismatch(final Class<?> bufferClass, final Datatype type) {
        if (bufferClass == byte[].class || ByteBuffer.class.isAssignableFrom(bufferClass)
            || Memory.class.isAssignableFrom(bufferClass)) {
            return null;
        }
        final String javaType = javaName(bufferClass);
        if (javaType == null) {
            return "a " + bufferClass.getName() + " is not a buffer: use a primitive array or a ByteBuffer";
        }
        if (type.size() == 0) {
            return null;
        }
        final Datatype basic = type.homogeneousBasicType().orElse(null);
        if (basic == null) {
            return "a " + javaType + " cannot hold " + type + ", whose values are of several basic types: use a "
                + "ByteBuffer (native byte order) for such elements";
        }
        return holds(bufferClass, basic) ? null
            : "a " + javaType + " cannot hold values of type " + basic.toString()
            + (basic == type ? "" : " (the elements of " + type + ")") + "; " + suggestion(basic);
    }

    /**
     * Throws unless {@code buffer} may hold values of {@code type}.
     *
     * @param buffer the user's buffer
     * @param type   the datatype of its values
     * @param what   what the buffer is, for the message ("the buffer of array 'field'")
     * @throws ParioException of category ARGUMENT naming both types
     */
    public static void require(final Object buffer, final Datatype type, final String what) {
        if (buffer == null) {
            throw ParioException.argument(what + " is null");
        }
        final String why = mismatch(buffer.getClass(), type);
        if (why != null) {
            throw ParioException.argument(what + ": " + why);
        }
    }

    private static boolean holds(final Class<?> bufferClass, final Datatype basic) {
        final BasicKind kind = basic.basicKind().orElse(null);
        final long size = basic.size();
        final boolean integer = kind == BasicKind.SIGNED_INTEGER || kind == BasicKind.UNSIGNED_INTEGER
            || kind == BasicKind.FORTRAN_INTEGER;
        if (bufferClass == double[].class) {
            return kind == BasicKind.FLOATING && size == 8 || kind == BasicKind.COMPLEX && size == 16;
        }
        if (bufferClass == float[].class) {
            return kind == BasicKind.FLOATING && size == 4 || kind == BasicKind.COMPLEX && size == 8;
        }
        if (bufferClass == long[].class) {
            return integer && size == 8;
        }
        if (bufferClass == int[].class) {
            return (integer || kind == BasicKind.LOGICAL) && size == 4;
        }
        if (bufferClass == short[].class) {
            return integer && size == 2;
        }
        if (bufferClass == char[].class) {
            return (integer || kind == BasicKind.CHARACTER) && size == 2;
        }
        return false;
    }

    private static String suggestion(final Datatype basic) {
        for (final Class<?> c : new Class<?>[] {double[].class, float[].class, long[].class, int[].class,
            short[].class, char[].class}) {
            if (holds(c, basic)) {
                return "a " + javaName(c) + " holds them";
            }
        }
        return "use a byte[] or a ByteBuffer";
    }

    private static String javaName(final Class<?> c) {
        if (c == double[].class) {
            return "double[]";
        } else if (c == float[].class) {
            return "float[]";
        } else if (c == long[].class) {
            return "long[]";
        } else if (c == int[].class) {
            return "int[]";
        } else if (c == short[].class) {
            return "short[]";
        } else if (c == char[].class) {
            return "char[]";
        }
        return null;
    }
}
