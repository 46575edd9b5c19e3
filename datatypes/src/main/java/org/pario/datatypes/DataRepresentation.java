package org.pario.datatypes;

import java.util.Locale;

import org.pario.ParioException;

/**
 * How data is laid out in a packed stream or a file: MPI's data representations.
 */
public enum DataRepresentation {
    /** This machine's C layout (little-endian, LP64): bytes as they are in memory. */
    NATIVE("native"),
    /** The implementation's own representation; in Pario identical to {@link #NATIVE}. */
    INTERNAL("internal"),
    /** The standard's portable representation: big-endian, fixed sizes ({@code long} is 4 bytes, IEEE formats). */
    EXTERNAL32("external32");

    private final String mpiName;

    DataRepresentation(final String mpiName) {
        this.mpiName = mpiName;
    }

    /** @return the name MPI uses for this representation ({@code "native"}, {@code "external32"}) */
    public String mpiName() {
        return mpiName;
    }

    /**
     * @param name an MPI data representation name, case-insensitive
     * @return the representation
     * @throws ParioException for an unknown name
     */
    public static DataRepresentation of(final String name) {
        final String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (final DataRepresentation r : values()) {
            if (r.mpiName.equals(n)) {
                return r;
            }
        }
        throw ParioException.argument("unknown data representation '" + name
            + "'; expected native, internal or external32");
    }
}
