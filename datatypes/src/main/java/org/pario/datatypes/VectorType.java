package org.pario.datatypes;

import java.util.List;

/** {@code vector} and {@code hvector}: count equal blocks at a constant stride, described in O(1) space. */
final class VectorType extends BlockedType {
    final long count;
    final long blocklength;
    final long stride;
    final boolean strideInBytes;
    final Datatype oldtype;
    final long strideBytes;

    VectorType(final long count, final long blocklength, final long stride, final boolean strideInBytes,
               final Datatype oldtype) {
        super(figures(count, blocklength, stride, strideInBytes, oldtype), oldtype, blocklength,
            strideInBytes ? stride : stride * oldtype.extent);
        this.count = count;
        this.blocklength = blocklength;
        this.stride = stride;
        this.strideInBytes = strideInBytes;
        this.oldtype = oldtype;
        this.strideBytes = strideInBytes ? stride : stride * oldtype.extent;
    }

    private static Figures figures(final long count, final long blocklength, final long stride,
                                   final boolean strideInBytes, final Datatype oldtype) {
        final String where = strideInBytes ? "hvector" : "vector";
        Checks.nonNegative(where, "count", count);
        Checks.nonNegative(where, "blocklength", blocklength);
        Checks.dataType(where, "oldtype", oldtype);
        final long strideBytes = strideInBytes ? stride : Checks.mul(where, stride, oldtype.extent);
        final Figures f = Figures.empty();
        if (count == 0 || oldtype.size == 0) {
            f.depth = oldtype.depth + 1;
            return f;
        }
        final long last = Checks.mul(where, count - 1, strideBytes);
        f.addBounds(where, Math.min(0, last), blocklength, oldtype);
        f.addBounds(where, Math.max(0, last), blocklength, oldtype);
        f.addData(where, 0, Checks.mul(where, count, blocklength), oldtype);
        if (f.singleRun && count > 1 && strideBytes != blocklength * oldtype.size) {
            f.breakRun();
        }
        return f;
    }

    @Override
    long blockCount() {
        return count;
    }

    @Override
    long blockDisplacement(final long block) {
        return block * strideBytes;
    }

    @Override
    long blockLength(final long block) {
        return blocklength;
    }

    @Override
    Datatype blockType(final long block) {
        return oldtype;
    }

    @Override
    long blockStart(final long block, final boolean external) {
        return block * blocklength * (external ? oldtype.externalSize : oldtype.size);
    }

    @Override
    long blockAt(final long position, final boolean external) {
        return position / (blocklength * (external ? oldtype.externalSize : oldtype.size));
    }

    @Override
    public Combiner combiner() {
        return strideInBytes ? Combiner.HVECTOR : Combiner.VECTOR;
    }

    @Override
    public Contents contents() {
        return strideInBytes
            ? new Contents(Combiner.HVECTOR, new long[] {count, blocklength}, new long[] {stride}, List.of(oldtype))
            : new Contents(Combiner.VECTOR, new long[] {count, blocklength, stride}, new long[0], List.of(oldtype));
    }

    @Override
    void appendExpression(final StringBuilder out) {
        out.append(strideInBytes ? "hvector(" : "vector(").append(count).append(", ").append(blocklength)
            .append(", ").append(stride).append(", ");
        oldtype.appendExpression(out);
        out.append(')');
    }

    @Override
    boolean sameArguments(final Datatype other) {
        final VectorType o = (VectorType) other;
        return count == o.count && blocklength == o.blocklength && stride == o.stride
            && strideInBytes == o.strideInBytes && oldtype.equals(o.oldtype);
    }
}
