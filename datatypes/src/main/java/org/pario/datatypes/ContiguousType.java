package org.pario.datatypes;

import java.util.List;

/** {@code contiguous(count, oldtype)}: one block of count copies. */
final class ContiguousType extends BlockedType {
    private static final String WHERE = "contiguous";

    final long count;
    final Datatype oldtype;

    ContiguousType(final long count, final Datatype oldtype) {
        super(figures(count, oldtype), oldtype, count, 0);
        this.count = count;
        this.oldtype = oldtype;
    }

    private static Figures figures(final long count, final Datatype oldtype) {
        Checks.nonNegative(WHERE, "count", count);
        Checks.dataType(WHERE, "oldtype", oldtype);
        final Figures f = Figures.empty();
        if (count == 0 || oldtype.size == 0) {
            f.depth = oldtype.depth + 1;
            return f;
        }
        f.addBlock(WHERE, 0, count, oldtype);
        return f;
    }

    @Override
    long blockCount() {
        return 1;
    }

    @Override
    long blockDisplacement(final long block) {
        return 0;
    }

    @Override
    long blockLength(final long block) {
        return count;
    }

    @Override
    Datatype blockType(final long block) {
        return oldtype;
    }

    @Override
    long blockStart(final long block, final boolean external) {
        return block == 0 ? 0 : size(external ? DataRepresentation.EXTERNAL32 : DataRepresentation.NATIVE);
    }

    @Override
    long blockAt(final long position, final boolean external) {
        return 0;
    }

    @Override
    public Combiner combiner() {
        return Combiner.CONTIGUOUS;
    }

    @Override
    public Contents contents() {
        return new Contents(Combiner.CONTIGUOUS, new long[] {count}, new long[0], List.of(oldtype));
    }

    @Override
    void appendExpression(final StringBuilder out) {
        out.append("contiguous(").append(count).append(", ");
        oldtype.appendExpression(out);
        out.append(')');
    }

    @Override
    boolean sameArguments(final Datatype other) {
        final ContiguousType o = (ContiguousType) other;
        return count == o.count && oldtype.equals(o.oldtype);
    }
}
