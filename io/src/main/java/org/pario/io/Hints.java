package org.pario.io;

import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.pario.ParioException;

/**
 * Tuning hints for a file ({@code MPI_Info}), immutable. Known keys are checked and have defaults, which
 * {@link #asMap()} reports with the values in effect; unknown keys are kept and ignored, as MPI does.
 *
 * <table>
 *   <caption>hints in effect</caption>
 *   <tr><td>{@code romio_ds_read}</td><td>{@code automatic} (default), {@code enable} or {@code disable}: data
 *       sieving for independent reads</td></tr>
 *   <tr><td>{@code ind_rd_buffer_size}</td><td>bytes of one sieving read window (default 4194304)</td></tr>
 * </table>
 */
public final class Hints {
    /** No hints: every default. */
    public static final Hints DEFAULT = new Hints(Map.of());

    private final Map<String, String> values;

    private Hints(final Map<String, String> given) {
        final Map<String, String> v = new TreeMap<>();
        v.put("romio_ds_read", "automatic");
        v.put("ind_rd_buffer_size", "4194304");
        for (final Map.Entry<String, String> e : given.entrySet()) {
            v.put(e.getKey().trim(), e.getValue().trim());
        }
        final String ds = v.get("romio_ds_read").toLowerCase(Locale.ROOT);
        if (!ds.equals("automatic") && !ds.equals("enable") && !ds.equals("disable")) {
            throw ParioException.argument("hint romio_ds_read must be automatic, enable or disable, got '" + ds + "'");
        }
        final long size = number(v, "ind_rd_buffer_size");
        if (size < 1 || size > Integer.MAX_VALUE - 8) {
            throw ParioException.argument("hint ind_rd_buffer_size must be in [1, 2^31 - 9], got " + size);
        }
        this.values = Collections.unmodifiableMap(v);
    }

    /**
     * @param hints key to value, as strings
     * @return the hints, checked
     */
    public static Hints of(final Map<String, String> hints) {
        return new Hints(hints);
    }

    private static long number(final Map<String, String> v, final String key) {
        try {
            return Long.parseLong(v.get(key));
        } catch (NumberFormatException e) {
            throw ParioException.argument("hint " + key + " must be a number of bytes, got '" + v.get(key) + "'");
        }
    }

    /** @return every hint with the value in effect, defaults included */
    public Map<String, String> asMap() {
        return values;
    }

    /** @return the sieve window for independent reads, or 0 when sieving is disabled */
    int readSieveBytes() {
        return values.get("romio_ds_read").equalsIgnoreCase("disable") ? 0 : (int) number(values, "ind_rd_buffer_size");
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
