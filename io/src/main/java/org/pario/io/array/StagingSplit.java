package org.pario.io.array;

import java.util.List;

/**
 * Where an asynchronous checkpoint splits its data: what lies before one file offset, the same on every rank, is
 * written from the ranks' buffers before the call returns; the rest is copied into staging. One offset for all keeps
 * the two collective writes in file order, as append-only storage needs, and each rank's copy within its bound.
 * A rank's local order is file order, so its elements before an offset are a prefix of its buffer.
 */
final class StagingSplit {
    private StagingSplit() {
    }

    /**
     * The file offset before which this rank's data must be written from its buffers, so that what it copies stays
     * within {@code bound} bytes: the offset of its first element past the first (all - bound) bytes of its data,
     * or {@code Long.MIN_VALUE} when everything fits.
     */
    static long wanted(final List<DistributedArray<?>> arrays, final CheckpointHeader planned, final long bound) {
        long all = 0;
        for (final DistributedArray<?> e : arrays) {
            all += e.local().count() * e.elementType().extent();
        }
        long need = all - bound;
        if (need <= 0) {
            return Long.MIN_VALUE;
        }
        for (int i = 0; i < arrays.size(); i++) {
            final DistributedArray<?> e = arrays.get(i);
            final long count = e.local().count();
            final long extent = e.elementType().extent();
            if (need <= count * extent) {
                final long k = (need + extent - 1) / extent;
                final StoredArray a = planned.arrays().get(i);
                return k < count ? offsetOf(e, a, k) : offsetOf(e, a, count - 1) + extent;
            }
            need -= count * extent;
        }
        return Long.MAX_VALUE;
    }

    /** The file offset of this rank's element at {@code position} of its buffer. */
    private static long offsetOf(final DistributedArray<?> e, final StoredArray a, final long position) {
        return a.offset() + e.local().globalLinear(position) * e.elementType().extent();
    }

    /** How many of this rank's elements of an array lie before file offset {@code split}: local order is file order. */
    static long elementsBefore(final DistributedArray<?> e, final StoredArray a, final long split) {
        long lo = 0;
        long hi = e.local().count();
        while (lo < hi) {
            final long mid = (lo + hi) >>> 1;
            if (offsetOf(e, a, mid) < split) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
