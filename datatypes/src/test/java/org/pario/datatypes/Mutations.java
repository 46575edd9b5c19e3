package org.pario.datatypes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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

    private static final String[] BASIC_NAMES = {"double", "int", "char", "float", "long", "byte"};
    private static final String[] HUGE = {"0", "-1", "2147483647", "2147483648", "4294967296", "4611686018427387904",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999"};

    /**
     * The next input from a structure-aware edit of a seed, the shapes byte edits rarely reach: a basic type name
     * wrapped in up to 5000 nested constructors, a number replaced by a huge or edge value, a list whose first
     * element repeats up to 100000 times, or a JSON value nested up to 5000 arrays deep. Depths and lengths are
     * drawn log-uniformly, so short and long are both common.
     *
     * @return the next hostile input
     */
    public byte[] nextStructured() {
        String t = new String(seeds[random.nextInt(seeds.length)], java.nio.charset.StandardCharsets.UTF_8);
        final int edits = 1 + random.nextInt(2);
        for (int e = 0; e < edits; e++) {
            t = switch (random.nextInt(4)) {
                case 0 -> nest(t);
                case 1 -> huge(t);
                case 2 -> longList(t);
                default -> deepJson(t);
            };
        }
        return t.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private int logUniform(final int max) {
        return (int) Math.min(max, Math.round(Math.exp(random.nextDouble() * Math.log(max))));
    }

    private String nest(final String t) {
        final String name = BASIC_NAMES[random.nextInt(BASIC_NAMES.length)];
        final int at = t.indexOf(name);
        if (at < 0) {
            return t;
        }
        final int depth = logUniform(5000);
        final String[] wraps = {"contiguous(1, ", "vector(1, 1, 1, ", "resized(", "struct([1], [0], ["};
        final String[] closes = {")", ")", ", 0, 8)", "])"};
        final int w = random.nextInt(wraps.length);
        return t.substring(0, at) + wraps[w].repeat(depth) + name + closes[w].repeat(depth)
            + t.substring(at + name.length());
    }

    private String huge(final String t) {
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("-?\\d+").matcher(t);
        final List<int[]> runs = new ArrayList<>();
        while (m.find()) {
            runs.add(new int[] {m.start(), m.end()});
        }
        if (runs.isEmpty()) {
            return t;
        }
        final int[] r = runs.get(random.nextInt(runs.size()));
        return t.substring(0, r[0]) + HUGE[random.nextInt(HUGE.length)] + t.substring(r[1]);
    }

    private String longList(final String t) {
        final int open = t.indexOf('[', random.nextInt(Math.max(1, t.length())));
        final int from = open >= 0 ? open : t.indexOf('[');
        if (from < 0) {
            return t;
        }
        int end = from + 1;
        while (end < t.length() && t.charAt(end) != ',' && t.charAt(end) != ']') {
            end++;
        }
        final String first = t.substring(from + 1, end).trim();
        if (first.isEmpty() || first.contains("[")) {
            return t;
        }
        return t.substring(0, from + 1) + (first + ", ").repeat(logUniform(100_000)) + t.substring(from + 1);
    }

    private String deepJson(final String t) {
        final int colon = t.indexOf(':', random.nextInt(Math.max(1, t.length())));
        if (colon < 0) {
            return t;
        }
        final int depth = logUniform(5000);
        return t.substring(0, colon + 1) + "[".repeat(depth) + "1" + "]".repeat(depth) + ", \"x\":"
            + t.substring(colon + 1);
    }
}
