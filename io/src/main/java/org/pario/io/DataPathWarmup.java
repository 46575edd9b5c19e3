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
 * all. The optimised code is only as good as what its profile saw: a case it never met (an empty piece, a piece
 * long enough to end a run's fast path, a heap buffer where only direct ones came, a rank's own array as the
 * piece) makes the compiled method fall back to the interpreter when the first checkpoint meets it, and compile
 * again inside it. So the calls mix direct and heap buffers, every {@value #LONG_EVERY}th piece is
 * {@value #LONG_PIECE_BYTES} bytes long and every {@value #ROUND_EVERY}th {@value #ROUND_PIECE_BYTES}, every
 * {@value #EMPTY_EVERY}th is empty, every {@value #LAST_EVERY}th ends where the stream ends, and pieces are placed
 * from the sample itself as well. What a first call still pays is measured in docs/benchmarks.md, "Checkpoints".
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
    /** Every this many pieces, one is long. */
    private static final int LONG_EVERY = 16;
    /** Stream bytes of a long piece, at most. */
    private static final int LONG_PIECE_BYTES = 128 << 10;
    /** Every this many pieces, one is as long as a round's can be. */
    private static final int ROUND_EVERY = 256;
    /** Stream bytes of a round-long piece, at most. */
    private static final int ROUND_PIECE_BYTES = 2 << 20;
    /** Every this many pieces, one is empty. */
    private static final int EMPTY_EVERY = 64;
    /** Every this many pieces, one ends where the stream ends, as a call's last piece does. */
    private static final int LAST_EVERY = 32;
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
        // is left out (long pieces are kept to windows that hold them)
        final int window = (int) Math.min(WINDOW_BYTES, (4 * firstSpan + 0xffff) & ~0xffffL);
        final int longPiece = (int) Math.min(streamBytes, Math.max(piece, LONG_PIECE_BYTES));
        final int roundPiece = (int) Math.min(streamBytes, Math.max(piece, ROUND_PIECE_BYTES));
        final ByteBuffer[] data = {ByteBuffer.allocateDirect(roundPiece), ByteBuffer.allocate(roundPiece)};
        final ByteBuffer staged = ByteBuffer.allocateDirect(roundPiece);
        final Memory stagedMemory = Memory.of(staged);
        final ByteBuffer windowBuffer = ByteBuffer.allocateDirect(WINDOW_BYTES).order(ByteOrder.nativeOrder());
        final long[] covered = new long[(WINDOW_BYTES + 63) >>> 6];
        final int[] holes = new int[1];
        final Memory memory = sample == null ? null : Memory.ofObject(sample);
        final long sampleBytes = memory == null ? 0 : Math.multiplyExact(count, type.size());
        // the sample is a rank's stream itself where its type has no gaps: pieces are then placed from it directly
        final boolean sampleIsStream = memory != null && type.size() == type.extent() && type.isContiguous();
        // pieces start on elements spread over the stream, as windows cut it
        final long unit = Math.max(1, view.etype().size());
        int done = 0;
        for (; done < CALLS; done++) {
            if (done % CALLS_BETWEEN_ASKS == 0 && stop.getAsBoolean()) {
                break;
            }
            final int length = done % EMPTY_EVERY == EMPTY_EVERY - 1 ? 0
                : done % ROUND_EVERY == ROUND_EVERY / 2 ? roundPiece
                : done % LONG_EVERY == LONG_EVERY - 1 ? longPiece : piece;
            final ByteBuffer buffer = data[done & 1];
            final long starts = (streamBytes - Math.max(length, 1)) / unit + 1;
            final long s0 = (done % LAST_EVERY == LAST_EVERY / 2 ? starts - 1
                : Math.floorMod(done * 2_654_435_761L, starts)) * unit;
            final long s1 = s0 + length;
            final long ws = TwoPhasePlan.fileOffsetOf(at0, s0);
            final long span = length == 0 ? 0 : TwoPhasePlan.fileOffsetOf(at0, s1 - 1) + 1 - ws;
            if (span > (length > piece ? WINDOW_BYTES : window)) {
                continue;
            }
            // every rank finds its piece of each window by seeking through its view, as RoundContext.piece does
            if (length > 0 && (TwoPhasePlan.streamAt(at0, 0, streamBytes, ws) != s0
                || TwoPhasePlan.streamAt(at0, s0, streamBytes, ws + span) != s1)) {
                throw new IllegalStateException("a piece of the view is not where its file bytes are");
            }
            final long sampleStarts = memory != null && sampleBytes >= length ? (sampleBytes - length) / unit + 1 : 0;
            final long from = sampleStarts > 0 ? Math.floorMod(done * 40_503L, sampleStarts) * unit : 0;
            if (sampleStarts > 0) {
                // a rank packs its piece of a round from its buffer, and unpacks what it reads back into it
                Packer.pack(memory, memory.origin(), type, count, DataRepresentation.NATIVE, from, buffer, 0, length);
                Packer.unpack(buffer, 0, length, memory, memory.origin(), type, count, DataRepresentation.NATIVE,
                    from);
            }
            // the transport moves those bytes through staging memory the same way
            Packer.pack(stagedMemory, stagedMemory.origin(), Datatype.BYTE, length, DataRepresentation.NATIVE, 0,
                buffer, 0, length);
            Packer.unpack(buffer, 0, length, stagedMemory, stagedMemory.origin(), Datatype.BYTE, length,
                DataRepresentation.NATIVE, 0);
            Arrays.fill(covered, 0, (int) ((span + 63) >>> 6), 0L);
            Placement.place(at0, s0, s1, buffer, 0, windowBuffer, ws, true, covered);
            if (done % HOLES_EVERY == 0) {
                // one rank's piece alone leaves most of a CYCLIC window a hole, a callback each; an aggregator
                // looks for holes once a window, after every rank's piece is in
                Placement.holes(covered, 0, (int) span, (a, b) -> holes[0]++);
            }
            Placement.place(at0, s0, s1, buffer, 0, windowBuffer, ws, false, null);
            if (sampleIsStream && sampleStarts > 0) {
                // an aggregator places its own piece straight from and into its memory
                Placement.place(at0, s0, s1, memory, from, windowBuffer, ws, true, covered);
                Placement.place(at0, s0, s1, memory, from, windowBuffer, ws, false, null);
            }
        }
        return done;
    }

    /** @return the file bytes from the first to the last byte of stream bytes [s0, s1) */
    private static long span(final FileView v, final long s0, final long s1) {
        return TwoPhasePlan.fileOffsetOf(v, s1 - 1) + 1 - TwoPhasePlan.fileOffsetOf(v, s0);
    }
}
