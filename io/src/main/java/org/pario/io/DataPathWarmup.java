package org.pario.io;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.function.BooleanSupplier;

/**
 * Runs the planning and an aggregator's part of a two-phase write and read through a view on the calling thread, in
 * memory only: each piece of a rank's stream is found from its window's file bounds, placed into the window as its
 * file bytes lie, the holes are found, and the window is copied back out. Nothing is sent and no file is touched.
 *
 * <p>What for: the first collective call of a JVM otherwise runs these loops interpreted until the compiler has
 * taken them, and compiles them while every rank of the host does the same on the same cores; for a CYCLIC(1)
 * darray, millions of 8-byte runs a rank, they are hot from the first window on. Run on a background thread while
 * the application computes, the same loops are compiled by then. What a first call still pays (the exchange's code
 * compiled for the first time) is measured in docs/benchmarks.md, "Checkpoints".
 */
public final class DataPathWarmup {
    /** The most file bytes one warm-up window spans. */
    private static final int WINDOW_BYTES = 8 << 20;
    /** Stream bytes placed at most: enough calls and loop turns for the compiler to take the loops. */
    private static final long STREAM_BYTES = 64L << 20;
    /** Stream bytes of a piece, at most. */
    private static final int PIECE_BYTES = 1 << 20;

    private DataPathWarmup() {
    }

    /**
     * Places up to {@code streamBytes} (at most 64 MiB) of the view's stream into a window and back, a piece at a
     * time, stopping early when {@code stop} says so.
     *
     * @param view        the view a collective call will go through (its displacement does not matter)
     * @param streamBytes the bytes of a rank's stream through it
     * @param stop        asked before every piece; true ends the warm-up
     * @throws org.pario.ParioException if the view is not one a file accepts for writing
     */
    public static void run(final FileView view, final long streamBytes, final BooleanSupplier stop) {
        Views.check(view, true);
        final long total = Math.min(streamBytes, STREAM_BYTES);
        final FileView at0 = new FileView(0, view.etype(), view.filetype(), view.datarep());
        int piece = (int) Math.min(total, PIECE_BYTES);
        while (piece > 4096 && span(at0, 0, piece) > WINDOW_BYTES) {
            piece /= 2;
        }
        if (piece <= 0 || span(at0, 0, piece) > WINDOW_BYTES) {
            return;
        }
        final ByteBuffer data = ByteBuffer.allocateDirect(piece);
        final ByteBuffer window = ByteBuffer.allocateDirect(WINDOW_BYTES).order(ByteOrder.nativeOrder());
        final long[] covered = new long[(WINDOW_BYTES + 63) >>> 6];
        final int[] holes = new int[1];
        for (long s0 = 0; s0 + piece <= total && !stop.getAsBoolean(); s0 += piece) {
            final long s1 = s0 + piece;
            final long ws = TwoPhasePlan.fileOffsetOf(at0, s0);
            final long span = TwoPhasePlan.fileOffsetOf(at0, s1 - 1) + 1 - ws;
            if (span > WINDOW_BYTES) {
                continue;
            }
            // every rank finds its piece of each window by seeking through its view, as RoundContext.piece does
            if (TwoPhasePlan.streamAt(at0, 0, total, ws) != s0 || TwoPhasePlan.streamAt(at0, s0, total, ws + span)
                != s1) {
                throw new IllegalStateException("a piece of the view is not where its file bytes are");
            }
            Arrays.fill(covered, 0, (int) ((span + 63) >>> 6), 0L);
            Placement.place(at0, s0, s1, data, 0, window, ws, true, covered);
            Placement.holes(covered, 0, (int) span, (a, b) -> holes[0]++);
            Placement.place(at0, s0, s1, data, 0, window, ws, false, null);
        }
    }

    /** @return the file bytes from the first to the last byte of stream bytes [s0, s1) */
    private static long span(final FileView v, final long s0, final long s1) {
        return TwoPhasePlan.fileOffsetOf(v, s1 - 1) + 1 - TwoPhasePlan.fileOffsetOf(v, s0);
    }
}
