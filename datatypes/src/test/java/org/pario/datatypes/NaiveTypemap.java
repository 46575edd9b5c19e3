package org.pario.datatypes;

import java.util.ArrayList;
import java.util.List;

/**
 * A deliberately naive expansion of a datatype into its full typemap, written from the MPI standard's
 * definitions and reading only {@link Datatype#contents()} and extents: the oracle the cursor is tested against.
 */
public final class NaiveTypemap {
    /** One entry: basic type, displacement and size. */
    public record Entry(String type, long disp, long size) {
    }

    private NaiveTypemap() {
    }

    public static List<Entry> expand(final Datatype t) {
        final List<Entry> out = new ArrayList<>();
        expand(t, 0, out);
        return out;
    }

    /** @return the merged byte runs of {@code count} elements, adjacent runs joined, empty runs dropped */
    public static List<long[]> runs(final Datatype t, final long count) {
        final List<long[]> runs = new ArrayList<>();
        final List<Entry> one = expand(t);
        for (long k = 0; k < count; k++) {
            for (final Entry e : one) {
                final long off = e.disp() + k * t.extent();
                if (!runs.isEmpty()) {
                    final long[] last = runs.get(runs.size() - 1);
                    if (last[0] + last[1] == off) {
                        last[1] += e.size();
                        continue;
                    }
                }
                runs.add(new long[] {off, e.size()});
            }
        }
        return runs;
    }

    private static void expand(final Datatype t, final long at, final List<Entry> out) {
        final Contents c = t.contents();
        final long[] ints = c.integers();
        final long[] addr = c.addresses();
        switch (c.combiner()) {
            case NAMED -> {
                if (t instanceof BasicType b) {
                    out.add(new Entry(b.name, at, b.size));
                } else if (t instanceof PairType p) {
                    out.add(new Entry(p.value.name, at, p.value.size));
                    out.add(new Entry(p.index.name, at + Math.max(p.value.size, p.index.alignment), p.index.size));
                }
            }
            case DUP, RESIZED -> expand(c.datatypes().get(0), at, out);
            case CONTIGUOUS -> block(c.datatypes().get(0), at, ints[0], out);
            case VECTOR, HVECTOR -> {
                final Datatype old = c.datatypes().get(0);
                final long stride = c.combiner() == Combiner.VECTOR ? ints[2] * old.extent() : addr[0];
                for (long b = 0; b < ints[0]; b++) {
                    block(old, at + b * stride, ints[1], out);
                }
            }
            case INDEXED, HINDEXED -> {
                final Datatype old = c.datatypes().get(0);
                final int n = (int) ints[0];
                for (int b = 0; b < n; b++) {
                    final long d = c.combiner() == Combiner.INDEXED ? ints[1 + n + b] * old.extent() : addr[b];
                    block(old, at + d, ints[1 + b], out);
                }
            }
            case INDEXED_BLOCK, HINDEXED_BLOCK -> {
                final Datatype old = c.datatypes().get(0);
                final int n = (int) ints[0];
                for (int b = 0; b < n; b++) {
                    final long d = c.combiner() == Combiner.INDEXED_BLOCK ? ints[2 + b] * old.extent() : addr[b];
                    block(old, at + d, ints[1], out);
                }
            }
            case STRUCT -> {
                final int n = (int) ints[0];
                for (int b = 0; b < n; b++) {
                    block(c.datatypes().get(b), at + addr[b], ints[1 + b], out);
                }
            }
            case SUBARRAY -> subarray(ints, c.datatypes().get(0), at, out);
            case DARRAY -> darray(ints, c.datatypes().get(0), at, out);
            default -> throw new IllegalStateException(c.combiner().toString());
        }
    }

    private static void block(final Datatype old, final long at, final long n, final List<Entry> out) {
        for (long k = 0; k < n; k++) {
            expand(old, at + k * old.extent(), out);
        }
    }

    /** The standard's element order: the fastest dimension innermost; element offsets in the full array. */
    private static void subarray(final long[] ints, final Datatype old, final long at, final List<Entry> out) {
        final int nd = (int) ints[0];
        final long[] sizes = new long[nd];
        final long[] subsizes = new long[nd];
        final long[] starts = new long[nd];
        for (int i = 0; i < nd; i++) {
            sizes[i] = ints[1 + i];
            subsizes[i] = ints[1 + nd + i];
            starts[i] = ints[1 + 2 * nd + i];
        }
        final boolean c = ints[1 + 3 * nd] == Order.C.ordinal();
        final List<long[]> owned = new ArrayList<>();
        for (int i = 0; i < nd; i++) {
            final long[] idx = new long[(int) subsizes[i]];
            for (int k = 0; k < idx.length; k++) {
                idx[k] = starts[i] + k;
            }
            owned.add(idx);
        }
        walk(owned, sizes, c, old, at, out);
    }

    private static void darray(final long[] ints, final Datatype old, final long at, final List<Entry> out) {
        final long size = ints[0];
        final long rank = ints[1];
        final int nd = (int) ints[2];
        final long[] gsizes = new long[nd];
        final long[] psizes = new long[nd];
        final long[] coords = new long[nd];
        for (int i = 0; i < nd; i++) {
            gsizes[i] = ints[3 + i];
            psizes[i] = ints[3 + 3 * nd + i];
        }
        long rest = rank;
        long stride = size;
        for (int i = 0; i < nd; i++) {
            stride /= psizes[i];
            coords[i] = rest / stride;
            rest %= stride;
        }
        final List<long[]> owned = new ArrayList<>();
        for (int i = 0; i < nd; i++) {
            final Distribution d = Distribution.values()[(int) ints[3 + nd + i]];
            long darg = ints[3 + 2 * nd + i];
            if (d == Distribution.NONE) {
                darg = gsizes[i];
            } else if (darg == Datatype.DISTRIBUTE_DFLT_DARG) {
                darg = d == Distribution.BLOCK ? (gsizes[i] + psizes[i] - 1) / psizes[i] : 1;
            }
            final List<Long> idx = new ArrayList<>();
            for (long g = 0; g < gsizes[i]; g++) {
                if ((g / darg) % psizes[i] == coords[i]) {
                    idx.add(g);
                }
            }
            owned.add(idx.stream().mapToLong(Long::longValue).toArray());
        }
        walk(owned, gsizes, ints[3 + 4 * nd] == Order.C.ordinal(), old, at, out);
    }

    /** Emits owned elements with the fastest dimension innermost, each at its offset in the full array. */
    private static void walk(final List<long[]> owned, final long[] sizes, final boolean c, final Datatype old,
                             final long at, final List<Entry> out) {
        final int nd = sizes.length;
        final long[] stride = new long[nd];
        long s = old.extent();
        for (int k = 0; k < nd; k++) {
            final int dim = c ? nd - 1 - k : k;
            stride[dim] = s;
            s *= sizes[dim];
        }
        final int[] order = new int[nd];
        for (int k = 0; k < nd; k++) {
            order[k] = c ? k : nd - 1 - k;
        }
        walk(owned, stride, order, 0, at, old, out);
    }

    private static void walk(final List<long[]> owned, final long[] stride, final int[] order, final int level,
                             final long at, final Datatype old, final List<Entry> out) {
        if (level == order.length) {
            expand(old, at, out);
            return;
        }
        final int dim = order[level];
        for (final long i : owned.get(dim)) {
            walk(owned, stride, order, level + 1, at + i * stride[dim], old, out);
        }
    }
}
