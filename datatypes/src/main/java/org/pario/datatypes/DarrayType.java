package org.pario.datatypes;

import java.util.Arrays;
import java.util.List;

import org.pario.ParioException;

/**
 * {@code darray(size, rank, gsizes, distribs, dargs, psizes, order, oldtype)}, lowered once with the standard's
 * {@code cyclic()} function, one dimension at a time from the fastest varying: BLOCK and NONE are reduced to
 * CYCLIC with the standard's dargs, and each dimension becomes at most one strided vector of full blocks plus
 * one last partial block, resized to the dimension's full extent. The lowered tree has O(ndims) nodes whatever
 * the array size, so a darray over 10^12 elements is built in microseconds.
 */
final class DarrayType extends Datatype {
    private static final String WHERE = "darray";

    final long processes;
    final long rank;
    final long[] gsizes;
    final Distribution[] distribs;
    final long[] dargs;
    final long[] psizes;
    final Order order;
    final Datatype oldtype;
    final Datatype lowered;

    /** Copies the arguments, checks and lowers them, and builds the type. */
    static DarrayType create(final long size, final long rank, final long[] gsizes, final Distribution[] distribs,
                             final long[] dargs, final long[] psizes, final Order order, final Datatype oldtype) {
        final long[] g = copy(gsizes, "gsizes");
        final Distribution[] d = copy(distribs);
        final long[] a = copy(dargs, "dargs");
        final long[] p = copy(psizes, "psizes");
        return new DarrayType(size, rank, g, d, a, p, order, oldtype, lower(size, rank, g, d, a, p, order, oldtype));
    }

    private DarrayType(final long size, final long rank, final long[] gsizes, final Distribution[] distribs,
                       final long[] dargs, final long[] psizes, final Order order, final Datatype oldtype,
                       final Datatype lowered) {
        super(Figures.copyOf(lowered));
        this.processes = size;
        this.rank = rank;
        this.gsizes = gsizes;
        this.distribs = distribs;
        this.dargs = dargs;
        this.psizes = psizes;
        this.order = order;
        this.oldtype = oldtype;
        this.lowered = lowered;
    }

    private static long[] copy(final long[] a, final String name) {
        return Checks.notNull(WHERE, name, a).clone();
    }

    private static Distribution[] copy(final Distribution[] a) {
        return Checks.notNull(WHERE, "distribs", a).clone();
    }

    private static Datatype lower(final long size, final long rank, final long[] gsizes,
                                  final Distribution[] distribs, final long[] dargs, final long[] psizes,
                                  final Order order, final Datatype oldtype) {
        Checks.positive(WHERE, "size", size);
        if (rank < 0 || rank >= size) {
            throw ParioException.argument(WHERE + ": rank must be in [0, size) = [0, " + size + "), got " + rank);
        }
        Checks.notNull(WHERE, "order", order);
        Checks.dataType(WHERE, "oldtype", oldtype);
        final int ndims = gsizes.length;
        if (ndims == 0) {
            throw ParioException.argument(WHERE + ": gsizes must have at least one dimension");
        }
        Checks.sameLength(WHERE, "gsizes", ndims, "distribs", distribs.length);
        Checks.sameLength(WHERE, "gsizes", ndims, "dargs", dargs.length);
        Checks.sameLength(WHERE, "gsizes", ndims, "psizes", psizes.length);
        long product = 1;
        final long[] effectiveDargs = new long[ndims];
        for (int i = 0; i < ndims; i++) {
            Checks.positive(WHERE, "gsizes[" + i + "]", gsizes[i]);
            Checks.positive(WHERE, "psizes[" + i + "]", psizes[i]);
            Checks.notNull(WHERE, "distribs[" + i + "]", distribs[i]);
            product = Checks.mul(WHERE, product, psizes[i]);
            effectiveDargs[i] = effectiveDarg(i, gsizes[i], distribs[i], dargs[i], psizes[i]);
        }
        if (product != size) {
            throw ParioException.argument(WHERE + ": the product of psizes " + Arrays.toString(psizes) + " is "
                + product + " but size is " + size);
        }
        final long[] coords = gridCoordinates(rank, psizes);
        Datatype t = oldtype;
        for (int k = 0; k < ndims; k++) {
            final int dim = order == Order.C ? ndims - 1 - k : k;
            t = cyclic(effectiveDargs[dim], gsizes[dim], coords[dim], psizes[dim], t);
        }
        return t;
    }

    private static long effectiveDarg(final int i, final long gsize, final Distribution distrib, final long darg,
                                      final long psize) {
        final boolean dflt = darg == Datatype.DISTRIBUTE_DFLT_DARG;
        if (!dflt && distrib != Distribution.NONE && darg <= 0) {
            throw ParioException.argument(WHERE + ": dargs[" + i + "] must be > 0 or the default, got " + darg);
        }
        switch (distrib) {
            case NONE:
                if (psize != 1) {
                    throw ParioException.argument(WHERE + ": distribs[" + i + "] is NONE but psizes[" + i + "] = "
                        + psize + "; an undistributed dimension needs psizes[" + i + "] = 1");
                }
                return gsize;
            case CYCLIC:
                return dflt ? 1 : darg;
            case BLOCK:
            default:
                if (dflt) {
                    return (gsize + psize - 1) / psize;
                }
                if (Checks.mul(WHERE, darg, psize) < gsize) {
                    throw ParioException.argument(WHERE + ": distribs[" + i + "] is BLOCK with dargs[" + i + "] = " + darg
                        + " and psizes[" + i + "] = " + psize + ", which cover only " + darg * psize + " of gsizes["
                        + i + "] = " + gsize + " elements (need dargs * psizes >= gsizes)");
                }
                return darg;
        }
    }

    /** Row-major coordinates of rank in the process grid, whatever the array order (MPI's rule). */
    static long[] gridCoordinates(final long rank, final long[] psizes) {
        final long[] coords = new long[psizes.length];
        long remaining = rank;
        long stride = 1;
        for (final long p : psizes) {
            stride *= p;
        }
        for (int i = 0; i < psizes.length; i++) {
            stride /= psizes[i];
            coords[i] = remaining / stride;
            remaining %= stride;
        }
        return coords;
    }

    /** The standard's {@code cyclic(darg, gsize, r, psize, oldtype)}, as at most two blocks and a resize. */
    private static Datatype cyclic(final long darg, final long gsize, final long r, final long psize,
                                   final Datatype oldtype) {
        final long ext = oldtype.extent;
        final long nblocks = gsize / darg + (gsize % darg == 0 ? 0 : 1);
        long count = nblocks / psize;
        if (r < nblocks - count * psize) {
            count++;
        }
        final long fullExtent = Checks.mul(WHERE, gsize, ext);
        if (count == 0) {
            return new ResizedType(new ContiguousType(0, oldtype), 0, fullExtent);
        }
        final long cycle = Checks.mul(WHERE, Checks.mul(WHERE, psize, darg), ext);
        final long lastInCycle = gsize % (psize * darg);
        long dargLast;
        if (lastInCycle == 0) {
            dargLast = darg;
        } else {
            dargLast = lastInCycle - darg * r;
            if (dargLast > darg) {
                dargLast = darg;
            }
            if (dargLast <= 0) {
                dargLast = darg;
            }
        }
        final long first = Checks.mul(WHERE, Checks.mul(WHERE, r, darg), ext);
        final Datatype data;
        if (dargLast == darg) {
            data = place(first, new VectorType(count, darg, cycle, true, oldtype));
        } else if (count == 1) {
            data = place(first, new ContiguousType(dargLast, oldtype));
        } else {
            final long lastDisp = Checks.add(WHERE, first, Checks.mul(WHERE, count - 1, cycle));
            data = new StructType(new long[] {1, 1}, new long[] {first, lastDisp},
                List.of(new VectorType(count - 1, darg, cycle, true, oldtype), new ContiguousType(dargLast, oldtype)));
        }
        return new ResizedType(data, 0, fullExtent);
    }

    private static Datatype place(final long displacement, final Datatype t) {
        return displacement == 0 ? t : new StructType(new long[] {1}, new long[] {displacement}, List.of(t));
    }

    @Override
    Datatype layout() {
        return lowered.layout();
    }

    @Override
    public Combiner combiner() {
        return Combiner.DARRAY;
    }

    @Override
    public Contents contents() {
        final int n = gsizes.length;
        final long[] ints = new long[4 + 4 * n];
        ints[0] = processes;
        ints[1] = rank;
        ints[2] = n;
        for (int i = 0; i < n; i++) {
            ints[3 + i] = gsizes[i];
            ints[3 + n + i] = distribs[i].ordinal();
            ints[3 + 2 * n + i] = dargs[i];
            ints[3 + 3 * n + i] = psizes[i];
        }
        ints[3 + 4 * n] = order.ordinal();
        return new Contents(Combiner.DARRAY, ints, new long[0], List.of(oldtype));
    }

    @Override
    void appendExpression(final StringBuilder out) {
        out.append("darray(").append(processes).append(", ").append(rank).append(", ");
        TypeFormat.appendInts(out, gsizes);
        out.append(", [");
        for (int i = 0; i < distribs.length; i++) {
            out.append(i > 0 ? "," : "").append(distribs[i].name().toLowerCase(java.util.Locale.ROOT));
        }
        out.append("], [");
        for (int i = 0; i < dargs.length; i++) {
            out.append(i > 0 ? "," : "");
            if (dargs[i] == Datatype.DISTRIBUTE_DFLT_DARG) {
                out.append("dflt");
            } else {
                out.append(dargs[i]);
            }
        }
        out.append("], ");
        TypeFormat.appendInts(out, psizes);
        out.append(", ").append(order == Order.C ? "c" : "fortran").append(", ");
        oldtype.appendExpression(out);
        out.append(')');
    }

    @Override
    boolean sameArguments(final Datatype other) {
        final DarrayType o = (DarrayType) other;
        return processes == o.processes && rank == o.rank && Arrays.equals(gsizes, o.gsizes)
            && Arrays.equals(distribs, o.distribs) && Arrays.equals(dargs, o.dargs) && Arrays.equals(psizes, o.psizes)
            && order == o.order && oldtype.equals(o.oldtype);
    }
}
