package org.pario.examples;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.pario.comm.Communicator;
import org.pario.comm.LocalCluster;
import org.pario.comm.Request;
import org.pario.comm.Status;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.io.array.Checkpoint;
import org.pario.io.array.CheckpointHeader;
import org.pario.io.array.Dist;
import org.pario.io.array.DistributedArray;
import org.pario.io.array.Element;

/**
 * A 2-D heat-diffusion solver: Jacobi iterations on an {@code rows x cols} grid distributed BLOCK,BLOCK over the
 * ranks (grid chosen like {@code MPI_Dims_create}), halos exchanged with the four neighbours (rows as contiguous
 * runs, columns as a {@code vector} datatype), the top edge held at 1 and the other edges at 0. Every
 * {@code every} steps, and at the end, it checkpoints the field into {@code DIR/step-N.ckpt} asynchronously (the
 * solver goes on while the checkpoint is written); it can restart from any checkpoint on another number of ranks.
 * Every point's update is the same expression in the same order whatever the decomposition, so a restarted run
 * ends bitwise identical to an uninterrupted one.
 *
 * <p>Run: {@code HeatDiffusion RANKS ROWS COLS STEPS EVERY DIR [RESTART_CHECKPOINT]}.
 */
public final class HeatDiffusion {
    private HeatDiffusion() {
    }

    /** The field's distribution over the ranks of a communicator: BLOCK,BLOCK on a balanced grid. */
    public static DistributedArray<double[]> field(final Communicator comm, final long rows, final long cols) {
        return DistributedArray.of(comm, Element.DOUBLE, new long[] {rows, cols}, Dist.block(), Dist.block());
    }

    /**
     * Runs the solver on this rank until {@code steps} steps are done in total.
     *
     * @param comm    the ranks
     * @param rows    global rows
     * @param cols    global columns
     * @param steps   the step to stop at
     * @param every   checkpoint every this many steps (and at the end)
     * @param dir     where checkpoints go
     * @param restart a checkpoint to continue from, or null to start at step 0
     * @return the path of the last checkpoint written
     */
    public static Path run(final Communicator comm, final long rows, final long cols, final int steps,
                           final int every, final Path dir, final Path restart) {
        final DistributedArray<double[]> field = field(comm, rows, cols);
        // the first checkpoint's code compiled while the solver runs, instead of inside the first checkpoint
        Checkpoint.at(dir.resolve("step-1.ckpt")).prepare(field);
        final DistributedArray<double[]>.Local mine = field.local();
        final long[] shape = mine.shape();
        final int lr = (int) shape[0];
        final int lc = (int) shape[1];
        if (lr == 0 || lc == 0) {
            throw new IllegalArgumentException("a " + rows + " x " + cols + " grid is too small for " + comm.size()
                + " ranks on the grid " + java.util.Arrays.toString(field.grid()));
        }
        final int width = lc + 2;
        double[] u = new double[(lr + 2) * width];
        double[] next = new double[(lr + 2) * width];
        final long[] origin = mine.toGlobal(new long[] {0, 0});
        int step = 0;
        if (restart != null) {
            final Checkpoint from = Checkpoint.at(restart);
            final double[] interior = from.restore("temperature", field);
            step = Math.toIntExact(from.header(comm).attributes().getLong("step"));
            for (int i = 0; i < lr; i++) {
                System.arraycopy(interior, i * lc, u, (i + 1) * width + 1, lc);
            }
        } else {
            for (int i = 0; i < lr; i++) {
                for (int j = 0; j < lc; j++) {
                    u[(i + 1) * width + j + 1] = origin[0] + i == 0 ? 1.0 : 0.0;
                }
            }
        }
        final long[] grid = field.grid();
        final long[] at = mine.coords();
        final int up = at[0] > 0 ? comm.rank() - (int) grid[1] : -1;
        final int down = at[0] < grid[0] - 1 ? comm.rank() + (int) grid[1] : -1;
        final int left = at[1] > 0 ? comm.rank() - 1 : -1;
        final int right = at[1] < grid[1] - 1 ? comm.rank() + 1 : -1;
        final Datatype column = Datatype.vector(lr, 1, width, Datatype.DOUBLE);
        Path last = null;
        // the checkpoint's copy of the interior, reused: an asynchronous write stages what it needs at the call
        final double[] interior = field.allocate();
        CompletableFuture<CheckpointHeader> saving = null;
        while (step < steps) {
            exchange(comm, u, lr, lc, column, up, down, left, right);
            for (int i = 1; i <= lr; i++) {
                final long gi = origin[0] + i - 1;
                for (int j = 1; j <= lc; j++) {
                    final long gj = origin[1] + j - 1;
                    final int k = i * width + j;
                    if (gi == 0 || gj == 0 || gi == rows - 1 || gj == cols - 1) {
                        next[k] = u[k];
                    } else {
                        next[k] = (u[k - width] + u[k + width] + u[k - 1] + u[k + 1]) * 0.25;
                    }
                }
            }
            final double[] t = u;
            u = next;
            next = t;
            step++;
            if (step % every == 0 || step == steps) {
                if (saving != null) {
                    saving.join(); // the previous checkpoint's outcome: an error surfaces here, on every rank
                }
                last = dir.resolve("step-" + step + ".ckpt");
                saving = checkpoint(field, u, interior, lr, lc, step, last);
            }
        }
        if (saving != null) {
            saving.join();
        }
        return last;
    }

    /**
     * Starts writing the interior of {@code u} in the background; the solver goes on at once, the checkpoint holding
     * the field as it was at the call.
     */
    private static CompletableFuture<CheckpointHeader> checkpoint(final DistributedArray<double[]> field,
                                                                  final double[] u, final double[] interior,
                                                                  final int lr, final int lc, final int step,
                                                                  final Path file) {
        for (int i = 0; i < lr; i++) {
            System.arraycopy(u, (i + 1) * (lc + 2) + 1, interior, i * lc, lc);
        }
        return Checkpoint.at(file).writer().attribute("step", step).array("temperature", field, interior)
            .writeAsync();
    }

    /** Sends the four edges of the interior to the neighbours, then receives their edges into the halo. */
    private static void exchange(final Communicator comm, final double[] u, final int lr, final int lc,
                                 final Datatype column, final int up, final int down, final int left,
                                 final int right) {
        final int width = lc + 2;
        final Memory m = Memory.of(u);
        final List<Request<Status>> receives = new java.util.ArrayList<>();
        if (up >= 0) {
            receives.add(comm.irecv(m.at(8L * 1), lc, Datatype.DOUBLE, up, 2));
            comm.send(m.at(8L * (width + 1)), lc, Datatype.DOUBLE, up, 1);
        }
        if (down >= 0) {
            receives.add(comm.irecv(m.at(8L * ((lr + 1) * width + 1)), lc, Datatype.DOUBLE, down, 1));
            comm.send(m.at(8L * (lr * width + 1)), lc, Datatype.DOUBLE, down, 2);
        }
        if (left >= 0) {
            receives.add(comm.irecv(m.at(8L * width), 1, column, left, 4));
            comm.send(m.at(8L * (width + 1)), 1, column, left, 3);
        }
        if (right >= 0) {
            receives.add(comm.irecv(m.at(8L * (width + lc + 1)), 1, column, right, 3));
            comm.send(m.at(8L * (width + lc)), 1, column, right, 4);
        }
        for (final Request<Status> r : receives) {
            r.join();
        }
    }

    /**
     * Runs as threads: {@code HeatDiffusion RANKS ROWS COLS STEPS EVERY DIR [RESTART_CHECKPOINT]}.
     *
     * @param args the arguments
     */
    public static void main(final String[] args) {
        final int ranks = Integer.parseInt(args[0]);
        final long rows = Long.parseLong(args[1]);
        final long cols = Long.parseLong(args[2]);
        final int steps = Integer.parseInt(args[3]);
        final int every = Integer.parseInt(args[4]);
        final Path dir = Path.of(args[5]);
        final Path restart = args.length > 6 ? Path.of(args[6]) : null;
        final List<Path> last = LocalCluster.call(ranks, comm -> run(comm, rows, cols, steps, every, dir, restart));
        System.out.println("last checkpoint: " + last.get(0));
    }
}
