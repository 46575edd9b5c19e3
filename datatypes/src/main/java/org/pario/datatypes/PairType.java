package org.pario.datatypes;

import java.util.List;

/**
 * A predefined pair type for MINLOC and MAXLOC ({@code MPI_DOUBLE_INT} and friends): named like a predefined
 * type, laid out like the C struct {@code {value; int index;}} with its alignment padding.
 */
final class PairType extends Datatype {
    final String name;
    final Datatype layout;
    final BasicType value;
    final BasicType index;

    PairType(final String name, final BasicType value, final BasicType index) {
        this(name, value, index, layoutOf(value, index));
    }

    private PairType(final String name, final BasicType value, final BasicType index, final Datatype layout) {
        super(Figures.copyOf(layout));
        this.name = name;
        this.layout = layout;
        this.value = value;
        this.index = index;
    }

    private static Datatype layoutOf(final BasicType value, final BasicType index) {
        final long indexOffset = Math.max(value.size, index.alignment);
        return new StructType(new long[] {1, 1}, new long[] {0, indexOffset}, List.of(value, index));
    }

    @Override
    Datatype layout() {
        return layout.layout();
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
