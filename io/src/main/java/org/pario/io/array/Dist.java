package org.pario.io.array;

import org.pario.ParioException;

/**
 * How one dimension of a {@link DistributedArray} is spread over its dimension of the process grid, HPF style.
 *
 * @param kind the distribution
 * @param size BLOCK: the block length, or 0 for {@code ceil(n / p)}; CYCLIC: the block length k ({@code >= 1});
 *             NONE: 0
 */
public record Dist(Kind kind, long size) {
    /** Distribution kinds, as MPI's {@code MPI_DISTRIBUTE_*}. */
    public enum Kind {
        /** Contiguous blocks, one per process. */
        BLOCK,
        /** Blocks of k elements dealt round-robin. */
        CYCLIC,
        /** Not distributed: every process of that grid dimension (there must be one) holds all of it. */
        NONE
    }

    /** Checks the arguments. */
    public Dist {
        if (kind == null || size < 0 || kind == Kind.CYCLIC && size < 1 || kind == Kind.NONE && size != 0) {
            throw ParioException.argument("bad distribution " + kind + "(" + size + ")");
        }
    }

    /** @return BLOCK with blocks of {@code ceil(n / p)} */
    public static Dist block() {
        return new Dist(Kind.BLOCK, 0);
    }

    /** @return BLOCK(k) */
    public static Dist block(final long k) {
        if (k < 1) {
            throw ParioException.argument("BLOCK(k) needs k >= 1, got " + k);
        }
        return new Dist(Kind.BLOCK, k);
    }

    /** @return CYCLIC(1) */
    public static Dist cyclic() {
        return new Dist(Kind.CYCLIC, 1);
    }

    /** @return CYCLIC(k) */
    public static Dist cyclic(final long k) {
        return new Dist(Kind.CYCLIC, k);
    }

    /** @return NONE */
    public static Dist none() {
        return new Dist(Kind.NONE, 0);
    }

    /**
     * Parses {@code block}, {@code block(k)}, {@code cyclic}, {@code cyclic(k)} or {@code none}, case-insensitive.
     *
     * @param text the distribution
     * @return it
     */
    public static Dist parse(final String text) {
        final String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        try {
            if (t.equals("block")) {
                return block();
            }
            if (t.equals("cyclic")) {
                return cyclic();
            }
            if (t.equals("none") || t.equals("*")) {
                return none();
            }
            if (t.startsWith("block(") && t.endsWith(")")) {
                return block(Long.parseLong(t.substring(6, t.length() - 1).trim()));
            }
            if (t.startsWith("cyclic(") && t.endsWith(")")) {
                return cyclic(Long.parseLong(t.substring(7, t.length() - 1).trim()));
            }
        } catch (NumberFormatException e) {
            // falls through to the error below
        }
        throw ParioException.argument("unknown distribution '" + text + "'; expected block, block(k), cyclic, "
            + "cyclic(k) or none");
    }

    @Override
    public String toString() {
        return switch (kind) {
            case BLOCK -> size == 0 ? "block" : "block(" + size + ")";
            case CYCLIC -> size == 1 ? "cyclic" : "cyclic(" + size + ")";
            case NONE -> "none";
        };
    }
}
