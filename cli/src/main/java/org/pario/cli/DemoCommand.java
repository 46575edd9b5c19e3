package org.pario.cli;

import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.comm.Pario;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;
import org.pario.io.array.Checkpoint;
import org.pario.io.array.Dist;
import org.pario.io.array.DistributedArray;
import org.pario.io.array.Element;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code pario demo}: the main job end to end on this machine. 4 JVM ranks write a checkpoint of a 3-D array
 * distributed BLOCK,BLOCK,CYCLIC on a 2x2x1 grid; 6 JVM ranks restore it as CYCLIC(2),BLOCK,NONE and check every
 * value. Prints throughput, the hints in effect and which rank owned what.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Checkpoints a 3-D array (EDGE x EDGE x 2*EDGE doubles, 256 MiB by default) from 4 JVM ranks "
        + "(BLOCK,BLOCK,CYCLIC on 2x2x1) into one file, restores it on 6 JVM ranks as CYCLIC(2),BLOCK,NONE, and "
        + "checks every value.")
final class DemoCommand implements Callable<Integer> {
    @Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--edge", defaultValue = "256", paramLabel = "EDGE",
        description = "The array is EDGE x EDGE x 2*EDGE doubles (default: ${DEFAULT-VALUE}: 256 MiB).")
    private long edge;

    @Option(names = "--file", defaultValue = "pario-demo.ckpt", paramLabel = "PATH",
        description = "The checkpoint file, a path or an hdfs:// URI (default: ${DEFAULT-VALUE}, deleted afterwards "
            + "unless --keep).")
    private String file;

    @Option(names = "--keep", description = "Keep the checkpoint file.")
    private boolean keep;

    @picocli.CommandLine.Mixin
    private VerboseOption verbose;

    /** Set in the launched JVMs: {@code write} or {@code restore}. */
    @Option(names = "--worker", hidden = true)
    private String worker;

    /** The array as the 4 writing ranks hold it. */
    static DistributedArray<double[]> written(final Communicator world, final long edge) {
        return DistributedArray.of(world, Element.DOUBLE, new long[] {edge, edge, 2 * edge}, Dist.block(),
            Dist.block(), Dist.cyclic()).grid(2, 2, 1);
    }

    /** The array as the 6 restoring ranks hold it. */
    static DistributedArray<double[]> restored(final Communicator world, final long edge) {
        return DistributedArray.of(world, Element.DOUBLE, new long[] {edge, edge, 2 * edge}, Dist.cyclic(2),
            Dist.block(), Dist.none());
    }

    @Override
    public Integer call() throws Exception {
        checkEdge(edge);
        if (worker != null) {
            work();
            return 0;
        }
        // a previous demo's checkpoint may be replaced; anything else at --file is the user's and stays
        final String path = Locations.scratch("--file", file, existing -> isCheckpoint(existing));
        final var out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "Pario demo: a %d x %d x %d array of doubles (%d MiB), element i holding i%n", edge,
            edge, 2 * edge, edge * edge * 2 * edge * 8 >> 20);
        try {
            for (final String phase : new String[] {"write", "restore"}) {
                final int ranks = phase.equals("write") ? 4 : 6;
                final List<String> command = Jvm.command("-Xmx2g");
                command.addAll(List.of(Main.class.getName(), "demo", "--worker", phase, "--edge",
                    Long.toString(edge), "--file", path));
                final int status = LaunchCommand.launch(ranks, "127.0.0.1", 60, command, out,
                    spec.commandLine().getErr(), true);
                if (status != 0) {
                    throw new ParioException(ErrorCategory.IO, "the " + phase + " job failed (status " + status + ")",
                        null);
                }
            }
        } finally {
            if (!keep) {
                Locations.deleteIfExists(path);
            }
        }
        return 0;
    }

    /** What a demo rank may hold: its JVM runs with -Xmx2g, and a restore holds its part and the read's buffers. */
    static final long PART_BYTES = 1L << 30;

    /**
     * Refuses an edge whose parts do not fit the demo's ranks, before any rank starts.
     *
     * @param edge the array is edge x edge x 2*edge doubles
     */
    static void checkEdge(final long edge) {
        if (edge < 2) {
            throw ParioException.argument("--edge must be >= 2, got " + edge);
        }
        if (!fits(edge)) {
            long most = 2;
            while (fits(most + 1)) {
                most++;
            }
            throw ParioException.argument("--edge " + edge + " makes a " + edge + " x " + edge + " x " + 2 * edge
                + " array of doubles whose parts do not fit the demo's ranks (at most " + (PART_BYTES >> 20)
                + " MiB each, of 4 writing and 6 restoring ranks): --edge at most " + most);
        }
    }

    private static boolean fits(final long edge) {
        try {
            final long[] shape = {edge, edge, Math.multiplyExact(2, edge)};
            final long written = DistributedArray.largestLocalCount(4, shape, new Dist[] {Dist.block(), Dist.block(),
                Dist.cyclic()}, new long[] {2, 2, 1});
            final long restored = DistributedArray.largestLocalCount(6, shape, new Dist[] {Dist.cyclic(2),
                Dist.block(), Dist.none()}, null);
            return Math.max(written, restored) <= PART_BYTES / 8;
        } catch (ParioException | ArithmeticException e) {
            return false;
        }
    }

    private static boolean isCheckpoint(final String location) {
        try {
            Checkpoint.at(location).header();
            return true;
        } catch (ParioException e) {
            return false;
        }
    }

    private void work() throws Exception {
        try (Communicator world = Pario.init()) {
            final boolean write = worker.equals("write");
            final DistributedArray<double[]> a = write ? written(world, edge) : restored(world, edge);
            final long bytes = a.globalCount() * 8;
            double[] values = write ? CheckpointCommand.synthetic(a) : a.allocate();
            world.barrier();
            final long t0 = System.nanoTime();
            try (ProgressBars bar = ProgressBars.on(world.rank() == 0, write ? "write" : "read")) {
                final Checkpoint checkpoint = Checkpoint.at(file).listener(bar);
                if (write) {
                    checkpoint.writer().attribute("demo", "pario demo").array("field", a, values).write();
                } else {
                    checkpoint.restore("field", a, values);
                }
            }
            final double slowest = world.allreduce((System.nanoTime() - t0) / 1e9, Op.MAX);
            final long bad = world.allreduce(write ? 0 : CheckpointCommand.wrong(a, values), Op.SUM);
            values = null;
            Map<String, String> hints = null;
            try (ParallelFile f = ParallelFile.open(world, file, EnumSet.of(Mode.RDONLY))) {
                hints = f.hints().asMap();
            }
            if (world.rank() == 0) {
                System.out.println();
                System.out.printf(Locale.ROOT, "%s on %d JVM ranks: %s%n", write ? "Wrote" : "Restored", world.size(),
                    a);
                System.out.printf(Locale.ROOT, "  %d MiB in %.2f s: %.1f MiB/s%s%n", bytes >> 20, slowest,
                    bytes / 1048576.0 / slowest, write ? " (collective write with checksums as the data passes, "
                        + "sync, atomic rename; the JVMs' first)"
                    : " (collective read, checksums verified as the data passes)");
                if (!write) {
                    if (bad != 0) {
                        throw new IllegalStateException(bad + " restored values are wrong");
                    }
                    System.out.println("  every value checked: all " + a.globalCount() + " match");
                }
                System.out.println("  hints in effect: " + hints);
                System.out.println("  owner of each element of the plane k = 0 (rows i, columns j; one mark per "
                    + "cell of the picture):");
                picture(a);
                if (!write) {
                    System.out.println();
                    System.out.print(Checkpoint.at(file).header());
                }
            }
        }
    }

    /** The owner of element (i, j, 0), sampled on a grid of at most 16 x 48 cells. */
    private static void picture(final DistributedArray<?> a) {
        final long[] s = a.shape();
        final int rows = (int) Math.min(16, s[0]);
        final int cols = (int) Math.min(48, s[1]);
        for (int r = 0; r < rows; r++) {
            final StringBuilder line = new StringBuilder("    ");
            for (int c = 0; c < cols; c++) {
                final long[] g = {r * s[0] / rows, c * s[1] / cols, 0};
                int owner = -1;
                for (int rank = 0; rank < a.ranks() && owner < 0; rank++) {
                    if (a.local(rank).toLocal(g) != null) {
                        owner = rank;
                    }
                }
                line.append(Character.forDigit(owner, 36));
            }
            System.out.println(line);
        }
    }
}
