package org.pario.datatypes;

import org.pario.ParioException;

/**
 * Walks the contiguous byte runs of {@code count} elements of a datatype lazily, in typemap order, merging runs
 * that are adjacent in memory. Memory use is a few arrays as deep as the type tree, whatever the element count.
 *
 * <p>The runs are described against two coordinates: the <em>memory</em> offset of a run relative to the buffer
 * origin (element {@code k} of the count starts {@code k * extent} bytes after the origin), and the position
 * of its first byte in the <em>packed stream</em>, the concatenation of all data bytes in typemap order.
 * {@link #seek(long)} moves to any stream position in time proportional to the depth of the type (a binary
 * search per indexed or struct level), and {@link #limit(long)} stops the walk at a stream position, so any
 * byte range of the stream can be visited on its own: this is how pack, unpack, file views and the
 * two-phase planner pipeline their work.
 *
 * <p>A <em>typed</em> cursor never merges runs of different basic types and reports each run's
 * {@link #basicType()}; it is the one used for the {@code external32} representation, where stream positions
 * count external bytes. Its runs are whole elements in memory; a run whose stream range starts or ends inside
 * an element reports that through {@link #skip()} and {@link #streamLength()}.
 *
 * <p>Not thread-safe: one cursor per thread. Creating one is cheap.
 */
public final class Cursor {
    private final Datatype type;
    private final long count;
    private final boolean external;
    private final boolean typed;
    private final long elementStreamSize;
    private final long total;

    private final BlockedType[] node;
    private final long[] base;
    private final long[] block;
    private final long[] elem;
    private int top = -1;

    private boolean hasRaw;
    private long rawOffset;
    private long rawLength;
    private long rawStream;
    private long rawSkip;
    private BasicType rawBasic;
    private long trim;

    private long runOffset;
    private long runLength;
    private long runStream;
    private long runSkip;
    private long runPosition;
    private BasicType runBasic;

    private long position;
    private long limit;

    /**
     * Arithmetic run generator for the commonest shape, a vector whose blocks are each one dense run: the
     * remaining blocks' runs are offset, offset + stride, ... with no frame work at all.
     */
    private long fastRemaining;
    private long fastNext;
    private long fastStride;
    private long fastLength;
    private long fastStream;
    private BasicType fastBasic;

    Cursor(final Datatype type, final long count, final DataRepresentation representation, final boolean typed) {
        this.type = type;
        this.count = count;
        this.external = representation == DataRepresentation.EXTERNAL32;
        this.typed = typed || external;
        this.elementStreamSize = type.size(representation);
        this.total = streamSize(type, count, representation);
        final int frames = type.depth + 2;
        this.node = new BlockedType[frames];
        this.base = new long[frames];
        this.block = new long[frames];
        this.elem = new long[frames];
        this.limit = total;
        seek(0);
    }

    /**
     * @return the bytes of the packed stream of {@code count} elements of {@code type} in {@code representation}
     * @throws ParioException when the stream or the elements' extent overflow 64 bits
     */
    static long streamSize(final Datatype type, final long count, final DataRepresentation representation) {
        try {
            Math.multiplyExact(count, type.extent);
            return Math.multiplyExact(count, type.size(representation));
        } catch (ArithmeticException e) {
            throw ParioException.argument("cursor: " + count + " elements of " + type.size + " bytes (extent "
                + type.extent + ") overflow 64 bits");
        }
    }

    /**
     * Creates a typed cursor, whose runs each hold one basic type and report it, over stream positions of the
     * given representation.
     *
     * @param type           the datatype
     * @param count          number of elements
     * @param representation native (or internal) or external32 stream positions
     * @return a new cursor positioned at the start of the stream
     */
    public static Cursor typed(final Datatype type, final long count, final DataRepresentation representation) {
        return new Cursor(type, Checks.nonNegative("cursor", "count", count), representation, true);
    }

    /** @return the length of the whole packed stream in bytes */
    public long streamSize() {
        return total;
    }

    /**
     * Moves to a position of the packed stream; the next run starts there. Clears nothing else: a limit set
     * earlier stays in force.
     *
     * @param streamPosition a position in {@code [0, streamSize()]}
     * @return this cursor
     */
    public Cursor seek(final long streamPosition) {
        if (streamPosition < 0 || streamPosition > total) {
            throw ParioException.argument("cursor: seek position must be in [0, " + total + "], got " + streamPosition);
        }
        hasRaw = false;
        trim = 0;
        fastRemaining = 0;
        position = streamPosition;
        top = 0;
        node[0] = null;
        base[0] = 0;
        block[0] = 0;
        if (elementStreamSize == 0) {
            elem[0] = count;
            return this;
        }
        elem[0] = streamPosition / elementStreamSize;
        long rest = streamPosition % elementStreamSize;
        int f = 0;
        while (rest != 0) {
            final Datatype t = blockType(f);
            if (isLeaf(t)) {
                trim = rest;
                break;
            }
            final long j = elem[f];
            final long at = base[f] + blockDisplacement(f) + j * t.extent;
            elem[f] = j + 1;
            final BlockedType child = (BlockedType) t.layout();
            f = push(child, at);
            final long b = child.blockAt(rest, external);
            rest -= child.blockStart(b, external);
            final Datatype bt = child.blockType(b);
            final long btSize = bt.size(external ? DataRepresentation.EXTERNAL32 : DataRepresentation.NATIVE);
            block[f] = b;
            elem[f] = rest / btSize;
            rest %= btSize;
        }
        return this;
    }

    /**
     * Stops the walk at a stream position: no run reaches past it, the last one is cut.
     *
     * @param streamEnd a position in {@code [0, streamSize()]}
     * @return this cursor
     */
    public Cursor limit(final long streamEnd) {
        if (streamEnd < 0 || streamEnd > total) {
            throw ParioException.argument("cursor: limit must be in [0, " + total + "], got " + streamEnd);
        }
        this.limit = streamEnd;
        return this;
    }

    /** @return stream bytes left before the limit */
    public long remaining() {
        return Math.max(0, limit - position);
    }

    /** @return the stream position of the next byte the cursor will yield */
    public long position() {
        return position;
    }

    /**
     * Advances to the next run.
     *
     * @return false when the stream (or the limit) is exhausted
     */
    public boolean next() {
        if (position >= limit || !fetch()) {
            return false;
        }
        hasRaw = false;
        runOffset = rawOffset;
        runLength = rawLength;
        runStream = rawStream;
        runSkip = rawSkip;
        runBasic = rawBasic;
        runPosition = position;
        if (position + runStream > limit) {
            cutAtLimit();
            return true;
        }
        position += runStream;
        if (fastRemaining > 0 && fastStride != fastLength && !hasRaw) {
            // the next run starts one stride after this one, so it cannot be adjacent to it
            return true;
        }
        while (position < limit && fetch()) {
            if (rawSkip != 0 || rawOffset != runOffset + runLength || typed && rawBasic != runBasic) {
                break;
            }
            hasRaw = false;
            runLength += rawLength;
            runStream += rawStream;
            if (cutAtLimit()) {
                runStream -= limitOvershoot;
                return true;
            }
            position += rawStream;
        }
        return true;
    }

    private long limitOvershoot;

    /** Cuts the current run at the limit; returns true when it did (the walk then ends). */
    private boolean cutAtLimit() {
        final long runEnd = runPosition + runStream;
        if (runEnd <= limit) {
            limitOvershoot = 0;
            return false;
        }
        final long allowed = limit - runPosition;
        if (typed) {
            final long unitStream = runBasic.size(external ? DataRepresentation.EXTERNAL32 : DataRepresentation.NATIVE);
            final long elements = (runSkip + allowed + unitStream - 1) / unitStream;
            runLength = elements * runBasic.size;
        } else {
            runLength = allowed;
        }
        limitOvershoot = 0;
        runStream = allowed;
        position = limit;
        return true;
    }

    /**
     * How many runs follow the current one in a regular stretch: each as long as the current run, the k-th
     * starting {@code k * repeatStride()} bytes after it, none merging with its neighbours, all before the limit.
     * A caller may handle them itself and then {@link #skipRepeats(long)} them, instead of one {@link #next()}
     * per run. A stretch is not bound to one block of the type: it goes on into the following elements, blocks
     * and parents of the type tree for as long as their runs keep its length and stride (a cyclic darray's part is
     * one stretch).
     *
     * @return the number of such runs, possibly 0
     */
    public long repeats() {
        if (fastRemaining == 0 || hasRaw || runSkip != 0 || runLength != fastLength
            || runOffset + fastStride != fastNext || fastStride == fastLength) {
            return 0;
        }
        return Math.min(fastRemaining, (limit - position) / fastStream);
    }

    /** @return the distance in bytes between the starts of consecutive runs of a regular stretch */
    public long repeatStride() {
        return fastStride;
    }

    /**
     * Consumes runs of the regular stretch after the current run; the current run becomes the last one skipped.
     *
     * @param n how many, at most {@link #repeats()}
     */
    public void skipRepeats(final long n) {
        if (n < 0 || n > repeats()) {
            throw ParioException.argument("cursor: cannot skip " + n + " runs, " + repeats() + " follow");
        }
        if (n == 0) {
            return;
        }
        runOffset += n * fastStride;
        runPosition = position + (n - 1) * fastStream;
        position += n * fastStream;
        fastNext += n * fastStride;
        fastRemaining -= n;
    }

    /** @return the memory offset of the current run's first byte, relative to the buffer origin */
    public long offset() {
        return runOffset;
    }

    /**
     * @return the memory length of the current run; for a typed cursor a whole number of elements, which may
     *     extend past {@link #streamLength()} where the run starts or ends inside an element
     */
    public long length() {
        return runLength;
    }

    /** @return the stream bytes of the current run */
    public long streamLength() {
        return runStream;
    }

    /** @return the stream position of the current run's first byte */
    public long streamPosition() {
        return runPosition;
    }

    /** @return typed cursors only: stream bytes of the run's first element that lie before the run */
    public long skip() {
        return runSkip;
    }

    /** @return typed cursors only: the basic type of every element of the current run */
    public Datatype basicType() {
        return runBasic;
    }

    BasicType basic() {
        return runBasic;
    }

    boolean isTyped() {
        return typed;
    }

    private boolean fetch() {
        if (hasRaw) {
            return true;
        }
        if (!advance()) {
            return false;
        }
        rawSkip = 0;
        if (trim != 0) {
            if (typed) {
                final long unitStream = rawBasic.size(external ? DataRepresentation.EXTERNAL32 : DataRepresentation.NATIVE);
                final long whole = trim / unitStream;
                rawOffset += whole * rawBasic.size;
                rawLength -= whole * rawBasic.size;
                rawSkip = trim % unitStream;
            } else {
                rawOffset += trim;
                rawLength -= trim;
            }
            rawStream -= trim;
            trim = 0;
        }
        hasRaw = true;
        return true;
    }

    /** Produces the next raw run (a leaf's data, or a dense leaf's remaining copies) into the raw fields. */
    private boolean advance() {
        if (fastRemaining > 0) {
            rawOffset = fastNext;
            rawLength = fastLength;
            rawStream = fastStream;
            rawBasic = fastBasic;
            fastNext += fastStride;
            fastRemaining--;
            return true;
        }
        while (top >= 0) {
            final int f = top;
            final BlockedType nd = node[f];
            final long b = block[f];
            final Datatype t;
            final long len;
            final long disp;
            if (nd == null) {
                if (b >= 1) {
                    top--;
                    continue;
                }
                t = type;
                len = count;
                disp = 0;
            } else if (nd.uniformType != null) {
                if (b >= nd.blockCount()) {
                    top--;
                    continue;
                }
                t = nd.uniformType;
                len = nd.uniformLength;
                disp = b * nd.uniformStride;
            } else {
                if (b >= nd.blockCount()) {
                    top--;
                    continue;
                }
                t = nd.blockType(b);
                len = nd.blockLength(b);
                disp = nd.blockDisplacement(b);
            }
            final long j = elem[f];
            if (j >= len || t.size == 0) {
                block[f] = b + 1;
                elem[f] = 0;
                continue;
            }
            final long at = base[f] + disp + j * t.extent;
            if (typed ? t.singleRun && t.homogeneous != null : t.singleRun) {
                final long n = t.size == t.extent ? len - j : 1;
                rawOffset = at + t.runStart;
                rawLength = n * t.size;
                rawStream = external ? n * t.externalSize : rawLength;
                rawBasic = t.homogeneous;
                if (j + n < len) {
                    elem[f] = j + n;
                    if (n == 1) {
                        // copies of a type whose run is shorter than its extent: a run every extent, on into what
                        // follows as far as the runs go on at that stride
                        startStretch(0, t.extent);
                        extendStretch(f, 1);
                    }
                } else if (j == 0 && nd != null && nd.uniformType != null) {
                    final long blocks = nd.blockCount();
                    startStretch(blocks - b - 1, nd.uniformStride);
                    block[f] = blocks;
                    elem[f] = 0;
                    extendStretch(f - 1, blocks);
                } else {
                    block[f] = b + 1;
                    elem[f] = 0;
                }
                return true;
            }
            elem[f] = j + 1;
            push((BlockedType) t.layout(), at);
        }
        return false;
    }

    /** Starts a regular stretch of {@code runs} more runs like the raw one, {@code stride} bytes apart. */
    private void startStretch(final long runs, final long stride) {
        fastRemaining = runs;
        fastStride = stride;
        fastNext = rawOffset + stride;
        fastLength = rawLength;
        fastStream = rawStream;
        fastBasic = rawBasic;
    }

    /**
     * Takes into the stretch just started the runs that follow it in the type tree for as long as they go on at its
     * stride: the rows after a row of a cyclic darray, say, whose first run comes one stride after the last run of
     * the row before. The walk then climbs the tree once per such stretch instead of once per row, and a caller of
     * {@link #repeats()} handles all of it in one go. The frames whose runs it takes are used up.
     *
     * @param g        the frame whose current element the stretch has reached the end of
     * @param unitRuns the runs of one element of frame g's current block, which the stretch's stride spaces evenly
     */
    private void extendStretch(int g, long unitRuns) {
        final long stride = fastStride;
        if (stride == fastLength || stride == 0) {
            // runs that touch merge in next(), one at a time: nothing to win
            return;
        }
        for (; g >= 0; g--) {
            final BlockedType nd = node[g];
            final Datatype t;
            final long len;
            if (nd == null) {
                t = type;
                len = count;
            } else if (nd.uniformType != null) {
                t = nd.uniformType;
                len = nd.uniformLength;
            } else {
                t = nd.blockType(block[g]);
                len = nd.blockLength(block[g]);
            }
            // each element's first run one stride after the last run of the element before
            final boolean elementsGoOn = len == 1 || spans(unitRuns, stride, t.extent);
            final long elementsAfter = len - elem[g];
            if (elementsAfter > 0 && !elementsGoOn) {
                return;
            }
            fastRemaining += elementsAfter * unitRuns;
            elem[g] = len;
            top = g;
            if (nd == null) {
                return;
            }
            // and each block's first run one stride after the last run of the block before
            final long blocks = nd.blockCount();
            if (blocks > 1 && !(nd.uniformType != null && elementsGoOn
                && spans(len * unitRuns, stride, nd.uniformStride))) {
                return;
            }
            fastRemaining += (blocks - block[g] - 1) * len * unitRuns;
            block[g] = blocks;
            elem[g] = 0;
            if (!elementsGoOn) {
                return;
            }
            unitRuns *= blocks * len;
        }
    }

    /** @return whether {@code runs} strides of {@code stride} bytes make {@code span} bytes */
    private static boolean spans(final long runs, final long stride, final long span) {
        return Math.abs(runs) <= Long.MAX_VALUE / Math.abs(stride) && runs * stride == span;
    }

    private int push(final BlockedType child, final long at) {
        final int f = ++top;
        node[f] = child;
        base[f] = at;
        block[f] = 0;
        elem[f] = 0;
        return f;
    }

    private Datatype blockType(final int f) {
        return node[f] == null ? type : node[f].blockType(block[f]);
    }

    private long blockDisplacement(final int f) {
        return node[f] == null ? 0 : node[f].blockDisplacement(block[f]);
    }

    private boolean isLeaf(final Datatype t) {
        return t.singleRun && (!typed || t.homogeneous != null);
    }
}
