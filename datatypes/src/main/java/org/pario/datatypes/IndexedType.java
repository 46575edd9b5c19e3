package org.pario.datatypes;

import java.util.List;

/**
 * {@code indexed}, {@code hindexed}, {@code indexed_block} and {@code hindexed_block}: blocks of one old type at
 * explicit displacements. Keeps the argument arrays plus one prefix-sum array, so seeking is a binary search.
 */
final class IndexedType extends BlockedType {
    final Combiner combiner;
    /** Per-block lengths, or null for the block variants. */
    final long[] blocklengths;
    final long blocklength;
    final long[] displacements;
    final long[] byteDisplacements;
    /** elementPrefix[b] = copies of oldtype in blocks before b; length blockCount + 1. */
    final long[] elementPrefix;
    final Datatype oldtype;

    private IndexedType(final Combiner combiner, final long[] blocklengths, final long blocklength,
                        final long[] displacements, final long[] byteDisplacements, final long[] elementPrefix,
                        final Datatype oldtype, final Figures figures) {
        super(figures);
        this.combiner = combiner;
        this.blocklengths = blocklengths;
        this.blocklength = blocklength;
        this.displacements = displacements;
        this.byteDisplacements = byteDisplacements;
        this.elementPrefix = elementPrefix;
        this.oldtype = oldtype;
    }

    static IndexedType create(final Combiner combiner, final long[] blocklengths, final long blocklength,
                              final long[] displacements, final Datatype oldtype) {
        final String where = combiner.name().toLowerCase(java.util.Locale.ROOT);
        final boolean uniform = blocklengths == null;
        final boolean inBytes = combiner == Combiner.HINDEXED || combiner == Combiner.HINDEXED_BLOCK;
        Checks.notNull(where, "displacements", displacements);
        Checks.dataType(where, "oldtype", oldtype);
        final long[] displs = displacements.clone();
        final long[] lengths = uniform ? null : blocklengths.clone();
        if (uniform) {
            Checks.nonNegative(where, "blocklength", blocklength);
        } else {
            Checks.sameLength(where, "blocklengths", lengths.length, "displacements", displs.length);
            for (int i = 0; i < lengths.length; i++) {
                Checks.nonNegative(where, "blocklengths[" + i + "]", lengths[i]);
            }
        }
        final int n = displs.length;
        final long[] bytes = new long[n];
        final long[] prefix = new long[n + 1];
        for (int i = 0; i < n; i++) {
            bytes[i] = inBytes ? displs[i] : Checks.mul(where, displs[i], oldtype.extent);
            prefix[i + 1] = Checks.add(where, prefix[i], uniform ? blocklength : lengths[i]);
        }
        final Figures f = Figures.empty();
        if (n == 0 || oldtype.size == 0 || prefix[n] == 0 && !uniform) {
            f.depth = oldtype.depth + 1;
        } else {
            for (int i = 0; i < n; i++) {
                final long len = uniform ? blocklength : lengths[i];
                if (len == 0 && !uniform) {
                    continue;
                }
                f.addBlock(where, bytes[i], len, oldtype);
            }
        }
        return new IndexedType(combiner, lengths, blocklength, displs, bytes, prefix, oldtype, f);
    }

    @Override
    long blockCount() {
        return displacements.length;
    }

    @Override
    long blockDisplacement(final long block) {
        return byteDisplacements[(int) block];
    }

    @Override
    long blockLength(final long block) {
        return blocklengths == null ? blocklength : blocklengths[(int) block];
    }

    @Override
    Datatype blockType(final long block) {
        return oldtype;
    }

    @Override
    long blockStart(final long block, final boolean external) {
        return elementPrefix[(int) block] * (external ? oldtype.externalSize : oldtype.size);
    }

    @Override
    long blockAt(final long position, final boolean external) {
        final long element = position / (external ? oldtype.externalSize : oldtype.size);
        return upperBoundMinusOne(elementPrefix, element);
    }

    @Override
    public Combiner combiner() {
        return combiner;
    }

    @Override
    public Contents contents() {
        final int n = displacements.length;
        final boolean inBytes = combiner == Combiner.HINDEXED || combiner == Combiner.HINDEXED_BLOCK;
        final long[] ints;
        int k = 0;
        if (blocklengths == null) {
            ints = new long[2 + (inBytes ? 0 : n)];
            ints[k++] = n;
            ints[k++] = blocklength;
        } else {
            ints = new long[1 + n + (inBytes ? 0 : n)];
            ints[k++] = n;
            System.arraycopy(blocklengths, 0, ints, k, n);
            k += n;
        }
        if (!inBytes) {
            System.arraycopy(displacements, 0, ints, k, n);
        }
        return new Contents(combiner, ints, inBytes ? displacements : new long[0], List.of(oldtype));
    }

    @Override
    void appendExpression(final StringBuilder out) {
        out.append(combiner.name().toLowerCase(java.util.Locale.ROOT)).append('(');
        if (blocklengths == null) {
            out.append(blocklength);
        } else {
            TypeFormat.appendInts(out, blocklengths);
        }
        out.append(", ");
        TypeFormat.appendInts(out, displacements);
        out.append(", ");
        oldtype.appendExpression(out);
        out.append(')');
    }

    @Override
    boolean sameArguments(final Datatype other) {
        final IndexedType o = (IndexedType) other;
        return combiner == o.combiner && blocklength == o.blocklength
            && java.util.Arrays.equals(blocklengths, o.blocklengths)
            && java.util.Arrays.equals(displacements, o.displacements) && oldtype.equals(o.oldtype);
    }
}
