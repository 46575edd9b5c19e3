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
 *   <tr><td>{@code romio_ds_write}</td><td>{@code automatic} (default), {@code enable} or {@code disable}: data
 *       sieving for independent writes (read-modify-write of a window under a byte-range lock); with
 *       {@code disable}, each run is written on its own and no lock is taken</td></tr>
 *   <tr><td>{@code ind_wr_buffer_size}</td><td>bytes of one sieving write window (default 524288)</td></tr>
 *   <tr><td>{@code romio_cb_write}, {@code romio_cb_read}</td><td>{@code automatic} (default: two-phase
 *       collective buffering when ranks' byte ranges interleave and some rank's runs are shorter than
 *       {@code pario_cb_run_threshold}), {@code enable} or {@code disable}</td></tr>
 *   <tr><td>{@code pario_cb_run_threshold}</td><td>bytes: in automatic mode, a collective call whose ranks'
 *       contiguous runs average at least this long (estimated from each rank's first runs) runs as independent
 *       accesses, which reach storage in large pieces without moving data between ranks (default 1024, measured:
 *       docs/benchmarks.md)</td></tr>
 *   <tr><td>{@code cb_buffer_size}</td><td>bytes an aggregator handles per round (default 16777216)</td></tr>
 *   <tr><td>{@code cb_nodes}</td><td>the number of aggregators (default and maximum: what
 *       {@code cb_config_list} selects); reported as the number in effect</td></tr>
 *   <tr><td>{@code cb_config_list}</td><td>which ranks aggregate, ROMIO's grammar: comma-separated
 *       {@code host:N}, {@code *:N} or {@code *:*}, and the count {@code auto}: half the host's ranks, at least
 *       one and at most four (default {@code *:auto}; ROMIO's default is {@code *:1}, one per host)</td></tr>
 *   <tr><td>{@code striping_unit}</td><td>bytes file domains are aligned to (default 0: the storage's preferred
 *       block size)</td></tr>
 *   <tr><td>{@code direct_write}</td><td>{@code automatic} (default), {@code true} or {@code false}: on the local
 *       file system, the block-aligned part of a write bypasses the page cache ({@code O_DIRECT}); with
 *       {@code automatic} only writes of at least {@code pario_direct_write_threshold} bytes do (aggregators'
 *       windows, runs of a MiB and more), with {@code true} every write with a whole block in it. Reported as
 *       {@code false} where the file system refuses it and on other backends. Large writes then cost no page-cache
 *       memory: none to find and fill, no dirty-page throttling, no writeback after the call; small ones keep the
 *       page cache, which merges them. With direct writes in effect, automatic collective buffering also
 *       aggregates runs that independent writes would sieve</td></tr>
 *   <tr><td>{@code pario_direct_write_threshold}</td><td>bytes: with {@code direct_write=automatic}, writes at least
 *       this long are direct (default 1048576)</td></tr>
 *   <tr><td>{@code direct_read}</td><td>{@code automatic} (default), {@code true} or {@code false}: the same for
 *       reads, with {@code automatic} only reads of at least {@code pario_direct_read_threshold} bytes (aggregators'
 *       windows, sieve windows, runs of a MiB and more). A large read then lands in the caller's memory without
 *       filling page-cache memory first; small reads keep the kernel's read-ahead. With direct reads in effect,
 *       automatic collective buffering also aggregates runs that independent reads would sieve, since a direct
 *       sieve window fetches its neighbours' bytes from the disk for every rank</td></tr>
 *   <tr><td>{@code pario_direct_read_threshold}</td><td>bytes: with {@code direct_read=automatic}, reads at least
 *       this long are direct (default 1048576)</td></tr>
 *   <tr><td>{@code pario_verify_after_write}</td><td>{@code false} (default) or {@code true}: a checkpoint's
 *       checksums are computed from the bytes as they are written; with {@code true} its data is also read back
 *       from storage after the sync and compared with them, so storage that lost or changed bytes fails the write
 *       instead of a later restore (it costs a read of the whole checkpoint)</td></tr>
 *   <tr><td>{@code pario_async_staging_bytes}</td><td>bytes of a rank's data an asynchronous checkpoint copies
 *       before its call returns (default: a quarter of the JVM's largest heap, at most 1073741824); a rank holding
 *       more writes the rest from its own buffers before the call returns. Staged bytes are held in direct memory
 *       where the JVM's direct memory limit allows, else on the heap</td></tr>
 * </table>
 */
public final class Hints {
    /** No hints: every default. */
    public static final Hints DEFAULT = new Hints(Map.of());

    private final Map<String, String> values;

    private Hints(final Map<String, String> given) {
        final Map<String, String> v = new TreeMap<>();
        v.put("romio_ds_read", "automatic");
        v.put("romio_ds_write", "automatic");
        v.put("ind_rd_buffer_size", "4194304");
        v.put("ind_wr_buffer_size", "524288");
        v.put("romio_cb_write", "automatic");
        v.put("romio_cb_read", "automatic");
        v.put("cb_buffer_size", "16777216");
        v.put("cb_config_list", "*:auto");
        v.put("striping_unit", "0");
        v.put("pario_cb_run_threshold", "1024");
        v.put("direct_read", "automatic");
        v.put("direct_write", "automatic");
        v.put("pario_direct_write_threshold", "1048576");
        v.put("pario_direct_read_threshold", "1048576");
        v.put("pario_verify_after_write", "false");
        v.put("pario_async_staging_bytes", Long.toString(defaultStagingBytes()));
        for (final Map.Entry<String, String> e : given.entrySet()) {
            v.put(e.getKey().trim(), e.getValue().trim());
        }
        for (final String key : new String[] {"romio_ds_read", "romio_ds_write", "romio_cb_write", "romio_cb_read"}) {
            final String mode = v.get(key).toLowerCase(Locale.ROOT);
            if (!mode.equals("automatic") && !mode.equals("enable") && !mode.equals("disable")) {
                throw ParioException.argument("hint " + key + " must be automatic, enable or disable, got '" + mode
                    + "'");
            }
            v.put(key, mode);
        }
        choose(v, "direct_read", "automatic", "true", "false");
        choose(v, "direct_write", "automatic", "true", "false");
        choose(v, "pario_verify_after_write", "true", "false");
        for (final String key : new String[] {"pario_direct_write_threshold", "pario_direct_read_threshold",
            "pario_cb_run_threshold", "pario_async_staging_bytes"}) {
            if (number(v, key) < 0) {
                throw ParioException.argument("hint " + key + " must be >= 0, got " + v.get(key));
            }
        }
        for (final String key : new String[] {"ind_rd_buffer_size", "ind_wr_buffer_size", "cb_buffer_size"}) {
            final long size = number(v, key);
            if (size < 1 || size > Integer.MAX_VALUE - 8) {
                throw ParioException.argument("hint " + key + " must be in [1, 2^31 - 9], got " + size);
            }
        }
        if (v.containsKey("cb_nodes") && number(v, "cb_nodes") < 1) {
            throw ParioException.argument("hint cb_nodes must be >= 1, got " + v.get("cb_nodes"));
        }
        if (number(v, "striping_unit") < 0) {
            throw ParioException.argument("hint striping_unit must be >= 0, got " + v.get("striping_unit"));
        }
        Aggregators.parseConfigList(v.get("cb_config_list"));
        this.values = Collections.unmodifiableMap(v);
    }

    /** A quarter of the JVM's largest heap, at most 1 GiB: room for a rank's part of most checkpoints. */
    private static long defaultStagingBytes() {
        return Math.min(1L << 30, Runtime.getRuntime().maxMemory() / 4);
    }

    /** @return the bytes of a rank's data an asynchronous checkpoint may copy before its call returns */
    public long asyncStagingBytes() {
        return number(values, "pario_async_staging_bytes");
    }

    /**
     * @param hints key to value, as strings
     * @return the hints, checked
     */
    public static Hints of(final Map<String, String> hints) {
        return new Hints(hints);
    }

    /** Puts a hint's value in lower case, after checking it is one of {@code allowed} (in any case). */
    /** @return whether a checkpoint's data is read back and checked after it is written */
    public boolean verifyAfterWrite() {
        return values.get("pario_verify_after_write").equals("true");
    }

    private static void choose(final Map<String, String> v, final String key, final String... allowed) {
        final String value = v.get(key).toLowerCase(Locale.ROOT);
        if (!java.util.Arrays.asList(allowed).contains(value)) {
            final String last = allowed[allowed.length - 1];
            final String others = String.join(", ", java.util.Arrays.copyOf(allowed, allowed.length - 1));
            throw ParioException.argument("hint " + key + " must be " + others + " or " + last + ", got '" + v.get(key)
                + "'");
        }
        v.put(key, value);
    }

    private static long number(final Map<String, String> v, final String key) {
        try {
            return Long.parseLong(v.get(key));
        } catch (NumberFormatException e) {
            throw ParioException.argument("hint " + key + " must be a number of bytes, got '" + v.get(key) + "'");
        }
    }

    /** @return these hints with some values replaced (the values a file puts in effect) */
    Hints with(final Map<String, String> changes) {
        final Map<String, String> v = new TreeMap<>(values);
        v.putAll(changes);
        return new Hints(v);
    }

    /** @return a hint's value as a number */
    long number(final String key) {
        return number(values, key);
    }

    /** @return a hint's value, or null */
    String get(final String key) {
        return values.get(key);
    }

    /** @return every hint with the value in effect, defaults included */
    public Map<String, String> asMap() {
        return values;
    }

    /**
     * @param write writes or reads
     * @return whether they may bypass the page cache ({@code direct_write} or {@code direct_read} true or automatic)
     */
    boolean direct(final boolean write) {
        return !values.get(write ? "direct_write" : "direct_read").equals("false");
    }

    /** @return the sieve window for independent reads, or 0 when sieving is disabled */
    int readSieveBytes() {
        return values.get("romio_ds_read").equals("disable") ? 0 : (int) number(values, "ind_rd_buffer_size");
    }

    /**
     * @return the run length from which independent accesses skip sieving: in automatic mode 32 KiB (a storage
     *     call per run then costs little next to the data, while sieving would also move the neighbours' bytes);
     *     with sieving enabled, only runs as large as the window
     */
    int directRunBytes(final boolean write) {
        final String mode = values.get(write ? "romio_ds_write" : "romio_ds_read");
        return mode.equals("automatic") ? 32768 : Integer.MAX_VALUE;
    }

    /** @return the sieve window for independent writes, or 0 when sieving (and its locking) is disabled */
    int writeSieveBytes() {
        return values.get("romio_ds_write").equals("disable") ? 0 : (int) number(values, "ind_wr_buffer_size");
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
