package org.pario.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ParioException;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
import org.pario.datatypes.NaiveTypemap;
import org.pario.datatypes.Order;
import org.pario.datatypes.RandomTypes;

/**
 * Random views on 1 to 6 ranks, checked byte for byte against a file computed from the typemap by a naive
 * expansion written from the standard: the file after independent writes, the file after collective writes
 * (each over a file that already holds sentinel bytes in part), and what independent and collective reads
 * return. Views are darrays (BLOCK, CYCLIC(k), NONE; C and Fortran) or random nested types placed in one slot
 * per rank of a super-tile, so that ranks interleave; some ranks access nothing, offsets start anywhere, and
 * hints shrink the sieve windows and force two-phase I/O with 1 to all ranks as aggregators, rounds of a few
 * bytes to a few KB, and odd file-domain alignments.
 */
@Timeout(300)
class ViewPropertyTest {
    private static final int CASES = 120;
    private static final byte SENTINEL = (byte) 0x5A;

    @TempDir
    Path dir;

    /** One generated case: every rank's view and access. */
    record Case(int ranks, Datatype etype, Datatype[] filetypes, long[] disps, long[] offsets, long[] counts,
                Map<String, String> hints, long sentinelBytes) {
    }

    @Test
    void collectiveAndIndependentAccessMatchTheTypemapOracle() throws Exception {
        int checked = 0;
        for (int seed = 0; seed < CASES * 4 && checked < CASES; seed++) {
            final Case c = generate(seed);
            if (c == null) {
                continue;
            }
            check(c, seed);
            checked++;
        }
        assertEquals(CASES, checked, "enough valid random views");
    }

    private static Case generate(final long seed) {
        final Random rnd = new Random(seed);
        final int ranks = 1 + rnd.nextInt(6);
        final Datatype[] filetypes = new Datatype[ranks];
        final Datatype etype;
        if (rnd.nextBoolean()) {
            etype = new Datatype[] {Datatype.INT, Datatype.DOUBLE, Datatype.SHORT, Datatype.BYTE}[rnd.nextInt(4)];
            final int dims = 1 + rnd.nextInt(3);
            final long[] psizes = grid(ranks, dims, rnd);
            final long[] gsizes = new long[dims];
            final Distribution[] distribs = new Distribution[dims];
            final long[] dargs = new long[dims];
            for (int d = 0; d < dims; d++) {
                gsizes[d] = 1 + rnd.nextInt(9);
                distribs[d] = Distribution.values()[rnd.nextInt(3)];
                if (distribs[d] == Distribution.NONE) {
                    psizes[d] = 1;
                }
                dargs[d] = distribs[d] == Distribution.CYCLIC && rnd.nextBoolean() ? 1 + rnd.nextInt(3)
                    : Datatype.DISTRIBUTE_DFLT_DARG;
                if (distribs[d] == Distribution.BLOCK && rnd.nextInt(3) == 0) {
                    dargs[d] = (gsizes[d] + psizes[d] - 1) / psizes[d] + rnd.nextInt(2);
                }
            }
            // NONE dimensions were set to 1 process: fold the rest of the ranks into the first distributed one
            long grid = 1;
            for (final long p : psizes) {
                grid *= p;
            }
            if (grid != ranks) {
                return null;
            }
            final Order order = rnd.nextBoolean() ? Order.C : Order.FORTRAN;
            try {
                for (int r = 0; r < ranks; r++) {
                    filetypes[r] = Datatype.darray(ranks, r, gsizes, distribs, dargs, psizes, order, etype);
                }
            } catch (ParioException e) {
                return null;
            }
        } else {
            etype = Datatype.BYTE;
            final Datatype f = new RandomTypes(seed, false).next(3);
            if (f.size() == 0 || f.trueLb() < 0 || f.extent() <= 0 || f.trueLb() + f.trueExtent() > f.extent()) {
                return null;
            }
            for (int r = 0; r < ranks; r++) {
                filetypes[r] = Datatype.resized(Datatype.hindexed(new long[] {1}, new long[] {r * f.extent()}, f), 0,
                    ranks * f.extent());
            }
        }
        final long[] disps = new long[ranks];
        final long[] offsets = new long[ranks];
        final long[] counts = new long[ranks];
        final long disp = rnd.nextInt(3) == 0 ? rnd.nextInt(100) : 0;
        long maxEnd = 0;
        for (int r = 0; r < ranks; r++) {
            try {
                Views.check(new FileView(disp, etype, filetypes[r], DataRepresentation.NATIVE), true);
            } catch (ParioException e) {
                return null;
            }
            disps[r] = disp;
            final long perTile = filetypes[r].size() / etype.size();
            final long tiles = 1 + rnd.nextInt(3);
            counts[r] = rnd.nextInt(5) == 0 ? 0 : rnd.nextLong(perTile * tiles + 1);
            offsets[r] = perTile == 0 ? 0 : rnd.nextLong(perTile + 1);
            if (perTile == 0) {
                counts[r] = 0;
            }
            maxEnd = Math.max(maxEnd, disp + (tiles + 2) * filetypes[r].extent());
        }
        final Map<String, String> hints = new HashMap<>();
        if (rnd.nextBoolean()) {
            hints.put("ind_wr_buffer_size", Integer.toString(16 + rnd.nextInt(2000)));
        }
        if (rnd.nextBoolean()) {
            hints.put("ind_rd_buffer_size", Integer.toString(16 + rnd.nextInt(2000)));
        }
        if (rnd.nextInt(4) == 0) {
            hints.put("romio_ds_write", "disable");
        }
        // two-phase: forced on most of the time, with several aggregators, tiny rounds and odd alignments
        if (rnd.nextInt(4) != 0) {
            hints.put("romio_cb_write", "enable");
            hints.put("romio_cb_read", "enable");
        }
        hints.put("cb_config_list", "*:*");
        hints.put("cb_nodes", Integer.toString(1 + rnd.nextInt(ranks)));
        hints.put("cb_buffer_size", Integer.toString(rnd.nextBoolean() ? 1 + rnd.nextInt(64) : 16 + rnd.nextInt(5000)));
        if (rnd.nextBoolean()) {
            hints.put("striping_unit", Integer.toString(1 + rnd.nextInt(100)));
        }
        final int direct = rnd.nextInt(4);
        if (direct == 0) {
            // the block-aligned middles of the larger accesses then bypass the page cache
            hints.put("direct_write", "true");
            hints.put("direct_read", "true");
        } else if (direct == 1) {
            // the default mode, with thresholds these small files reach: some accesses direct, others not
            hints.put("pario_direct_write_threshold", Integer.toString(4096 + rnd.nextInt(16384)));
            hints.put("pario_direct_read_threshold", Integer.toString(4096 + rnd.nextInt(16384)));
        } else if (direct == 2) {
            hints.put("direct_write", "false");
            hints.put("direct_read", "false");
        }
        return new Case(ranks, etype, filetypes, disps, offsets, counts, hints, rnd.nextLong(maxEnd / 2 + 1));
    }

    /** A grid of {@code dims} dimensions whose sizes multiply to {@code ranks}. */
    private static long[] grid(final int ranks, final int dims, final Random rnd) {
        final long[] p = new long[dims];
        Arrays.fill(p, 1);
        int left = ranks;
        for (int f = 2; left > 1; ) {
            if (left % f == 0) {
                p[rnd.nextInt(dims)] *= f;
                left /= f;
            } else {
                f++;
            }
        }
        return p;
    }

    /** Rank r's data: bytes determined by rank and position. */
    private static byte[] data(final Case c, final int r) {
        final byte[] d = new byte[Math.toIntExact(c.counts()[r] * c.etype().size())];
        for (int i = 0; i < d.length; i++) {
            d[i] = (byte) (31 * r + 7 * i + 1);
        }
        return d;
    }

    /** The file every write must produce: sentinels, then each rank's bytes where the naive typemap puts them. */
    private static byte[] expected(final Case c) {
        final Map<Long, Byte> at = new HashMap<>();
        long size = c.sentinelBytes();
        for (int r = 0; r < c.ranks(); r++) {
            final byte[] d = data(c, r);
            if (d.length == 0) {
                continue;
            }
            final long fsize = c.filetypes()[r].size();
            final long skip = c.offsets()[r] * c.etype().size();
            final long tiles = (skip + d.length + fsize - 1) / fsize;
            final List<long[]> runs = NaiveTypemap.runs(c.filetypes()[r], tiles);
            long stream = 0;
            int next = 0;
            for (final long[] run : runs) {
                for (long b = 0; b < run[1] && next < d.length; b++, stream++) {
                    if (stream >= skip) {
                        final long pos = c.disps()[r] + run[0] + b;
                        final Byte before = at.put(pos, d[next++]);
                        assertTrue(before == null, "generated views overlap at byte " + pos);
                        size = Math.max(size, pos + 1);
                    }
                }
            }
        }
        final byte[] out = new byte[Math.toIntExact(size)];
        Arrays.fill(out, 0, (int) c.sentinelBytes(), SENTINEL);
        at.forEach((pos, b) -> out[(int) (long) pos] = b);
        return out;
    }

    private void check(final Case c, final int seed) throws Exception {
        final String what = "seed " + seed + ": " + c.ranks() + " ranks, etype " + c.etype() + ", filetype of rank 0 "
            + c.filetypes()[0] + ", offsets " + Arrays.toString(c.offsets()) + ", counts "
            + Arrays.toString(c.counts()) + ", hints " + c.hints();
        final byte[] expected;
        try {
            expected = expected(c);
        } catch (AssertionError overlap) {
            return;
        }
        for (final boolean collective : new boolean[] {false, true}) {
            final Path file = dir.resolve("case" + seed + (collective ? "c" : "i") + ".bin");
            final byte[] sentinels = new byte[(int) c.sentinelBytes()];
            Arrays.fill(sentinels, SENTINEL);
            Files.write(file, sentinels);
            final List<byte[]> reads = LocalCluster.call(c.ranks(), comm -> {
                final int r = comm.rank();
                try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.RDWR),
                    Hints.of(c.hints()))) {
                    f.setView(c.disps()[r], c.etype(), c.filetypes()[r], DataRepresentation.NATIVE);
                    final byte[] d = data(c, r);
                    if (collective) {
                        assertEquals(d.length, f.writeAtAll(c.offsets()[r], d, d.length, Datatype.BYTE).bytes());
                    } else {
                        assertEquals(d.length, f.writeAt(c.offsets()[r], d, d.length, Datatype.BYTE).bytes());
                    }
                    comm.barrier();
                    final byte[] back = new byte[d.length];
                    if (collective) {
                        f.readAtAll(c.offsets()[r], back, back.length, Datatype.BYTE);
                    } else {
                        f.readAt(c.offsets()[r], back, back.length, Datatype.BYTE);
                    }
                    return back;
                }
            });
            assertArrayEquals(expected, Files.readAllBytes(file), (collective ? "collective, " : "independent, ")
                + what);
            for (int r = 0; r < c.ranks(); r++) {
                assertArrayEquals(data(c, r), reads.get(r), "read back by rank " + r + ", " + what);
            }
        }
    }
}
