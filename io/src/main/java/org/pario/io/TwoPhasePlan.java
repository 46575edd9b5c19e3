package org.pario.io;

import java.util.List;

import org.pario.datatypes.Cursor;

/**
 * The shape of one two-phase collective call, the same on every rank: each rank's stream range, the file domain of
 * each aggregator and the rounds it is cut into; and the geometry of views the plan is made with (where a stream
 * position lies in the file, and back), which needs no offset lists because a view's filetype cursor seeks.
 */
final class TwoPhasePlan {
    final long[] starts;
    final long[] ends;
    /** Each rank's file range {@code [los[r], his[r])}: its stream's first and last file byte (views are monotone). */
    final long[] los;
    final long[] his;
    /** File domain boundaries: aggregator i owns {@code [bounds[i], bounds[i + 1])}. */
    final long[] bounds;
    final long windowBytes;
    final long rounds;

    TwoPhasePlan(final long[] starts, final long[] ends, final long[] los, final long[] his, final long[] bounds,
                 final long windowBytes) {
        this.starts = starts;
        this.ends = ends;
        this.los = los;
        this.his = his;
        this.bounds = bounds;
        this.windowBytes = windowBytes;
        long r = 0;
        for (int i = 0; i + 1 < bounds.length; i++) {
            r = Math.max(r, (bounds[i + 1] - bounds[i] + windowBytes - 1) / windowBytes);
        }
        this.rounds = r;
    }

    /**
     * Splits {@code [min, max)} evenly among {@code k} aggregators.
     *
     * @param align        what boundaries are rounded to (the stripe or block size), 1 for none
     * @param blockAligned boundaries rounded up to whole blocks, as the parts of an append-only store must meet;
     *                     otherwise to the nearest multiple, and only where a domain holds a whole one
     * @return the k + 1 boundaries: aggregator i owns {@code [bounds[i], bounds[i + 1])}
     */
    static long[] domains(final long min, final long max, final int k, final long align, final boolean blockAligned) {
        final long each = (max - min + k - 1) / k;
        final long[] bounds = new long[k + 1];
        bounds[0] = min;
        for (int i = 1; i < k; i++) {
            long b = min + i * each;
            if (blockAligned) {
                // parts of an append-only store meet at block boundaries, so the joined file has whole blocks
                b = (b + align - 1) / align * align;
            } else if (align > 1 && each >= align) {
                b = (b + align / 2) / align * align;
            }
            bounds[i] = Math.max(bounds[i - 1], Math.min(max, b));
        }
        bounds[k] = max;
        return bounds;
    }

    long windowStart(final int aggregator, final long round) {
        return Math.min(bounds[aggregator + 1], bounds[aggregator] + round * windowBytes);
    }

    long windowEnd(final int aggregator, final long round) {
        return Math.min(bounds[aggregator + 1], bounds[aggregator] + (round + 1) * windowBytes);
    }

    /** @return the absolute file offset of stream byte {@code p} of a view */
    static long fileOffsetOf(final FileView v, final long p) {
        final long fsize = v.filetype().size();
        final Cursor c = v.filetype().cursor(p / fsize + 1).seek(p);
        if (!c.next()) {
            throw new IllegalStateException("no run at stream position " + p);
        }
        return v.disp() + c.offset();
    }

    /**
     * @return the first stream position in {@code [from, to)} whose file byte lies at or after {@code fileOffset}, or
     *     {@code to}; for a monotone view, the stream bytes in {@code [from, to)} that lie before {@code fileOffset}
     *     are exactly {@code [from, result)}
     */
    static long streamAt(final FileView v, final long from, final long to, final long fileOffset) {
        long lo = from;
        long hi = to;
        while (lo < hi) {
            final long mid = lo + (hi - lo) / 2;
            if (fileOffsetOf(v, mid) >= fileOffset) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /** Runs looked at to estimate a rank's run length. */
    private static final int SAMPLED_RUNS = 64;

    /**
     * @return the mean length of the first runs of a rank's access: the estimate automatic mode compares with
     *     {@code pario_cb_run_threshold}, because ranks whose runs are that long reach storage efficiently without
     *     aggregation, and moving their data to aggregators would only add a copy over the network
     */
    static long meanRun(final FileView v, final long start, final long end) {
        final long fsize = v.filetype().size();
        final Cursor c = v.filetype().cursor((end + fsize - 1) / fsize).seek(start).limit(end);
        long bytes = 0;
        int runs = 0;
        while (runs < SAMPLED_RUNS && c.next()) {
            bytes += c.length();
            runs++;
        }
        return runs == 0 ? 0 : bytes / runs;
    }

    /** ROMIO's test: aggregation pays off only when some two ranks' byte ranges interleave. */
    static boolean interleaved(final List<long[]> ranges) {
        ranges.sort((a, b) -> Long.compare(a[0], b[0]));
        for (int i = 1; i < ranges.size(); i++) {
            if (ranges.get(i)[0] < ranges.get(i - 1)[1]) {
                return true;
            }
        }
        return false;
    }
}
