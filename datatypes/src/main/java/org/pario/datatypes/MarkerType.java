package org.pario.datatypes;

import java.util.List;

/**
 * The legacy {@code MPI_LB} and {@code MPI_UB} pseudo-types. They occupy no space and are only allowed as struct
 * members, where they fix the struct's lower or upper bound.
 */
final class MarkerType extends Datatype {
    final boolean upper;

    MarkerType(final boolean upper) {
        super(Figures.empty());
        this.upper = upper;
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
        out.append(upper ? "ub" : "lb");
    }

    @Override
    boolean sameArguments(final Datatype other) {
        return other == this;
    }
}
