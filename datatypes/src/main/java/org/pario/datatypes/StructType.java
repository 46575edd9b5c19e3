package org.pario.datatypes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code struct(blocklengths, displacements, types)}. Legacy {@code lb}/{@code ub} members are kept for the
 * type's description but take no part in iteration: as in MPICH, the struct of the other members is built
 * first and then resized to the markers. Where several markers of a kind appear, the standard's rule applies
 * (lowest {@code lb}, highest {@code ub}); MPICH instead keeps the last one given. The extent is padded to the
 * members' largest alignment, as a C compiler pads a struct, except when all members have the same type (MPICH
 * builds such a struct as an hindexed type, which is never padded).
 */
final class StructType extends BlockedType {
    private static final String WHERE = "struct";

    final long[] blocklengths;
    final long[] displacements;
    final List<Datatype> types;
    /** Indices of the members that hold data (markers excluded), in typemap order. */
    private final int[] members;
    private final long[] nativePrefix;
    private final long[] externalPrefix;

    StructType(final long[] blocklengths, final long[] displacements, final List<Datatype> types) {
        this(Checks.notNull(WHERE, "blocklengths", blocklengths).clone(),
            Checks.notNull(WHERE, "displacements", displacements).clone(),
            copyTypes(types), null);
    }

    private static List<Datatype> copyTypes(final List<Datatype> types) {
        Checks.notNull(WHERE, "types", types);
        for (int i = 0; i < types.size(); i++) {
            Checks.notNull(WHERE, "types[" + i + "]", types.get(i));
        }
        return List.copyOf(types);
    }

    /** Builds from copied arguments; {@code unused} only tells this constructor apart. */
    private StructType(final long[] blocklengths, final long[] displacements, final List<Datatype> types,
                       final Void unused) {
        super(figures(blocklengths, displacements, types));
        this.blocklengths = blocklengths;
        this.displacements = displacements;
        this.types = types;
        final List<Integer> data = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            if (!(types.get(i) instanceof MarkerType)) {
                data.add(i);
            }
        }
        this.members = data.stream().mapToInt(Integer::intValue).toArray();
        this.nativePrefix = new long[members.length + 1];
        this.externalPrefix = new long[members.length + 1];
        for (int m = 0; m < members.length; m++) {
            final int i = members[m];
            nativePrefix[m + 1] = nativePrefix[m] + blocklengths[i] * types.get(i).size;
            externalPrefix[m + 1] = externalPrefix[m] + blocklengths[i] * types.get(i).externalSize;
        }
    }

    private static Figures figures(final long[] blocklengths, final long[] displacements, final List<Datatype> types) {
        Checks.sameLength(WHERE, "blocklengths", blocklengths.length, "displacements", displacements.length);
        Checks.sameLength(WHERE, "blocklengths", blocklengths.length, "types", types.size());
        boolean anyLb = false;
        boolean anyUb = false;
        long markerLb = 0;
        long markerUb = 0;
        final Figures f = Figures.empty();
        boolean anyMember = false;
        for (int i = 0; i < types.size(); i++) {
            final Datatype t = Checks.notNull(WHERE, "types[" + i + "]", types.get(i));
            Checks.nonNegative(WHERE, "blocklengths[" + i + "]", blocklengths[i]);
            if (t instanceof MarkerType marker) {
                if (marker.upper) {
                    markerUb = anyUb ? Math.max(markerUb, displacements[i]) : displacements[i];
                    anyUb = true;
                } else {
                    markerLb = anyLb ? Math.min(markerLb, displacements[i]) : displacements[i];
                    anyLb = true;
                }
                continue;
            }
            if (blocklengths[i] == 0) {
                continue;
            }
            f.addBlock(WHERE, displacements[i], blocklengths[i], t);
            anyMember = true;
        }
        Figures result = f;
        if (!anyMember || f.size == 0) {
            result = f.toEmptyIfNoData();
        } else if (!allMembersOfOneType(types)) {
            result.padToAlignment();
        }
        if (anyLb || anyUb) {
            final long lb = anyLb ? markerLb : result.lb;
            final long ub = anyUb ? markerUb : result.ub;
            result.lb = lb;
            result.ub = ub;
        }
        return result;
    }

    /**
     * A struct whose members all have one type is an hindexed type in MPICH, and an hindexed type is not padded:
     * {@code struct([1,1],[0,5],[int,int])} has extent 9, not 12. Members of zero length count; markers do not.
     */
    private static boolean allMembersOfOneType(final List<Datatype> types) {
        Datatype first = null;
        for (final Datatype t : types) {
            if (t instanceof MarkerType) {
                continue;
            }
            if (first == null) {
                first = t;
            } else if (!first.equals(t)) {
                return false;
            }
        }
        return true;
    }

    @Override
    long blockCount() {
        return members.length;
    }

    @Override
    long blockDisplacement(final long block) {
        return displacements[members[(int) block]];
    }

    @Override
    long blockLength(final long block) {
        return blocklengths[members[(int) block]];
    }

    @Override
    Datatype blockType(final long block) {
        return types.get(members[(int) block]);
    }

    @Override
    long blockStart(final long block, final boolean external) {
        return (external ? externalPrefix : nativePrefix)[(int) block];
    }

    @Override
    long blockAt(final long position, final boolean external) {
        return upperBoundMinusOne(external ? externalPrefix : nativePrefix, position);
    }

    @Override
    public Combiner combiner() {
        return Combiner.STRUCT;
    }

    @Override
    public Contents contents() {
        final int n = types.size();
        final long[] ints = new long[n + 1];
        ints[0] = n;
        System.arraycopy(blocklengths, 0, ints, 1, n);
        return new Contents(Combiner.STRUCT, ints, displacements, types);
    }

    @Override
    void appendExpression(final StringBuilder out) {
        out.append("struct(");
        TypeFormat.appendInts(out, blocklengths);
        out.append(", ");
        TypeFormat.appendInts(out, displacements);
        out.append(", [");
        for (int i = 0; i < types.size(); i++) {
            if (i > 0) {
                out.append(", ");
            }
            types.get(i).appendExpression(out);
        }
        out.append("])");
    }

    @Override
    boolean sameArguments(final Datatype other) {
        final StructType o = (StructType) other;
        return Arrays.equals(blocklengths, o.blocklengths) && Arrays.equals(displacements, o.displacements)
            && types.equals(o.types);
    }
}
