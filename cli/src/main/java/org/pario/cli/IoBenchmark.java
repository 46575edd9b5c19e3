package org.pario.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;

import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.LocalCluster;
import org.pario.comm.Op;
import org.pario.comm.Pario;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.io.Hints;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;
import org.pario.io.array.Dist;
import org.pario.io.array.DistributedArray;
import org.pario.io.array.Element;

/**
 * The body of {@code pario bench io}: a collective write (with the file synced inside the timed section) and a
 * collective read of an {@code N x N x N} array of doubles distributed as a darray: BLOCK over a process grid, or
 * CYCLIC(1) over the last dimension (8-byte runs). Element {@code i} of the global array (C order) holds {@code i};
 * the read checks every value. Between write and read, rank 0 drops the page cache when it may (root), so the read
 * comes from the disk. Rank 0 prints one line per phase in the format of {@code bench/c/io_bench.c}:
 * {@code write|read PATTERN RANKS MiB/s SECONDS PEAK_RSS_MIB_MAX PEAK_RSS_MIB_SUM}.
 */
final class IoBenchmark {
    private IoBenchmark() {
    }

    /**
     * Checks a pattern against a rank count before any rank starts.
     *
     * @param pattern {@code AxBxC} (BLOCK on that grid), {@code cyclic} or {@code cyclicK}
     * @param ranks   the ranks that will run it
     * @param n       the edge of the cube of doubles
     */
    static void check(final String pattern, final int ranks, final long n) {
        if (n < 1) {
            throw ParioException.argument("--size must be >= 1, got " + n);
        }
        final long[] shape = {n, n, n};
        final long k = cyclicBlock(pattern);
        final long most = k > 0
            ? DistributedArray.largestLocalCount(ranks, shape, new Dist[] {Dist.none(), Dist.none(), Dist.cyclic(k)},
                new long[] {1, 1, ranks})
            : DistributedArray.largestLocalCount(ranks, shape, new Dist[] {Dist.block(), Dist.block(), Dist.block()},
                grid(pattern, ranks));
        if (most > PART_BYTES / 8) {
            throw ParioException.argument("--size " + n + " gives one of the " + ranks + " ranks " + (most * 8 >> 20)
                + " MiB of doubles; a benchmark rank (-Xmx3g) holds at most " + (PART_BYTES >> 20) + " MiB: give a "
                + "smaller --size or more ranks");
        }
    }

    /** What a benchmark rank may hold: its JVM runs with -Xmx3g, and it keeps its part and the warm-up's. */
    static final long PART_BYTES = 1L << 30;

    private static long[] grid(final String pattern, final int ranks) {
        if (pattern.equals("block")) {
            return DistributedArray.dimsCreate(ranks, new long[3]);
        }
        final String[] p = pattern.split("x");
        if (p.length != 3) {
            throw ParioException.argument("--pattern must be block, AxBxC (a BLOCK grid), cyclic or cyclicK, got "
                + pattern);
        }
        final long[] grid = new long[3];
        try {
            for (int i = 0; i < 3; i++) {
                grid[i] = Long.parseLong(p[i]);
            }
        } catch (NumberFormatException e) {
            throw ParioException.argument("--pattern must be block, AxBxC (a BLOCK grid), cyclic or cyclicK, got "
                + pattern);
        }
        if (grid[0] * grid[1] * grid[2] != ranks) {
            throw ParioException.argument("--pattern " + pattern + " needs " + grid[0] * grid[1] * grid[2]
                + " ranks, not " + ranks);
        }
        return grid;
    }

    /** The distributed array of a pattern: {@code AxBxC} (BLOCK on that grid), {@code cyclic} or {@code cyclicK}. */
    static DistributedArray<double[]> array(final String pattern, final Communicator world, final long n) {
        final long[] g = {n, n, n};
        final long k = cyclicBlock(pattern);
        if (k > 0) {
            return DistributedArray.of(world, Element.DOUBLE, g, Dist.none(), Dist.none(), Dist.cyclic(k))
                .grid(1, 1, world.size());
        }
        return DistributedArray.of(world, Element.DOUBLE, g, Dist.block(), Dist.block(), Dist.block())
            .grid(grid(pattern, world.size()));
    }

    /**
     * @return K for {@code cyclicK} (CYCLIC(K) over the last dimension), 1 for {@code cyclic}, 0 for a BLOCK pattern
     * @throws ParioException for {@code cyclic} followed by anything but a positive number
     */
    static long cyclicBlock(final String pattern) {
        if (!pattern.startsWith("cyclic")) {
            return 0;
        }
        final String k = pattern.substring("cyclic".length());
        try {
            final long block = k.isEmpty() ? 1 : Long.parseLong(k);
            if (block >= 1) {
                return block;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw ParioException.argument("--pattern " + pattern + ": cyclic or cyclicK with K >= 1 (CYCLIC(K) over the "
            + "last dimension) expected");
    }

    /**
     * Runs as one rank of a job started by a launcher.
     *
     * @param warmup the part of each rank's data first written and read, untimed, through the same view to a scratch
     *               file ({@code FILE.warmup}, deleted before the timed write), or 0 for none
     */
    static void run(final long n, final String pattern, final String file, final Map<String, String> hints,
                    final double warmup) {
        try (Communicator world = Pario.init()) {
            run(world, n, pattern, file, hints, warmup, false, new PrintWriter(System.out, true));
        }
    }

    /**
     * Runs the job as {@code ranks} threads of this JVM, as a job of thread ranks would: the same code, with messages
     * between ranks passed in memory. The peak memory it reports is the process's, shared out evenly over the ranks.
     */
    static void runInThreads(final int ranks, final long n, final String pattern, final String file,
                             final Map<String, String> hints, final double warmup, final PrintWriter out) {
        LocalCluster.run(ranks, world -> run(world, n, pattern, file, hints, warmup, true, out));
        out.flush();
    }

    /** @param out where rank 0 prints its lines */
    private static void run(final Communicator world, final long n, final String pattern, final String file,
                            final Map<String, String> hints, final double warmup, final boolean threads,
                            final PrintWriter out) {
        final int me = world.rank();
        final DistributedArray<double[]> array = array(pattern, world, n);
        final Datatype ft = array.local().filetype();
        final double[] local = CheckpointCommand.synthetic(array);
        final long total = n * n * n * 8;
        if (me == 0) {
            out.printf(Locale.ROOT, "# Pario, %d %s ranks, %d^3 doubles (%d MiB), %s%n", world.size(),
                threads ? "thread" : "JVM", n, total >> 20, pattern);
        }
        final int warm = (int) Math.min(local.length, Math.round(local.length * warmup));
        if (warm > 0) {
            warmUp(world, file + ".warmup", ft, local, warm, hints);
        }
        try (ParallelFile f = ParallelFile.open(world, file, EnumSet.of(Mode.CREATE, Mode.WRONLY),
            Hints.of(hints))) {
            if (me == 0) {
                out.println("# hints " + f.hints().asMap());
            }
            f.setView(0, Datatype.DOUBLE, ft, DataRepresentation.NATIVE);
            world.barrier();
            final long t0 = System.nanoTime();
            f.writeAll(local, local.length, Datatype.DOUBLE);
            f.sync();
            report(world, "write", pattern, total, t0, threads, out);
        }
        java.util.Arrays.fill(local, -1);
        try (ParallelFile f = ParallelFile.open(world, file, EnumSet.of(Mode.RDONLY),
            Hints.of(hints))) {
            f.setView(0, Datatype.DOUBLE, ft, DataRepresentation.NATIVE);
            if (me == 0) {
                // right before the timed read, as the C benchmark does, so that the wait after it (if any) is
                // the only time between drop and read (docs/benchmarks.md)
                dropCaches();
            }
            world.barrier();
            final long t0 = System.nanoTime();
            f.readAll(local, local.length, Datatype.DOUBLE);
            report(world, "read", pattern, total, t0, threads, out);
        }
        if (CheckpointCommand.wrong(array, local) != 0) {
            throw new IllegalStateException("rank " + me + " read back wrong values");
        }
    }

    /**
     * Writes (synced) and reads the first {@code count} elements of every rank through the benchmark's view, untimed,
     * to a scratch file it then deletes, and waits {@code PARIO_BENCH_SETTLE} seconds (default 0) for the freed
     * memory to settle: the timed phases then run in a JVM whose hot paths are compiled and whose kept buffers exist,
     * as in a job's later checkpoints. {@code bench/c/io_bench.c} does the same, so both sides are measured warm.
     */
    private static void warmUp(final Communicator world, final String scratch, final Datatype ft, final double[] local,
                               final int count, final Map<String, String> hints) {
        try (ParallelFile f = ParallelFile.open(world, scratch, EnumSet.of(Mode.CREATE, Mode.WRONLY),
            Hints.of(hints))) {
            f.setView(0, Datatype.DOUBLE, ft, DataRepresentation.NATIVE);
            f.writeAll(local, count, Datatype.DOUBLE);
            f.sync();
        }
        try (ParallelFile f = ParallelFile.open(world, scratch, EnumSet.of(Mode.RDONLY), Hints.of(hints))) {
            f.setView(0, Datatype.DOUBLE, ft, DataRepresentation.NATIVE);
            f.readAll(local, count, Datatype.DOUBLE);
        }
        world.barrier();
        if (world.rank() == 0) {
            Locations.deleteIfExists(scratch);
        }
        world.barrier();
        pause("PARIO_BENCH_SETTLE");
    }

    /** Waits as many seconds as the environment variable says (none when it is unset). */
    private static void pause(final String variable) {
        final String seconds = System.getenv(variable);
        if (seconds != null && !seconds.isBlank()) {
            try {
                Thread.sleep((long) (Double.parseDouble(seconds) * 1000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** @param threads whether the ranks are threads of one JVM, whose peak memory is then shared out over them */
    private static void report(final Communicator world, final String phase, final String pattern, final long bytes,
                               final long t0, final boolean threads, final PrintWriter out) {
        final double mine = (System.nanoTime() - t0) / 1e9;
        final double[] slowest = new double[1];
        world.allreduce(new double[] {mine}, slowest, 1, Datatype.DOUBLE, Op.MAX);
        final long process = peakRssMiB();
        // the share is rounded so that the ranks' shares add up to the process's figure
        final long rss = !threads || process < 0 ? process
            : process / world.size() + (world.rank() < process % world.size() ? 1 : 0);
        final long[] max = new long[1];
        final long[] sum = new long[1];
        world.allreduce(new long[] {rss}, max, 1, Datatype.LONG, Op.MAX);
        world.allreduce(new long[] {rss}, sum, 1, Datatype.LONG, Op.SUM);
        if (world.rank() == 0) {
            out.printf(Locale.ROOT, "%s %s %d %.1f %.3f %d %d%n", phase, pattern, world.size(),
                bytes / 1048576.0 / slowest[0], slowest[0], max[0], sum[0]);
        }
    }

    /** @return this process's peak resident memory in MiB (VmHWM), or -1 where /proc is missing */
    private static long peakRssMiB() {
        try {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /**
     * Drops the page cache, then waits {@code PARIO_BENCH_READ_SETTLE} seconds (default 0): on a virtual machine
     * whose hypervisor takes back freed guest memory within seconds, a read that starts right after the drop fills
     * the page cache from memory the drop has just freed, cheap only for a program whose own writes put it there;
     * after the wait every program reads into the same cold memory (docs/benchmarks.md).
     */
    static void dropCaches() {
        try {
            Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
        } catch (IOException | SecurityException e) {
            System.out.println("# could not drop the page cache (not root): the read may come from memory");
        }
        pause("PARIO_BENCH_READ_SETTLE");
    }
}
