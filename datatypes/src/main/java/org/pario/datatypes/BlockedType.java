package org.pario.datatypes;

/**
 * A node whose data is a sequence of blocks, each block {@code blockLength(b)} copies of {@code blockType(b)}
 * at byte displacement {@code blockDisplacement(b)}, consecutive copies one extent of the block type apart.
 * Contiguous, vector, indexed and struct types are blocked types; the cursor walks them without expanding
 * them, and seeks with {@link #blockAt} (arithmetic for regular types, a binary search over block prefix
 * sums for indexed ones).
 */
abstract class BlockedType extends Datatype {
    /**
     * For types whose blocks are all alike (contiguous, vector): the block type, or null. Lets the cursor's inner
     * loop read plain fields instead of making virtual calls per block.
     */
    final Datatype uniformType;
    /** For uniform types: copies per block. */
    final long uniformLength;
    /** For uniform types: bytes between block starts. */
    final long uniformStride;

    BlockedType(final Figures f) {
        this(f, null, 0, 0);
    }

    BlockedType(final Figures f, final Datatype uniformType, final long uniformLength, final long uniformStride) {
        super(f);
        this.uniformType = uniformType;
        this.uniformLength = uniformLength;
        this.uniformStride = uniformStride;
    }

    abstract long blockCount();

    abstract long blockDisplacement(long block);

    abstract long blockLength(long block);

    abstract Datatype blockType(long block);

    /**
     * @param block    a block index in {@code [0, blockCount()]}
     * @param external true for external32 stream positions, false for native
     * @return the packed-stream bytes of one element of this type that come before the block
     */
    abstract long blockStart(long block, boolean external);

    /**
     * @param position a packed-stream position within one element, {@code 0 <= position < size}
     * @param external true for external32 stream positions
     * @return the block holding that position (never an empty block)
     */
    abstract long blockAt(long position, boolean external);

    /** @return the first index i with {@code prefix[i] > key}, minus one: the block holding position key */
    static int upperBoundMinusOne(final long[] prefix, final long key) {
        int lo = 0;
        int hi = prefix.length;
        while (lo < hi) {
            final int mid = (lo + hi) >>> 1;
            if (prefix[mid] <= key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo - 1;
    }
}
