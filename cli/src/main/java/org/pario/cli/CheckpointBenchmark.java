package org.pario.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.comm.Pario;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.io.Hints;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;
import org.pario.io.array.Checkpoint;
import org.pario.io.array.CheckpointListener;
import org.pario.io.array.Dist;
import org.pario.io.array.DistributedArray;
import org.pario.io.array.Element;
import org.pario.io.array.Region;

/**
 * The body of {@code pario bench checkpoint}: a checkpoint of the array {@code pario bench io} moves, beside the raw
 * collective write (synced) and read of the same data through the same view, in one job. First the JVM's first
 * checkpoint, before anything else has run (after {@link Checkpoint#prepare}, unless told not to, and {@code
 * computeSeconds} of waiting, standing for the computation a job does before it checkpoints); then rounds of raw
 * write and checkpoint write, raw read and restore on the same ranks (each pair raw first in odd rounds and
 * checkpoint first in even ones, as a phase runs on a disk still settling the one before it), with a raw read of the
 * checkpoint file's own data after the restore in odd rounds and before it in even ones, restore on one rank fewer
 * with another distribution, and verify. The page cache is dropped (as root) before every phase that reads, so
 * reads come from the disk. Rank 0 prints a line per phase ({@code PHASE PATTERN RANKS MiB/s SECONDS}), then each
 * phase's median and the ratios that matter.
 */
final class CheckpointBenchmark {
    private CheckpointBenchmark() {
    }

    /** Runs as one rank of a job started by a launcher. */
    static void run(final long n, final String pattern, final String file, final Map<String, String> hints,
                    final int rounds, final double computeSeconds, final boolean prepare) {
        try (Communicator world = Pario.init()) {
            final DistributedArray<double[]> array = IoBenchmark.array(pattern, world, n);
            final double[] local = CheckpointCommand.synthetic(array);
            final long total = n * n * n * 8;
            final String raw = file + ".raw";
            final String ckpt = file + ".ckpt";
            final PhaseClock clock = new PhaseClock();
            final Checkpoint checkpoint = Checkpoint.at(ckpt).hints(Hints.of(hints)).listener(clock);
            if (prepare) {
                checkpoint.prepare(array);
            }
            final Map<String, List<Double>> seconds = new LinkedHashMap<>();
            if (world.rank() == 0) {
                System.out.printf(Locale.ROOT, "# Pario, %d JVM ranks, %d^3 doubles (%d MiB), %s, checkpoint%s%n",
                    world.size(), n, total >> 20, pattern, prepare ? ", prepared" : "");
            }
            if (computeSeconds > 0) {
                // a job computes before its first checkpoint; the checkpoint's warm-up runs meanwhile
                try {
                    Thread.sleep((long) (computeSeconds * 1000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            time(world, "first-checkpoint", pattern, total, seconds, false, clock,
                () -> checkpoint.write("field", array, local));
            for (int round = 0; round < rounds; round++) {
                if (world.rank() == 0) {
                    System.out.println("# round " + (round + 1));
                }
                // the disk under a phase still settles the one before it, so each pair runs in both orders
                final boolean rawFirst = round % 2 == 0;
                final Runnable rawWrite = () -> {
                    // into a new file, as a checkpoint writes
                    world.barrier();
                    if (world.rank() == 0) {
                        Locations.deleteIfExists(raw);
                    }
                    time(world, "raw-write", pattern, total, seconds, false, clock, () -> {
                        try (ParallelFile f = ParallelFile.open(world, raw, EnumSet.of(Mode.CREATE, Mode.EXCL,
                            Mode.WRONLY), Hints.of(hints))) {
                            f.setView(0, Datatype.DOUBLE, array.local().filetype(), DataRepresentation.NATIVE);
                            f.writeAll(local, local.length, Datatype.DOUBLE);
                            f.sync();
                        }
                        return null;
                    });
                };
                final Runnable checkpointWrite = () -> time(world, "checkpoint-write", pattern, total, seconds,
                    false, clock, () -> checkpoint.write("field", array, local));
                inOrder(rawFirst, rawWrite, checkpointWrite);
                final Runnable rawRead = () -> rawRead(world, "raw-read", pattern, raw, 0, array, local, hints,
                    total, seconds, clock);
                final Runnable restore = () -> {
                    Arrays.fill(local, -1);
                    time(world, "restore", pattern, total, seconds, true, clock, () -> {
                        checkpoint.restore("field", array, local);
                        return null;
                    });
                    check(world, array, local, "the restore");
                };
                // the raw read of the checkpoint file's own data: the same bytes on the same disk blocks as the
                // restore, so that where the two files lie on the disk does not count
                final Runnable rawReadOfCheckpoint = () -> rawRead(world, "raw-read-checkpoint-file", pattern, ckpt,
                    checkpoint.header(world).array("field").offset(), array, local, hints, total, seconds, clock);
                if (rawFirst) {
                    rawRead.run();
                    restore.run();
                    rawReadOfCheckpoint.run();
                } else {
                    rawReadOfCheckpoint.run();
                    restore.run();
                    rawRead.run();
                }
                restoreRegion(world, "restore-region-slab", pattern, n, checkpoint, seconds, clock,
                    Region.of(new long[] {n / 2 - n / 128, 0, 0}, new long[] {Math.max(1, n / 64), n, n}));
                restoreRegion(world, "restore-region-box", pattern, n, checkpoint, seconds, clock,
                    Region.of(new long[] {n / 4, n / 4, n / 4}, new long[] {Math.max(1, n / 4), Math.max(1, n / 4),
                        Math.max(1, n / 4)}));
                if (world.size() > 1) {
                    restoreOnFewer(world, pattern, n, checkpoint, total, seconds, clock);
                }
                time(world, "verify", pattern, total, seconds, true, clock, () -> {
                    checkpoint.verify(world);
                    return null;
                });
            }
            summary(world, pattern, total, seconds);
            world.barrier();
            if (world.rank() == 0) {
                Locations.deleteIfExists(raw);
                Locations.deleteIfExists(ckpt);
            }
        }
    }

    /** Reads the array raw, from file byte {@code disp} on, through its view, timed as {@code phase}, and checks it. */
    private static void rawRead(final Communicator world, final String phase, final String pattern, final String file,
                                final long disp, final DistributedArray<double[]> array, final double[] local,
                                final Map<String, String> hints, final long total,
                                final Map<String, List<Double>> seconds, final PhaseClock clock) {
        Arrays.fill(local, -1);
        time(world, phase, pattern, total, seconds, true, clock, () -> {
            try (ParallelFile f = ParallelFile.open(world, file, EnumSet.of(Mode.RDONLY), Hints.of(hints))) {
                f.setView(disp, Datatype.DOUBLE, array.local().filetype(), DataRepresentation.NATIVE);
                f.readAll(local, local.length, Datatype.DOUBLE);
            }
            return null;
        });
        check(world, array, local, "the " + phase);
    }

    private static void inOrder(final boolean rawFirst, final Runnable raw, final Runnable checkpoint) {
        (rawFirst ? raw : checkpoint).run();
        (rawFirst ? checkpoint : raw).run();
    }

    /**
     * Restores a region onto every rank (BLOCK), after dropping the page cache, and says how many bytes the ranks
     * read from storage (their {@code rchar} in {@code /proc/self/io}) against the bytes of the checksum chunks that
     * cover the region, and its time against the last full restore's.
     */
    private static void restoreRegion(final Communicator world, final String phase, final String pattern,
                                      final long n, final Checkpoint checkpoint,
                                      final Map<String, List<Double>> seconds, final PhaseClock clock,
                                      final Region region) {
        final DistributedArray<double[]> box = DistributedArray.of(world, Element.DOUBLE, region.count());
        final double[] back = box.allocate();
        final long regionBytes = region.elements() * 8;
        final long before = readBytes();
        time(world, phase, pattern, regionBytes, seconds, true, clock, () -> {
            checkpoint.restore("field", region, box, back);
            return null;
        });
        final long read = world.allreduce(readBytes() - before, Op.SUM);
        final long wrong = world.allreduce(wrongInRegion(box, region, n, back), Op.SUM);
        if (wrong != 0) {
            throw new IllegalStateException("the region restore returned " + wrong + " wrong values");
        }
        if (world.rank() == 0) {
            final long covering = checkpoint.bytesToRead("field", region);
            final List<Double> full = seconds.get("restore");
            final List<Double> mine = seconds.get(phase);
            System.out.printf(Locale.ROOT, "# %s %s: region %d MiB, chunks covering it %d MiB, read from storage "
                    + "%.1f MiB (%.2fx the chunks), time %.3f s = 1/%.1f of the full restore%n", phase, region,
                regionBytes >> 20, covering >> 20, read / 1048576.0, (double) read / covering,
                mine.get(mine.size() - 1), full.get(full.size() - 1) / mine.get(mine.size() - 1));
        }
    }

    /** The bytes this process has read through system calls ({@code rchar}), or 0 where Linux does not say. */
    private static long readBytes() {
        try {
            for (final String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/io"))) {
                if (line.startsWith("rchar:")) {
                    return Long.parseLong(line.substring(6).trim());
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }

    /** How many of a restored region's values differ from the synthetic array's (each element its global index). */
    private static long wrongInRegion(final DistributedArray<double[]> box, final Region region, final long n,
                                      final double[] values) {
        final long[] start = region.start();
        long wrong = 0;
        for (int i = 0; i < values.length; i++) {
            final long[] at = box.local().globalIndex(i);
            final long g = ((start[0] + at[0]) * n + start[1] + at[1]) * n + start[2] + at[2];
            wrong += values[i] == (double) g ? 0 : 1;
        }
        return wrong;
    }

    /** Restores on every rank but the last: BLOCK on their own grid, or CYCLIC(1) over the last dimension. */
    private static void restoreOnFewer(final Communicator world, final String pattern, final long n,
                                       final Checkpoint checkpoint, final long total,
                                       final Map<String, List<Double>> seconds, final PhaseClock clock) {
        final Communicator fewer = world.split(world.rank() < world.size() - 1 ? 0 : Communicator.UNDEFINED, 0);
        final String other = IoBenchmark.cyclicBlock(pattern) > 0 ? pattern : "block";
        final DistributedArray<double[]> array = fewer == null ? null : IoBenchmark.array(other, fewer, n);
        final double[] back = array == null ? null : array.allocate();
        time(world, "restore-fewer", pattern, total, seconds, true, clock, () -> {
            if (fewer != null) {
                checkpoint.restore("field", array, back);
            }
            return null;
        });
        if (fewer != null) {
            check(fewer, array, back, "the restore on fewer ranks");
            fewer.close();
        }
    }

    private static void check(final Communicator comm, final DistributedArray<double[]> array, final double[] values,
                              final String what) {
        if (comm.allreduce(CheckpointCommand.wrong(array, values), Op.SUM) != 0) {
            throw new IllegalStateException(what + " returned wrong values");
        }
    }

    /** Times one collective phase on every rank (the slowest rank's time), after dropping the page cache if asked. */
    private static void time(final Communicator world, final String phase, final String pattern, final long bytes,
                             final Map<String, List<Double>> seconds, final boolean cold, final PhaseClock clock,
                             final Supplier<Object> body) {
        world.barrier();
        if (cold && world.rank() == 0) {
            IoBenchmark.dropCaches();
        }
        world.barrier();
        final long t0 = System.nanoTime();
        clock.start();
        body.get();
        final double slowest = world.allreduce((System.nanoTime() - t0) / 1e9, Op.MAX);
        seconds.computeIfAbsent(phase, p -> new ArrayList<>()).add(slowest);
        if (world.rank() == 0) {
            System.out.printf(Locale.ROOT, "%s %s %d %.1f %.3f%n", phase, pattern, world.size(),
                bytes / 1048576.0 / slowest, slowest);
            final String phases = clock.taken();
            if (!phases.isEmpty()) {
                System.out.println("# " + phase + " on rank 0:" + phases);
            }
        }
    }

    private static double median(final List<Double> values) {
        final double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static void summary(final Communicator world, final String pattern, final long bytes,
                                final Map<String, List<Double>> seconds) {
        if (world.rank() != 0) {
            return;
        }
        final Map<String, Double> rate = new LinkedHashMap<>();
        for (final Map.Entry<String, List<Double>> e : seconds.entrySet()) {
            if (e.getKey().startsWith("restore-region")) {
                continue; // a region's rate is of its own bytes, printed with its phase
            }
            rate.put(e.getKey(), bytes / 1048576.0 / median(e.getValue()));
            System.out.printf(Locale.ROOT, "# median %s %s %d %.1f MiB/s over %d%n", e.getKey(), pattern,
                world.size(), rate.get(e.getKey()), e.getValue().size());
        }
        ratio(rate, "checkpoint-write", "raw-write");
        ratio(rate, "restore", "raw-read");
        ratio(rate, "restore", "raw-read-checkpoint-file");
        ratio(rate, "first-checkpoint", "checkpoint-write");
        ratio(rate, "restore-fewer", "restore");
    }

    private static void ratio(final Map<String, Double> rate, final String phase, final String against) {
        if (rate.containsKey(phase) && rate.containsKey(against)) {
            System.out.printf(Locale.ROOT, "# ratio %s / %s %.2f%n", phase, against,
                rate.get(phase) / rate.get(against));
        }
    }

    /** Seconds each checkpoint phase took on this rank: a phase lasts until the next one starts. */
    private static final class PhaseClock implements CheckpointListener {
        private final StringBuilder taken = new StringBuilder();
        private Phase current;
        private long since;

        void start() {
            current = null;
            taken.setLength(0);
        }

        /** @return the phases since {@link #start}, each with its seconds */
        String taken() {
            if (current != null) {
                taken.append(String.format(Locale.ROOT, " %s %.3f", current, (System.nanoTime() - since) / 1e9));
                current = null;
            }
            return taken.toString();
        }

        @Override
        public void progress(final Phase phase, final long done, final long total) {
            if (phase != current) {
                final long now = System.nanoTime();
                if (current != null) {
                    taken.append(String.format(Locale.ROOT, " %s %.3f", current, (now - since) / 1e9));
                }
                current = phase;
                since = now;
            }
        }
    }
}
