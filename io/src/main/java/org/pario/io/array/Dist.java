package org.pario.io.array;

import org.pario.ParioException;
import org.pario.datatypes.Distribution;

/**
 * How one dimension of a {@link DistributedArray} is spread over its dimension of the process grid, HPF style.
 *
 * @param kind the distribution, as MPI's {@code MPI_DISTRIBUTE_*} (the same kinds darray types take)
 * @param size BLOCK: the block length, or 0 for {@code ceil(n / p)}; CYCLIC: the block length k ({@code >= 1});
 *             NONE: 0
 */
public record Dist(Distribution kind, long size) {
    /** Checks the arguments. */
    public Dist {
        if (kind == null || size < 0 || kind == Distribution.CYCLIC && size < 1
            || kind == Distribution.NONE && size != 0) {
            throw ParioException.argument("bad distribution " + kind + "(" + size + ")");
        }
    }

    /** @return BLOCK with blocks of {@code ceil(n / p)} */
    public static Dist block() {
        return new Dist(Distribution.BLOCK, 0);
    }

    /** @return BLOCK(k) */
    public static Dist block(final long k) {
        if (k < 1) {
            throw ParioException.argument("BLOCK(k) needs k >= 1, got " + k);
        }
        return new Dist(Distribution.BLOCK, k);
    }

    /** @return CYCLIC(1) */
    public static Dist cyclic() {
        return new Dist(Distribution.CYCLIC, 1);
    }

    /** @return CYCLIC(k) */
    public static Dist cyclic(final long k) {
        return new Dist(Distribution.CYCLIC, k);
    }

    /** @return NONE */
    public static Dist none() {
        return new Dist(Distribution.NONE, 0);
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
