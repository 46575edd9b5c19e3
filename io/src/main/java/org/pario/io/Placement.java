package org.pario.io;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;

import org.pario.datatypes.Cursor;

/**
 * Placement of a rank's piece in an aggregator's round window (and back, for reads), walking the rank's filetype
 * with a cursor, and the bitmap of window bytes the pieces covered, from which the holes are found. Stateless; a
 * window of a MiB or more is placed by two threads, split on a 64-byte boundary so each marks its own words.
 */
final class Placement {
    private Placement() {
    }

    static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
        ByteOrder.nativeOrder());

    /**
     * Copies between a piece (rank r's stream bytes [s0, s1)) and the window that starts at file byte ws, marking
     * the window bytes it touches in {@code covered} (one bit per byte) when given. Regular stretches of runs (a
     * cyclic darray's 8-byte runs) are copied in a tight loop instead of one cursor step per run.
     */
    static void place(final FileView v, final long s0, final long s1, final byte[] piece, final int from,
                              final ByteBuffer window, final long ws, final boolean intoWindow, final long[] covered) {
        if (s1 <= s0) {
            return;
        }
        final long fsize = v.filetype().size();
        final Cursor c = v.filetype().cursor((s1 + fsize - 1) / fsize).seek(s0).limit(s1);
        int at = from;
        while (c.next()) {
            final int w = (int) (v.disp() + c.offset() - ws);
            final int len = (int) c.length();
            final long more = c.repeats();
            final int stride = (int) c.repeatStride();
            for (long k = 0; k <= more; k++) {
                final int wk = w + (int) k * stride;
                if (intoWindow) {
                    if (len == 8) {
                        window.putLong(wk, (long) LONGS.get(piece, at));
                    } else {
                        window.put(wk, piece, at, len);
                    }
                    if (covered != null) {
                        mark(covered, wk, len);
                    }
                } else if (len == 8) {
                    LONGS.set(piece, at, window.getLong(wk));
                } else {
                    window.get(wk, piece, at, len);
                }
                at += len;
            }
            c.skipRepeats(more);
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
