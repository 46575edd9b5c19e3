package org.pario.comm.internal;

import org.pario.ParioException;
import org.pario.datatypes.Datatype;

/** Argument checks shared by the communicator's operations and the collective algorithms. */
public final class Checks {
    private Checks() {
    }

    public static long count(final String name, final long value) {
        if (value < 0) {
            throw ParioException.argument(name + " must be >= 0, got " + value);
        }
        return value;
    }

    public static Datatype type(final Datatype type) {
        if (type == null) {
            throw ParioException.argument("datatype must not be null");
        }
        return type;
    }

    /** A datatype per rank, none of them null. */
    public static void types(final String name, final Datatype[] types, final int expected) {
        if (types == null || types.length != expected) {
            throw ParioException.argument(name + " must have one entry per rank (" + expected + "), got "
                + (types == null ? "null" : types.length));
        }
        for (int i = 0; i < types.length; i++) {
            if (types[i] == null) {
                throw ParioException.argument(name + "[" + i + "] must be a datatype, got null");
            }
        }
    }

    public static void length(final String name, final long[] values, final int expected) {
        if (values == null || values.length != expected) {
            throw ParioException.argument(name + " must have one entry per rank (" + expected + "), got "
                + (values == null ? "null" : values.length));
        }
        for (int i = 0; i < values.length; i++) {
            if (values[i] < 0 && !name.contains("displs")) {
                throw ParioException.argument(name + "[" + i + "] must be >= 0, got " + values[i]);
            }
        }
    }
}
