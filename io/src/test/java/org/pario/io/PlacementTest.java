package org.pario.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
import org.pario.datatypes.Order;

/**
 * The covered-bytes bitmap of a window, marked a stretch of runs at a time, against one bit at a time; a window
 * placed a tile at a time across every rank's piece, against one piece after another.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class PlacementTest {
    @Test
    void stretchesMarkExactlyTheBytesOfTheirRuns() {
        final Random random = new Random(54);
        final int[] strides = {1, 2, 3, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128};
        for (int trial = 0; trial < 20_000; trial++) {
            final int words = 1 + random.nextInt(40);
            final long[] fast = new long[words];
            final long[] slow = new long[words];
            final Placement.StretchMask mask = new Placement.StretchMask();
            // several stretches into one bitmap through one mask, as rows of a darray arrive
            for (int stretch = 0; stretch < 3; stretch++) {
                final int stride = strides[random.nextInt(strides.length)];
                final int bits = words * 64;
                final int len = 1 + random.nextInt(Math.min(Math.min(stride + 2, 70), bits));
                final int w = random.nextInt(bits - len + 1);
                final long most = (bits - w - len) / stride + 1;
                final long runs = most <= 1 ? 1 : 1 + random.nextInt((int) Math.min(most, 200));
                mask.markRuns(fast, w, len, stride, runs);
                for (long k = 0; k < runs; k++) {
                    for (long b = w + k * stride; b < w + k * stride + len; b++) {
                        slow[(int) (b >>> 6)] |= 1L << (b & 63);
                    }
                }
                assertArrayEquals(slow, fast, "trial " + trial + ": " + runs + " runs of " + len + " bytes every "
                    + stride + " from bit " + w);
            }
        }
    }

    @Test
    void aCyclicRowMarksEveryFourthDouble() {
        final long[] bits = new long[64];
        new Placement.StretchMask().markRuns(bits, 8, 8, 32, 128);
        for (int word = 0; word < 64; word++) {
            assertArrayEquals(new long[] {0x0000_ff00_0000_ff00L}, new long[] {bits[word]}, "word " + word);
        }
    }

    /** A rank's view of a window-sized file: a darray, a vector, or an indexed type with empty blocks. */
    private static FileView view(final Random random, final int rank, final int ranks) {
        switch (random.nextInt(3)) {
            case 0:
                return new FileView(random.nextInt(3) * 8, Datatype.DOUBLE, Datatype.darray(ranks, rank,
                    new long[] {6, 5, 24}, new Distribution[] {Distribution.BLOCK, Distribution.NONE,
                        Distribution.CYCLIC}, new long[] {Datatype.DISTRIBUTE_DFLT_DARG, Datatype.DISTRIBUTE_DFLT_DARG,
                        1 + random.nextInt(3)}, new long[] {1, 1, ranks}, Order.C, Datatype.DOUBLE),
                    DataRepresentation.NATIVE);
            case 1: {
                final int block = 1 + random.nextInt(9);
                final Datatype v = Datatype.vector(40 + random.nextInt(40), block, block + random.nextInt(30),
                    Datatype.BYTE);
                return new FileView(random.nextInt(50), Datatype.BYTE, v, DataRepresentation.NATIVE);
            }
            default: {
                final long[] lengths = new long[30];
                final long[] displacements = new long[30];
                long at = random.nextInt(20);
                for (int i = 0; i < lengths.length; i++) {
                    lengths[i] = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(70);
                    displacements[i] = at;
                    at += lengths[i] + random.nextInt(40);
                }
                return new FileView(0, Datatype.BYTE, Datatype.indexed(lengths, displacements, Datatype.BYTE),
                    DataRepresentation.NATIVE);
            }
        }
    }

    /**
     * Ranks' pieces of windows placed a tile at a time, split between two parts as a large window is, give the same
     * window bytes (the highest rank's where views overlap) and the same covered bits as each piece placed whole in
     * rank order, for tiles that cut runs and stretches anywhere.
     */
    @Test
    void aWindowPlacedTileByTileHoldsWhatPiecesPlacedOneAfterAnotherGive() {
        final Random random = new Random(56);
        for (int trial = 0; trial < 3_000; trial++) {
            final int ranks = 1 + random.nextInt(4);
            final FileView[] views = new FileView[ranks];
            for (int r = 0; r < ranks; r++) {
                views[r] = view(random, r, ranks);
            }
            final int size = 64 * (1 + random.nextInt(64));
            final long ws = random.nextInt(300);
            final int split = random.nextBoolean() ? 0 : 64 * random.nextInt(size / 64);
            final long tile = 1 + random.nextInt(random.nextBoolean() ? 40 : 600);
            final ByteBuffer expected = ByteBuffer.allocate(size);
            final ByteBuffer actual = ByteBuffer.allocate(size);
            final long[] expectedBits = new long[size / 64];
            final long[] actualBits = new long[size / 64];
            final List<Placement.Walk> lower = new ArrayList<>();
            final List<Placement.Walk> upper = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                final FileView v = views[r];
                final long streamBytes = v.filetype().size() * 4;
                final long s0 = TwoPhasePlan.streamAt(v, 0, streamBytes, ws);
                final long s1 = TwoPhasePlan.streamAt(v, s0, streamBytes, ws + size);
                final byte[] piece = new byte[(int) (s1 - s0)];
                for (int i = 0; i < piece.length; i++) {
                    piece[i] = (byte) (r * 64 + i % 61 + 1);
                }
                Placement.place(v, s0, s1, piece, 0, expected, ws, true, expectedBits);
                final long sm = split > 0 ? TwoPhasePlan.streamAt(v, s0, s1, ws + split) : s1;
                lower.add(new Placement.Walk(v, s0, sm, piece, 0, actual, ws, true, actualBits));
                upper.add(new Placement.Walk(v, sm, s1, piece, (int) (sm - s0), actual, ws, true, actualBits));
            }
            Placement.placeTiled(upper, split, size, tile);
            Placement.placeTiled(lower, 0, split > 0 ? split : size, tile);
            assertArrayEquals(expected.array(), actual.array(), "trial " + trial + ": window bytes, tile " + tile);
            assertArrayEquals(expectedBits, actualBits, "trial " + trial + ": covered bits, tile " + tile);
        }
    }

    /** Pieces cut out of a window a tile at a time, into one buffer, hold what each piece cut out whole holds. */
    @Test
    void piecesCutTileByTileHoldWhatPiecesCutWholeHold() {
        final Random random = new Random(57);
        for (int trial = 0; trial < 3_000; trial++) {
            final int ranks = 1 + random.nextInt(4);
            final int size = 64 * (1 + random.nextInt(64));
            final long ws = random.nextInt(300);
            final int split = random.nextBoolean() ? 0 : 64 * random.nextInt(size / 64);
            final long tile = 1 + random.nextInt(random.nextBoolean() ? 40 : 600);
            final ByteBuffer window = ByteBuffer.allocate(size);
            random.nextBytes(window.array());
            final FileView[] views = new FileView[ranks];
            final long[][] pieces = new long[ranks][];
            int total = 0;
            for (int r = 0; r < ranks; r++) {
                views[r] = view(random, r, ranks);
                final long streamBytes = views[r].filetype().size() * 4;
                final long s0 = TwoPhasePlan.streamAt(views[r], 0, streamBytes, ws);
                pieces[r] = new long[] {s0, TwoPhasePlan.streamAt(views[r], s0, streamBytes, ws + size)};
                total += (int) (pieces[r][1] - pieces[r][0]);
            }
            final byte[] expected = new byte[total];
            final byte[] actual = new byte[total];
            final List<Placement.Walk> lower = new ArrayList<>();
            final List<Placement.Walk> upper = new ArrayList<>();
            int at = 0;
            for (int r = 0; r < ranks; r++) {
                final FileView v = views[r];
                final long s0 = pieces[r][0];
                final long s1 = pieces[r][1];
                final byte[] whole = new byte[(int) (s1 - s0)];
                Placement.place(v, s0, s1, whole, 0, window, ws, false, null);
                System.arraycopy(whole, 0, expected, at, whole.length);
                final long sm = split > 0 ? TwoPhasePlan.streamAt(v, s0, s1, ws + split) : s1;
                lower.add(new Placement.Walk(v, s0, sm, actual, at, window, ws, false, null));
                upper.add(new Placement.Walk(v, sm, s1, actual, at + (int) (sm - s0), window, ws, false, null));
                at += whole.length;
            }
            Placement.placeTiled(lower, 0, split > 0 ? split : size, tile);
            Placement.placeTiled(upper, split, size, tile);
            assertArrayEquals(expected, actual, "trial " + trial + ": pieces, tile " + tile);
        }
    }
}
