package org.pario.datatypes;

/**
 * The numbers a datatype node carries, computed once at construction. Bounds follow MPICH's model: each
 * constructor replicates the old type's lb/ub and true lb/ub over its copies, a struct pads its extent to the
 * largest member alignment unless a legacy {@code ub} marker fixes it, and a type without data collapses to
 * the empty type (all bounds zero).
 */
final class Figures {
    long size;
    long externalSize;
    long entries;
    long lb;
    long ub;
    long trueLb;
    long trueUb;
    int alignment = 1;
    /** True when one element's data is a single run of bytes in typemap order. */
    boolean singleRun = true;
    /** Where that run starts, relative to the element's origin. */
    long runStart;
    /** The basic type of every typemap entry, or null when they differ or there are none. */
    BasicType homogeneous;
    boolean anyBasic;
    int depth;

    private boolean anyBlock;
    private boolean runOpen;
    private long runEnd;

    static Figures empty() {
        return new Figures();
    }

    /** @return the figures of t, for a node that describes the same data (resized, dup, lowered types) */
    static Figures copyOf(final Datatype t) {
        final Figures f = new Figures();
        f.size = t.size;
        f.externalSize = t.externalSize;
        f.entries = t.entries;
        f.lb = t.lb;
        f.ub = t.ub;
        f.trueLb = t.trueLb;
        f.trueUb = t.trueUb;
        f.alignment = t.alignment;
        f.singleRun = t.singleRun;
        f.runStart = t.runStart;
        f.homogeneous = t.homogeneous;
        f.anyBasic = t.entries > 0;
        f.depth = t.depth;
        return f;
    }

    /**
     * Adds a block of {@code n} copies of {@code t} starting at byte displacement {@code disp}, each copy one
     * extent of {@code t} after the previous; bounds use MPICH's formula, which is also defined for n = 0.
     */
    void addBlock(final String where, final long disp, final long n, final Datatype t) {
        addBounds(where, disp, n, t);
        addData(where, disp, n, t);
    }

    /** Adds only the bounds, alignment and depth of n copies of t at disp. */
    void addBounds(final String where, final long disp, final long n, final Datatype t) {
        final long ext = t.extent;
        final long span = Checks.mul(where, n - 1, ext);
        final long lo = ext < 0 ? span : 0;
        final long hi = ext >= 0 ? span : 0;
        final long blockLb = Checks.add(where, Checks.add(where, disp, t.lb), lo);
        final long blockUb = Checks.add(where, Checks.add(where, disp, t.ub), hi);
        final long blockTrueLb = Checks.add(where, Checks.add(where, disp, t.trueLb), lo);
        final long blockTrueUb = Checks.add(where, Checks.add(where, disp, t.trueUb), hi);
        if (!anyBlock) {
            lb = blockLb;
            ub = blockUb;
            trueLb = blockTrueLb;
            trueUb = blockTrueUb;
            anyBlock = true;
        } else {
            lb = Math.min(lb, blockLb);
            ub = Math.max(ub, blockUb);
            trueLb = Math.min(trueLb, blockTrueLb);
            trueUb = Math.max(trueUb, blockTrueUb);
        }
        alignment = Math.max(alignment, t.alignment);
        depth = Math.max(depth, t.depth + 1);
    }

    /** Adds the data (not the bounds) of n copies of t at disp: sizes, entries, run shape, homogeneity. */
    void addData(final String where, final long disp, final long n, final Datatype t) {
        if (n == 0 || t.size == 0) {
            return;
        }
        size = Checks.add(where, size, Checks.mul(where, n, t.size));
        externalSize = Checks.add(where, externalSize, Checks.mul(where, n, t.externalSize));
        entries = Checks.add(where, entries, Checks.mul(where, n, t.entries));
        if (!anyBasic) {
            homogeneous = t.homogeneous;
            anyBasic = true;
        } else if (homogeneous != t.homogeneous) {
            homogeneous = null;
        }
        if (!singleRun) {
            return;
        }
        if (!t.singleRun || (n > 1 && t.size != t.extent)) {
            singleRun = false;
            return;
        }
        final long start = disp + t.runStart;
        if (!runOpen) {
            runStart = start;
            runEnd = start + n * t.size;
            runOpen = true;
        } else if (start == runEnd) {
            runEnd += n * t.size;
        } else {
            singleRun = false;
        }
    }

    /** Marks the data shape as not a single run without looking at individual blocks. */
    void breakRun() {
        singleRun = false;
    }

    /** Pads the extent to the alignment, as a C compiler pads a struct (MPICH's epsilon). */
    void padToAlignment() {
        final long extent = ub - lb;
        final long rem = Math.floorMod(extent, (long) alignment);
        if (rem != 0) {
            ub += alignment - rem;
        }
    }

    /** Collapses to MPICH's empty type: no data, every bound zero. */
    Figures toEmptyIfNoData() {
        if (size == 0) {
            final Figures e = empty();
            e.depth = depth;
            return e;
        }
        return this;
    }
}
