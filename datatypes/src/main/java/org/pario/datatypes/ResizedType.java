package org.pario.datatypes;

import java.util.List;

/** {@code resized(oldtype, lb, extent)}: the old typemap with new bounds. */
final class ResizedType extends Datatype {
    private static final String WHERE = "resized";

    final Datatype oldtype;
    final long newLb;
    final long newExtent;

    ResizedType(final Datatype oldtype, final long lb, final long extent) {
        super(figures(oldtype, lb, extent));
        this.oldtype = oldtype;
        this.newLb = lb;
        this.newExtent = extent;
    }

    private static Figures figures(final Datatype oldtype, final long lb, final long extent) {
        Checks.dataType(WHERE, "oldtype", oldtype);
        final Figures f = Figures.copyOf(oldtype);
        f.lb = lb;
        f.ub = Checks.add(WHERE, lb, extent);
        return f;
    }

    @Override
    Datatype layout() {
        return oldtype.layout();
    }

    @Override
    public Combiner combiner() {
        return Combiner.RESIZED;
    }

    @Override
    public Contents contents() {
        return new Contents(Combiner.RESIZED, new long[0], new long[] {newLb, newExtent}, List.of(oldtype));
    }

    @Override
    void appendExpression(final StringBuilder out) {
        out.append("resized(");
        oldtype.appendExpression(out);
        out.append(", ").append(newLb).append(", ").append(newExtent).append(')');
    }

    @Override
    boolean sameArguments(final Datatype other) {
        final ResizedType o = (ResizedType) other;
        return newLb == o.newLb && newExtent == o.newExtent && oldtype.equals(o.oldtype);
    }
}
