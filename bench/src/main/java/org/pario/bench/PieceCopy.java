package org.pario.bench;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;

import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/**
 * What packing a message out of a {@code double[]} costs by where it is packed to: the whole message into direct
 * memory of its own size, or a piece at a time into one smaller direct buffer used again for every piece (as a
 * sender that writes each piece into its socket before it packs the next). The copies are Pario's own
 * ({@link Packer#pack}); only the destination changes. A core's cache holds the array and a small buffer, but not
 * the array and a second copy of it as large, so the same bytes cost more to pack whole.
 *
 * <p>Usage: {@code java -cp benchmarks.jar org.pario.bench.PieceCopy [BYTES [ROUNDS]]} (default 1 MiB, 5 rounds of
 * 2000 messages); prints, for each round, the mean µs a message for each piece size and for the whole message.
 */
public final class PieceCopy {
    private static final int[] PIECES = {32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10};
    private static final int MESSAGES = 2000;

    private PieceCopy() {
    }

    /**
     * Runs the rounds and prints them.
     *
     * @param args {@code [BYTES [ROUNDS]]}
     */
    public static void main(final String[] args) {
        final int bytes = args.length > 0 ? Integer.parseInt(args[0]) : 1 << 20;
        final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        if (bytes <= 0 || bytes % Double.BYTES != 0) {
            throw new IllegalArgumentException("BYTES must be a positive whole number of doubles, not " + bytes);
        }
        final int count = bytes / Double.BYTES;
        final double[] array = new double[count];
        Arrays.setAll(array, i -> i);
        final Memory memory = Memory.of(array);
        final ByteBuffer whole = ByteBuffer.allocateDirect(bytes);
        final ByteBuffer piece = ByteBuffer.allocateDirect(PIECES[PIECES.length - 1]);
        for (int round = 1; round <= rounds; round++) {
            final StringBuilder line = new StringBuilder("round " + round + ", us a message:");
            for (final int size : PIECES) {
                final int each = Math.min(size, bytes);
                final long start = System.nanoTime();
                for (int m = 0; m < MESSAGES; m++) {
                    for (int from = 0; from < bytes; from += each) {
                        final int length = Math.min(each, bytes - from);
                        Packer.pack(memory, memory.origin(), Datatype.DOUBLE, count, DataRepresentation.NATIVE, from,
                            piece, 0, length);
                    }
                }
                line.append(String.format(Locale.ROOT, "  %d KiB pieces %.1f", size >> 10,
                    (System.nanoTime() - start) / 1e3 / MESSAGES));
            }
            final long start = System.nanoTime();
            for (int m = 0; m < MESSAGES; m++) {
                Packer.pack(memory, memory.origin(), Datatype.DOUBLE, count, DataRepresentation.NATIVE, 0, whole, 0,
                    bytes);
            }
            line.append(String.format(Locale.ROOT, "  whole %.1f", (System.nanoTime() - start) / 1e3 / MESSAGES));
            System.out.println(line);
        }
    }
}
