package org.pario.datatypes;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random nested datatypes for property tests: every constructor, negative strides, negative and unsorted
 * displacements, zero-length blocks, legacy markers, resized bounds, subarrays and darrays (with ranks that own
 * nothing) in both orders. Types stay small (a few thousand typemap entries) so oracles can expand them.
 */
public final class RandomTypes {
    private static final Datatype[] BASICS = {Datatype.CHAR, Datatype.SHORT, Datatype.INT, Datatype.FLOAT,
        Datatype.DOUBLE, Datatype.LONG, Datatype.LONG_DOUBLE, Datatype.C_DOUBLE_COMPLEX, Datatype.UNSIGNED_SHORT,
        Datatype.DOUBLE_INT, Datatype.SHORT_INT, Datatype.FLOAT_INT, Datatype.TWO_INT, Datatype.LONG_DOUBLE_INT,
        Datatype.BYTE, Datatype.INT64_T};
    /** Basic types whose external32 form has the native size and no range limits. */
    private static final Datatype[] PORTABLE = {Datatype.CHAR, Datatype.SHORT, Datatype.INT, Datatype.FLOAT,
        Datatype.DOUBLE, Datatype.INT64_T, Datatype.DOUBLE_INT, Datatype.C_FLOAT_COMPLEX, Datatype.BYTE};
    private static final long MAX_ENTRIES = 3000;

    private final Random random;
    private final boolean portable;

    /**
     * @param seed     the seed; the same seed gives the same types
     * @param portable true to use only basic types that convert losslessly to external32 from random bytes
     */
    public RandomTypes(final long seed, final boolean portable) {
        this.random = new Random(seed);
        this.portable = portable;
    }

    /** @return a random type of nesting depth at most {@code depth} */
    public Datatype next(final int depth) {
        for (int attempt = 0; attempt < 20; attempt++) {
            final Datatype t = build(depth);
            if (t.typemapLength() <= MAX_ENTRIES && Math.abs(t.extent()) < 1 << 20
                && Math.abs(t.trueExtent()) < 1 << 20 && Math.abs(t.lb()) < 1 << 20) {
                return t;
            }
        }
        return basic();
    }

    private Datatype basic() {
        final Datatype[] from = portable ? PORTABLE : BASICS;
        return from[random.nextInt(from.length)];
    }

    private int small(final int bound) {
        return random.nextInt(bound);
    }

    /** A count in [0, bound), zero only one time in six: empty types are edge cases, not the common case. */
    private int count(final int bound) {
        return random.nextInt(6) == 0 ? 0 : 1 + random.nextInt(bound - 1);
    }

    private int signed(final int bound) {
        return random.nextInt(2 * bound + 1) - bound;
    }

    private Datatype build(final int depth) {
        if (depth == 0 || random.nextInt(5) == 0) {
            return basic();
        }
        final int kind = random.nextInt(13);
        switch (kind) {
            case 0:
                return Datatype.contiguous(count(5), build(depth - 1));
            case 1:
                return Datatype.vector(count(5), count(4), signed(6), build(depth - 1));
            case 2:
                return Datatype.hvector(count(5), count(4), signed(64), build(depth - 1));
            case 3:
            case 4: {
                final int n = count(5);
                final long[] bl = new long[n];
                final long[] d = new long[n];
                for (int i = 0; i < n; i++) {
                    bl[i] = small(4);
                    d[i] = kind == 3 ? signed(10) : signed(100);
                }
                final Datatype old = build(depth - 1);
                return kind == 3 ? Datatype.indexed(bl, d, old) : Datatype.hindexed(bl, d, old);
            }
            case 5:
            case 6: {
                final int n = count(5);
                final long[] d = new long[n];
                for (int i = 0; i < n; i++) {
                    d[i] = kind == 5 ? signed(10) : signed(100);
                }
                final Datatype old = build(depth - 1);
                final long bl = 1 + small(3);
                return kind == 5 ? Datatype.indexedBlock(bl, d, old) : Datatype.hindexedBlock(bl, d, old);
            }
            case 7: {
                final int n = 1 + small(4);
                final long[] bl = new long[n];
                final long[] d = new long[n];
                final List<Datatype> types = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    bl[i] = small(4);
                    d[i] = signed(80);
                    types.add(build(depth - 1));
                }
                return Datatype.struct(bl, d, types);
            }
            case 8: {
                final List<Datatype> types = new ArrayList<>();
                final long[] bl = {1 + small(2), 1, 1};
                final long[] d = {signed(20), signed(30), 0};
                types.add(build(depth - 1));
                types.add(random.nextBoolean() ? Datatype.LB : Datatype.UB);
                types.add(random.nextBoolean() ? Datatype.UB : basic());
                d[2] = types.get(2) == Datatype.UB ? 40 + small(40) : small(40);
                return Datatype.struct(bl, d, types);
            }
            case 9:
                return Datatype.resized(build(depth - 1), signed(16), small(64) + (random.nextInt(8) == 0 ? -24 : 0));
            case 10: {
                final int nd = 1 + small(3);
                final long[] sizes = new long[nd];
                final long[] subsizes = new long[nd];
                final long[] starts = new long[nd];
                for (int i = 0; i < nd; i++) {
                    sizes[i] = 1 + small(6);
                    subsizes[i] = 1 + small((int) sizes[i]);
                    starts[i] = small((int) (sizes[i] - subsizes[i] + 1));
                }
                return Datatype.subarray(sizes, subsizes, starts, random.nextBoolean() ? Order.C : Order.FORTRAN,
                    build(depth - 1));
            }
            case 11:
                return darray(build(depth - 1));
            default:
                return Datatype.dup(build(depth - 1));
        }
    }

    private Datatype darray(final Datatype old) {
        final int nd = 1 + small(3);
        final long[] gsizes = new long[nd];
        final long[] psizes = new long[nd];
        final long[] dargs = new long[nd];
        final Distribution[] distribs = new Distribution[nd];
        long size = 1;
        for (int i = 0; i < nd; i++) {
            gsizes[i] = 1 + small(9);
            distribs[i] = Distribution.values()[small(3)];
            psizes[i] = distribs[i] == Distribution.NONE ? 1 : 1 + small(3);
            size *= psizes[i];
            switch (distribs[i]) {
                case BLOCK -> {
                    final long min = (gsizes[i] + psizes[i] - 1) / psizes[i];
                    dargs[i] = random.nextBoolean() ? Datatype.DISTRIBUTE_DFLT_DARG : min + small(3);
                }
                case CYCLIC -> dargs[i] = random.nextBoolean() ? Datatype.DISTRIBUTE_DFLT_DARG : 1 + small(4);
                default -> dargs[i] = Datatype.DISTRIBUTE_DFLT_DARG;
            }
        }
        return Datatype.darray(size, small((int) size), gsizes, distribs, dargs, psizes,
            random.nextBoolean() ? Order.C : Order.FORTRAN, old);
    }
}
