package org.pario.datatypes;

import java.util.List;

/** {@code dup(oldtype)}: the same typemap and bounds, remembered as a duplicate. */
final class DupType extends Datatype {
    final Datatype oldtype;

    DupType(final Datatype oldtype) {
        super(Figures.copyOf(Checks.dataType("dup", "oldtype", oldtype)));
        this.oldtype = oldtype;
    }

    @Override
    Datatype layout() {
        return oldtype.layout();
    }

    @Override
    public Combiner combiner() {
        return Combiner.DUP;
    }

    @Override
    public Contents contents() {
        return new Contents(Combiner.DUP, new long[0], new long[0], List.of(oldtype));
    }

    @Override
    void appendExpression(final StringBuilder out) {
        out.append("dup(");
        oldtype.appendExpression(out);
        out.append(')');
    }

    @Override
    boolean sameArguments(final Datatype other) {
        return oldtype.equals(((DupType) other).oldtype);
    }
}
