package org.pario.datatypes;

/** Small helpers for writing type expressions. */
final class TypeFormat {
    private TypeFormat() {
    }

    static void appendInts(final StringBuilder out, final long[] values) {
        out.append('[');
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                out.append(',');
            }
            out.append(values[i]);
        }
        out.append(']');
    }
}
