package org.pario.io;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.function.BooleanSupplier;

import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/**
 * Runs, on the calling thread and in memory only, the calls a rank makes in every round of a two-phase write and
 * read through a view: each piece of its stream is found from its window's file bounds, packed from its buffer (and
 * unpacked back into it), placed into the window as its file bytes lie, the holes are found, and the window is
 * copied back out. Nothing is sent and no file is touched.
 *
 * <p>What for: the first collective call of a JVM otherwise runs these methods interpreted, then compiled with
 * profiling, and compiles them for good in the middle of the call, while every rank of the host does the same on
 * the same cores. A compiler such as HotSpot's takes a method to its optimising tier after some thousands of calls,
 * whatever each call moves; a checkpoint of 1 GiB makes that many of some (a pack per chunk of a staged message) and
 * a few hundred of others (a placement per piece a round), and so did the exchange's warm-up, which moves hundreds of
 * MiB in a few large calls. So this runs {@link #CALLS} calls of each, on pieces of at most 2 KiB: a few MiB moved in
 * all. What a first call still pays is measured in docs/benchmarks.md, "Checkpoints".
 */
public final class DataPathWarmup {
    /** Calls of each kind: past HotSpot's thresholds for its optimising tier (5,000 calls) with room to spare. */
    static final int CALLS = 8_000;
    /** The stop condition is asked before the first call and after every this many. */
    static final int CALLS_BETWEEN_ASKS = 512;
    /** A window's holes are looked for after every this many pieces. */
    private static final int HOLES_EVERY = 8;
    /** Stream bytes of a piece, at most. */
    private static final int PIECE_BYTES = 2048;
    /** The most file bytes one warm-up window spans. */
    private static final int WINDOW_BYTES = 8 << 20;

    private DataPathWarmup() {
    }

    /**
     * Runs up to {@link #CALLS} pieces of the view's stream through packing, placement and back, stopping early when
     * {@code stop} says so.
     *
     * @param view        the view a collective call will go through (its displacement does not matter)
     * @param streamBytes the bytes of a rank's stream through it
     * @param sample      a buffer of the kind the calls will pack from and unpack into (what is packed from it is
     *                    unpacked back where it came from), or null to leave packing out
     * @param count       elements of {@code type} in {@code sample}
     * @param type        the sample's datatype, as the calls will use it
     * @param stop        asked before the first piece and every {@link #CALLS_BETWEEN_ASKS}; true ends the warm-up
     * @return the pieces run
     * @throws org.pario.ParioException if the view is not one a file accepts for writing
     */
    public static int run(final FileView view, final long streamBytes, final Object sample, final long count,
                          final Datatype type, final BooleanSupplier stop) {
        Views.check(view, true);
        final FileView at0 = new FileView(0, view.etype(), view.filetype(), view.datarep());
        int piece = (int) Math.min(streamBytes, PIECE_BYTES);
        if (piece <= 0) {
            return 0;
        }
        long firstSpan = span(at0, 0, piece);
        while (piece > 8 && firstSpan > WINDOW_BYTES) {
            piece /= 2;
            firstSpan = span(at0, 0, piece);
        }
        if (firstSpan > WINDOW_BYTES) {
            return 0;
        }
        // a window four times the first piece's span holds most pieces of a regular view; one that does not fit
        // is left out
        final int window = (int) Math.min(WINDOW_BYTES, (4 * firstSpan + 0xffff) & ~0xffffL);
        final ByteBuffer data = ByteBuffer.allocateDirect(piece);
        final ByteBuffer staged = ByteBuffer.allocateDirect(piece);
        final Memory stagedMemory = Memory.of(staged);
        final ByteBuffer windowBuffer = ByteBuffer.allocateDirect(window).order(ByteOrder.nativeOrder());
        final long[] covered = new long[(window + 63) >>> 6];
        final int[] holes = new int[1];
        final Memory memory = sample == null ? null : Memory.ofObject(sample);
        final long sampleBytes = memory == null ? 0 : Math.multiplyExact(count, type.size());
        // pieces start on elements spread over the stream, as windows cut it
        final long unit = Math.max(1, view.etype().size());
        final long starts = (streamBytes - piece) / unit + 1;
        final long sampleStarts = sampleBytes >= piece ? (sampleBytes - piece) / unit + 1 : 0;
        int done = 0;
        for (; done < CALLS; done++) {
            if (done % CALLS_BETWEEN_ASKS == 0 && stop.getAsBoolean()) {
                break;
            }
            final long s0 = Math.floorMod(done * 2_654_435_761L, starts) * unit;
            final long s1 = s0 + piece;
            final long ws = TwoPhasePlan.fileOffsetOf(at0, s0);
            final long span = TwoPhasePlan.fileOffsetOf(at0, s1 - 1) + 1 - ws;
            if (span > window) {
                continue;
            }
            // every rank finds its piece of each window by seeking through its view, as RoundContext.piece does
            if (TwoPhasePlan.streamAt(at0, 0, streamBytes, ws) != s0
                || TwoPhasePlan.streamAt(at0, s0, streamBytes, ws + span) != s1) {
                throw new IllegalStateException("a piece of the view is not where its file bytes are");
            }
            if (sampleStarts > 0) {
                // a rank packs its piece of a round from its buffer, and unpacks what it reads back into it
                final long from = Math.floorMod(done * 40_503L, sampleStarts) * unit;
                Packer.pack(memory, memory.origin(), type, count, DataRepresentation.NATIVE, from, data, 0, piece);
                Packer.unpack(data, 0, piece, memory, memory.origin(), type, count, DataRepresentation.NATIVE, from);
            }
            // the transport moves those bytes through staging memory the same way
            Packer.pack(stagedMemory, stagedMemory.origin(), Datatype.BYTE, piece, DataRepresentation.NATIVE, 0,
                data, 0, piece);
            Packer.unpack(data, 0, piece, stagedMemory, stagedMemory.origin(), Datatype.BYTE, piece,
                DataRepresentation.NATIVE, 0);
            Arrays.fill(covered, 0, (int) ((span + 63) >>> 6), 0L);
            Placement.place(at0, s0, s1, data, 0, windowBuffer, ws, true, covered);
            if (done % HOLES_EVERY == 0) {
                // one rank's piece alone leaves most of a CYCLIC window a hole, a callback each; an aggregator
                // looks for holes once a window, after every rank's piece is in
                Placement.holes(covered, 0, (int) span, (a, b) -> holes[0]++);
            }
            Placement.place(at0, s0, s1, data, 0, windowBuffer, ws, false, null);
        }
        return done;
    }

    /** @return the file bytes from the first to the last byte of stream bytes [s0, s1) */
    private static long span(final FileView v, final long s0, final long s1) {
        return TwoPhasePlan.fileOffsetOf(v, s1 - 1) + 1 - TwoPhasePlan.fileOffsetOf(v, s0);
    }
}
