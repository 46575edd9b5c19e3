package org.pario.io;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;

import org.pario.datatypes.Cursor;
import org.pario.datatypes.Memory;

/**
 * Placement of a rank's piece in an aggregator's round window (and back, for reads), walking the rank's filetype
 * with a cursor, and the bitmap of window bytes the pieces covered, from which the holes are found. Stateless; a
 * window of a MiB or more is placed by two threads, split on a 64-byte boundary so each marks its own words.
 */
final class Placement {
    private Placement() {
    }

    /**
     * Copies between a piece (rank r's stream bytes [s0, s1)) and the window that starts at file byte ws, marking
     * the window bytes it touches in {@code covered} (one bit per byte) when given. Each regular stretch of runs
     * the cursor reports (a cyclic darray's 8-byte runs along a row) is one copy call and one marking of its bits,
     * not a step per run.
     */
    static void place(final FileView v, final long s0, final long s1, final ByteBuffer piece, final int from,
                      final ByteBuffer window, final long ws, final boolean intoWindow, final long[] covered) {
        place(v, s0, s1, Memory.of(piece), from, window, ws, intoWindow, covered);
    }

    /**
     * As {@link #place(FileView, long, long, ByteBuffer, int, ByteBuffer, long, boolean, long[])}, the piece being
     * memory's bytes from {@code from} (counted from the memory's start): a rank's own memory, where it is its stream.
     */
    static void place(final FileView v, final long s0, final long s1, final Memory pieceBytes, final long from,
                      final ByteBuffer window, final long ws, final boolean intoWindow, final long[] covered) {
        if (s1 <= s0) {
            return;
        }
        final long fsize = v.filetype().size();
        final Cursor c = v.filetype().cursor((s1 + fsize - 1) / fsize).seek(s0).limit(s1);
        final Memory windowBytes = Memory.of(window);
        final StretchMask mask = covered != null ? new StretchMask() : null;
        long at = from;
        while (c.next()) {
            final long w = v.disp() + c.offset() - ws;
            final long len = c.length();
            final long runs = c.repeats() + 1;
            final long stride = c.repeatStride();
            if (intoWindow) {
                Memory.copyRuns(pieceBytes, at, len, windowBytes, w, stride, len, runs);
                if (covered != null) {
                    mask.markRuns(covered, (int) w, (int) len, (int) stride, runs);
                }
            } else {
                Memory.copyRuns(windowBytes, w, stride, pieceBytes, at, len, len, runs);
            }
            at += len * runs;
            c.skipRepeats(runs - 1);
        }
    }

    /**
     * Marks the bits of regular stretches of runs a word at a time where the stride divides 64 (a cyclic darray's
     * runs of 8 bytes every 16, 32 or 64): every whole word of the stretch then holds the same pattern, kept from
     * the last stretch while its phase, run length and stride stay the same (as they do row after row).
     */
    static final class StretchMask {
        private int phase = -1;
        private int len;
        private int stride;
        private long pattern;

        /** Sets the bits of {@code runs} runs of {@code len} bytes, {@code stride} apart, from bit {@code w}. */
        void markRuns(final long[] bits, final int w, final int len, final int stride, final long runs) {
            if (runs == 1 || stride <= len || stride > 64 || 64 % stride != 0) {
                // one run, runs that touch or overlap, or a pattern that does not repeat within a word
                for (long k = 0; k < runs; k++) {
                    mark(bits, (int) (w + k * stride), len);
                }
                return;
            }
            final long end = w + (runs - 1) * stride + len;
            final int firstWord = (w + 63) >>> 6;
            final int lastWord = (int) (end >>> 6);
            if (firstWord >= lastWord) {
                for (long k = 0; k < runs; k++) {
                    mark(bits, (int) (w + k * stride), len);
                }
                return;
            }
            final int p = (int) (((long) firstWord * 64 - w) % stride);
            if (p != phase || len != this.len || stride != this.stride) {
                long m = 0;
                for (int b = 0; b < 64; b++) {
                    if ((b + p) % stride < len) {
                        m |= 1L << b;
                    }
                }
                phase = p;
                this.len = len;
                this.stride = stride;
                pattern = m;
            }
            for (int word = firstWord; word < lastWord; word++) {
                bits[word] |= pattern;
            }
            // the runs that reach into the partial words at either end
            final long head = Math.min(runs, ((long) firstWord * 64 - w + stride - 1) / stride);
            for (long k = 0; k < head; k++) {
                mark(bits, (int) (w + k * stride), len);
            }
            final long tail = Math.max(head, Math.floorDiv((long) lastWord * 64 - len - w, stride) + 1);
            for (long k = tail; k < runs; k++) {
                mark(bits, (int) (w + k * stride), len);
            }
        }
    }

    /** Windows from this size on are placed by two threads. */
    static final long PARALLEL_PLACING_MIN_BYTES = 1 << 20;

    /**
     * @return where (bytes from the window's start) the second placing thread takes over, a multiple of 64 so that
     *     the two threads mark disjoint words of the covered bits; 0 for one thread
     */
    static long placingSplit(final long windowBytes) {
        return windowBytes >= PARALLEL_PLACING_MIN_BYTES ? (windowBytes / 2) & ~63L : 0;
    }

    /** Waits for the second placing thread's chain of pieces; returns the first failure, old or new. */
    static Throwable placed(final CompletableFuture<Void> upper, final Throwable failure) {
        try {
            upper.join();
            return failure;
        } catch (CompletionException e) {
            return failure != null ? failure : e.getCause() == null ? e : e.getCause();
        }
    }

    /** Sets bits {@code [from, from + len)}. */
    static void mark(final long[] bits, final int from, final int len) {
        final int to = from + len;
        int i = from;
        while (i < to) {
            final int word = i >>> 6;
            final int end = Math.min(to, (word + 1) << 6);
            final int n = end - i;
            bits[word] |= (n == 64 ? -1L : ((1L << n) - 1) << (i & 63));
            i = end;
        }
    }

    /** @return the clear bits of {@code [from, to)}, as {from, to} segments, handed to {@code hole} */
    static void holes(final long[] bits, final int from, final int to,
                              final BiConsumer<Integer, Integer> hole) {
        int i = from;
        while (i < to) {
            while (i < to && (bits[i >>> 6] & (1L << (i & 63))) != 0) {
                if ((i & 63) == 0 && i + 64 <= to && bits[i >>> 6] == -1L) {
                    i += 64;
                } else {
                    i++;
                }
            }
            final int start = i;
            while (i < to && (bits[i >>> 6] & (1L << (i & 63))) == 0) {
                if ((i & 63) == 0 && i + 64 <= to && bits[i >>> 6] == 0) {
                    i += 64;
                } else {
                    i++;
                }
            }
            if (i > start) {
                hole.accept(start, i);
            }
        }
    }
}
