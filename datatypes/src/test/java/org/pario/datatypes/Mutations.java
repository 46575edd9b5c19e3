package org.pario.datatypes;

import java.util.Arrays;
import java.util.Random;

/**
 * Hostile inputs for fuzz tests: valid seeds mutated by bit flips, byte changes, insertions, deletions,
 * truncations, duplications and splices, plus plain random bytes. The same seed gives the same inputs.
 */
public final class Mutations {
    /** Inputs per fuzz target in the test suite; {@code -Dpario.fuzz.inputs=100000} for a long run. */
    public static final int INPUTS = Integer.getInteger("pario.fuzz.inputs", 3000);

    private static final byte[] INTERESTING = {0, -1, 1, 0x7f, (byte) 0x80, '"', '\\', '{', '}', '[', ']', '(', ')',
        ',', ':', '-', '9', 'e', 'x'};

    private final Random random;
    private final byte[][] seeds;

    /**
     * @param seed  the random seed
     * @param seeds valid inputs to start from
     */
    public Mutations(final long seed, final byte[]... seeds) {
        this.random = new Random(seed);
        this.seeds = seeds;
    }

    /** @return the next hostile input */
    public byte[] next() {
        if (random.nextInt(20) == 0) {
            final byte[] junk = new byte[random.nextInt(64)];
            random.nextBytes(junk);
            return junk;
        }
        byte[] b = seeds[random.nextInt(seeds.length)].clone();
        final int edits = 1 + random.nextInt(4);
        for (int e = 0; e < edits; e++) {
            if (b.length == 0) {
                b = new byte[] {INTERESTING[random.nextInt(INTERESTING.length)]};
                continue;
            }
            final int at = random.nextInt(b.length);
            switch (random.nextInt(8)) {
                case 0 -> b[at] ^= (byte) (1 << random.nextInt(8));
                case 1 -> b[at] = INTERESTING[random.nextInt(INTERESTING.length)];
                case 2 -> b[at] = (byte) random.nextInt(256);
                case 3 -> b = Arrays.copyOf(b, at);
                case 4 -> {
                    final byte[] c = new byte[b.length + 1];
                    System.arraycopy(b, 0, c, 0, at);
                    c[at] = INTERESTING[random.nextInt(INTERESTING.length)];
                    System.arraycopy(b, at, c, at + 1, b.length - at);
                    b = c;
                }
                case 5 -> {
                    final byte[] c = new byte[b.length - 1];
                    System.arraycopy(b, 0, c, 0, at);
                    System.arraycopy(b, at + 1, c, at, b.length - at - 1);
                    b = c;
                }
                case 6 -> {
                    final int len = Math.min(b.length - at, 1 + random.nextInt(16));
                    final byte[] c = new byte[b.length + len];
                    System.arraycopy(b, 0, c, 0, at + len);
                    System.arraycopy(b, at, c, at + len, b.length - at);
                    b = c;
                }
                default -> {
                    final byte[] other = seeds[random.nextInt(seeds.length)];
                    final int from = other.length == 0 ? 0 : random.nextInt(other.length);
                    final byte[] c = Arrays.copyOf(b, at + other.length - from);
                    System.arraycopy(other, from, c, at, other.length - from);
                    b = c;
                }
            }
        }
        return b;
    }

    /** @return a random int below {@code bound} from the same stream */
    public int nextInt(final int bound) {
        return random.nextInt(bound);
    }
}
