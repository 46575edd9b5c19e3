package org.pario.datatypes;

import java.util.Arrays;
import java.util.List;

/**
 * {@code subarray(sizes, subsizes, starts, order, oldtype)}, lowered once into the standard's recursive
 * definition: per dimension, innermost first, a block of {@code subsize} copies at {@code start} resized to
 * the dimension's full extent. The lowered tree has two nodes per dimension whatever the array size.
 */
final class SubarrayType extends Datatype {
    private static final String WHERE = "subarray";

    final long[] sizes;
    final long[] subsizes;
    final long[] starts;
    final Order order;
    final Datatype oldtype;
    final Datatype lowered;

    SubarrayType(final long[] sizes, final long[] subsizes, final long[] starts, final Order order,
                 final Datatype oldtype) {
        this(sizes.clone(), subsizes.clone(), starts.clone(), order, oldtype,
            lower(sizes.clone(), subsizes.clone(), starts.clone(), order, oldtype));
    }

    private SubarrayType(final long[] sizes, final long[] subsizes, final long[] starts, final Order order,
                         final Datatype oldtype, final Datatype lowered) {
        super(Figures.copyOf(lowered));
        this.sizes = sizes;
        this.subsizes = subsizes;
        this.starts = starts;
        this.order = order;
        this.oldtype = oldtype;
        this.lowered = lowered;
    }

    private static Datatype lower(final long[] sizes, final long[] subsizes, final long[] starts, final Order order,
                                  final Datatype oldtype) {
        Checks.notNull(WHERE, "sizes", sizes);
        Checks.notNull(WHERE, "subsizes", subsizes);
        Checks.notNull(WHERE, "starts", starts);
        Checks.notNull(WHERE, "order", order);
        Checks.dataType(WHERE, "oldtype", oldtype);
        final int ndims = sizes.length;
        if (ndims == 0) {
            throw org.pario.ParioException.argument(WHERE + ": sizes must have at least one dimension");
        }
        Checks.sameLength(WHERE, "sizes", ndims, "subsizes", subsizes.length);
        Checks.sameLength(WHERE, "sizes", ndims, "starts", starts.length);
        for (int i = 0; i < ndims; i++) {
            Checks.positive(WHERE, "sizes[" + i + "]", sizes[i]);
            Checks.nonNegative(WHERE, "subsizes[" + i + "]", subsizes[i]);
            if (subsizes[i] > sizes[i]) {
                throw org.pario.ParioException.argument(WHERE + ": subsizes[" + i + "] = " + subsizes[i]
                    + " is larger than sizes[" + i + "] = " + sizes[i]);
            }
            Checks.nonNegative(WHERE, "starts[" + i + "]", starts[i]);
            if (starts[i] > sizes[i] - subsizes[i]) {
                throw org.pario.ParioException.argument(WHERE + ": starts[" + i + "] = " + starts[i]
                    + " is out of range: the subarray must fit, so starts[" + i + "] <= sizes[" + i
                    + "] - subsizes[" + i + "] = " + (sizes[i] - subsizes[i]));
            }
        }
        Datatype t = oldtype;
        for (int k = 0; k < ndims; k++) {
            final int dim = order == Order.C ? ndims - 1 - k : k;
            final long ext = t.extent;
            final Datatype block = IndexedType.create(Combiner.HINDEXED, new long[] {subsizes[dim]},
                0, new long[] {Checks.mul(WHERE, starts[dim], ext)}, t);
            t = new ResizedType(block, 0, Checks.mul(WHERE, sizes[dim], ext));
        }
        return t;
    }

    @Override
    Datatype layout() {
        return lowered.layout();
    }

    @Override
    public Combiner combiner() {
        return Combiner.SUBARRAY;
    }

    @Override
    public Contents contents() {
        final int n = sizes.length;
        final long[] ints = new long[2 + 3 * n];
        ints[0] = n;
        System.arraycopy(sizes, 0, ints, 1, n);
        System.arraycopy(subsizes, 0, ints, 1 + n, n);
        System.arraycopy(starts, 0, ints, 1 + 2 * n, n);
        ints[1 + 3 * n] = order.ordinal();
        return new Contents(Combiner.SUBARRAY, ints, new long[0], List.of(oldtype));
    }

    @Override
    void appendExpression(final StringBuilder out) {
        out.append("subarray(");
        TypeFormat.appendInts(out, sizes);
        out.append(", ");
        TypeFormat.appendInts(out, subsizes);
        out.append(", ");
        TypeFormat.appendInts(out, starts);
        out.append(", ").append(order == Order.C ? "c" : "fortran").append(", ");
        oldtype.appendExpression(out);
        out.append(')');
    }

    @Override
    boolean sameArguments(final Datatype other) {
        final SubarrayType o = (SubarrayType) other;
        return Arrays.equals(sizes, o.sizes) && Arrays.equals(subsizes, o.subsizes) && Arrays.equals(starts, o.starts)
            && order == o.order && oldtype.equals(o.oldtype);
    }
}
