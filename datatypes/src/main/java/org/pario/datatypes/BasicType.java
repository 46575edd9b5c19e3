package org.pario.datatypes;

import java.util.List;

/**
 * A predefined basic type: the leaves of every typemap. Sizes and alignments are this machine's C layout
 * (x86-64, LP64); external32 sizes and the conversion rule follow the MPI standard's table, as MPICH does.
 */
final class BasicType extends Datatype {
    /** How an element is converted between the native and the external32 representation. */
    enum Conversion {
        /** Single bytes: copied as they are. */
        COPY,
        /** Same size: the byte order of each component is reversed. */
        SWAP,
        /** A signed native integer stored in fewer external bytes; values out of range are refused. */
        NARROW_SIGNED,
        /** An unsigned native integer stored in fewer external bytes; values out of range are refused. */
        NARROW_UNSIGNED,
        /** x87 80-bit extended precision in 16 native bytes, IEEE binary128 in external32. */
        X87
    }

    final String name;
    final Conversion conversion;
    final BasicKind kind;
    /** Bytes per component: the unit whose byte order external32 reverses (half a complex number). */
    final int componentSize;

    BasicType(final String name, final int size, final int externalSize, final int alignment,
              final Conversion conversion, final int componentSize, final BasicKind kind) {
        super(figures(size, externalSize, alignment));
        this.name = name;
        this.kind = kind;
        this.conversion = conversion;
        this.componentSize = componentSize;
    }

    private static Figures figures(final int size, final int externalSize, final int alignment) {
        final Figures f = Figures.empty();
        f.size = size;
        f.externalSize = externalSize;
        f.entries = 1;
        f.ub = size;
        f.trueUb = size;
        f.alignment = alignment;
        f.anyBasic = true;
        return f;
    }

    @Override
    public Combiner combiner() {
        return Combiner.NAMED;
    }

    @Override
    public Contents contents() {
        return new Contents(Combiner.NAMED, new long[0], new long[0], List.of());
    }

    @Override
    void appendExpression(final StringBuilder out) {
        out.append(name);
    }

    @Override
    boolean sameArguments(final Datatype other) {
        return other == this;
    }
}
