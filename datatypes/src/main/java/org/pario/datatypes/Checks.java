package org.pario.datatypes;

import org.pario.ParioException;

/** Argument checks that name the parameter and its value, and 64-bit arithmetic that refuses to overflow. */
final class Checks {
    private Checks() {
    }

    static long nonNegative(final String where, final String name, final long value) {
        if (value < 0) {
            throw ParioException.argument(where + ": " + name + " must be >= 0, got " + value);
        }
        return value;
    }

    static long positive(final String where, final String name, final long value) {
        if (value <= 0) {
            throw ParioException.argument(where + ": " + name + " must be > 0, got " + value);
        }
        return value;
    }

    static <T> T notNull(final String where, final String name, final T value) {
        if (value == null) {
            throw ParioException.argument(where + ": " + name + " must not be null");
        }
        return value;
    }

    static long mul(final String where, final long a, final long b) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            throw overflow(where, a + " * " + b);
        }
    }

    static long add(final String where, final long a, final long b) {
        try {
            return Math.addExact(a, b);
        } catch (ArithmeticException e) {
            throw overflow(where, a + " + " + b);
        }
    }

    static long sub(final String where, final long a, final long b) {
        try {
            return Math.subtractExact(a, b);
        } catch (ArithmeticException e) {
            throw overflow(where, a + " - " + b);
        }
    }

    static ParioException overflow(final String where, final String expression) {
        return ParioException.argument(where + ": " + expression + " overflows 64 bits (2^63 - 1 bytes or elements)");
    }

    static void sameLength(final String where, final String nameA, final int a, final String nameB, final int b) {
        if (a != b) {
            throw ParioException.argument(where + ": " + nameA + " has " + a + " entries but " + nameB + " has " + b);
        }
    }

    static Datatype dataType(final String where, final String name, final Datatype type) {
        notNull(where, name, type);
        if (type instanceof MarkerType) {
            throw ParioException.argument(where + ": " + name + " is the legacy marker '" + type
                + "', which is only allowed as a struct member");
        }
        return type;
    }
}
