package org.pario.cli;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.comm.Pario;
import org.pario.datatypes.Datatype;
import org.pario.io.Hints;
import org.pario.io.array.Checkpoint;
import org.pario.io.array.CheckpointHeader;
import org.pario.io.array.DistributedArray;

/**
 * The body of {@code pario bench solver}: a compute loop over the array {@code pario bench io} moves (smoothing
 * sweeps over each rank's part, a value passed around the ring of ranks after each), run three ways in one job:
 * without checkpoints, with a synchronous checkpoint after every interval of sweeps, and with an asynchronous one.
 * Rank 0 prints each run's seconds, the seconds a checkpoint blocks the loop, and the ratios that matter.
 */
final class SolverBenchmark {
    private SolverBenchmark() {
    }

    /** Runs as one rank of a job started by a launcher. */
    static void run(final long n, final String pattern, final String file, final Map<String, String> hints,
                    final int intervals, final int sweeps) {
        try (Communicator world = Pario.init()) {
            final DistributedArray<double[]> array = IoBenchmark.array(pattern, world, n);
            final double[] u = CheckpointCommand.synthetic(array);
            final long total = n * n * n * 8;
            final Checkpoint checkpoint = Checkpoint.at(file).hints(Hints.of(hints));
            if (world.rank() == 0) {
                System.out.printf(Locale.ROOT, "# Pario, %d JVM ranks, %d^3 doubles (%d MiB), %s, %d intervals of %d "
                    + "sweeps%n", world.size(), n, total >> 20, pattern, intervals, sweeps);
            }
            // the first checkpoint of a JVM pays for warming up; this run is about the steady state
            checkpoint.write("field", array, u);
            checkpoint.writeAsync("field", array, u).join();
            final double[] none = loop(world, array, u, intervals, sweeps, null, false);
            final double[] sync = loop(world, array, u, intervals, sweeps, checkpoint, false);
            final double[] async = loop(world, array, u, intervals, sweeps, checkpoint, true);
            if (world.rank() == 0) {
                System.out.printf(Locale.ROOT, "no-checkpoints %s %d %.3f%n", pattern, world.size(), none[0]);
                System.out.printf(Locale.ROOT, "synchronous %s %d %.3f blocked %.3f a checkpoint%n", pattern,
                    world.size(), sync[0], sync[1] / intervals);
                System.out.printf(Locale.ROOT, "asynchronous %s %d %.3f blocked %.3f a checkpoint%n", pattern,
                    world.size(), async[0], async[1] / intervals);
                System.out.printf(Locale.ROOT, "# asynchronous: of the blocked time, %.3f s a checkpoint waiting for "
                    + "the previous one; %.3f s waiting for the last one at the end%n", async[2] / intervals, async[3]);
                System.out.printf(Locale.ROOT, "# compute a interval %.3f s, synchronous checkpoint %.3f s (%.1f MiB/s)"
                    + "%n", none[0] / intervals, sync[1] / intervals, total / 1048576.0 / (sync[1] / intervals));
                System.out.printf(Locale.ROOT, "# ratio blocked asynchronous / synchronous %.3f%n", async[1] / sync[1]);
                System.out.printf(Locale.ROOT, "# ratio run asynchronous / no checkpoints %.3f, synchronous / no "
                    + "checkpoints %.3f%n", async[0] / none[0], sync[0] / none[0]);
            }
            world.barrier();
            if (world.rank() == 0) {
                Locations.deleteIfExists(file);
            }
        }
    }

    /**
     * @return the slowest rank's seconds for the whole loop, and for the checkpoint calls within it
     */
    private static double[] loop(final Communicator world, final DistributedArray<double[]> array, final double[] u,
                                 final int intervals, final int sweeps, final Checkpoint checkpoint,
                                 final boolean async) {
        world.barrier();
        final long t0 = System.nanoTime();
        long blocked = 0;
        long waited = 0;
        CompletableFuture<CheckpointHeader> saving = null;
        for (int i = 0; i < intervals; i++) {
            for (int s = 0; s < sweeps; s++) {
                sweep(world, u);
            }
            if (checkpoint != null) {
                final long c0 = System.nanoTime();
                if (async) {
                    if (saving != null) {
                        saving.join();
                    }
                    final long c1 = System.nanoTime();
                    waited += c1 - c0;
                    saving = checkpoint.writeAsync("field", array, u);
                } else {
                    checkpoint.write("field", array, u);
                }
                blocked += System.nanoTime() - c0;
            }
        }
        long last = 0;
        if (saving != null) {
            final long c0 = System.nanoTime();
            saving.join();
            last = System.nanoTime() - c0;
        }
        final double seconds = (System.nanoTime() - t0) / 1e9;
        return new double[] {world.allreduce(seconds, Op.MAX), world.allreduce(blocked / 1e9, Op.MAX),
            world.allreduce(waited / 1e9, Op.MAX), world.allreduce(last / 1e9, Op.MAX)};
    }

    /** One smoothing sweep over this rank's part, then its first value passed to the next rank of the ring. */
    private static void sweep(final Communicator world, final double[] u) {
        for (int i = 1; i < u.length - 1; i++) {
            u[i] = (u[i - 1] + u[i] + u[i + 1]) * (1 / 3.0);
        }
        final double[] out = {u.length > 0 ? u[0] : 0};
        final double[] in = new double[1];
        final int next = (world.rank() + 1) % world.size();
        final int previous = (world.rank() + world.size() - 1) % world.size();
        world.sendrecv(out, 1, Datatype.DOUBLE, next, 7, in, 1, Datatype.DOUBLE, previous, 7);
        if (u.length > 0) {
            u[0] = (u[0] + in[0]) * 0.5;
        }
    }
}
