package org.pario.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.pario.ParioException;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;
import org.pario.io.Hints;
import org.pario.io.array.Checkpoint;
import org.pario.io.array.Dist;
import org.pario.io.array.DistributedArray;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code pario checkpoint write|restore|verify|info}: checkpoints of distributed arrays from the shell. */
@Command(name = "checkpoint", mixinStandardHelpOptions = true,
    description = "Writes, restores, verifies and describes checkpoints of distributed arrays (docs/cli.md).",
    subcommands = {CheckpointCommand.Write.class, CheckpointCommand.Restore.class, CheckpointCommand.Verify.class,
        CheckpointCommand.Info.class})
final class CheckpointCommand implements Runnable {
    @Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "a subcommand is required: write, restore, verify, info");
    }

    /** The synthetic array's layout, as options. */
    static final class Layout {
        @Option(names = "--shape", defaultValue = "64x64x64", paramLabel = "AxBx...",
            description = "Global shape (default: ${DEFAULT-VALUE}).")
        String shape;

        @Option(names = "--dist", defaultValue = "block,block,cyclic", paramLabel = "D,D,...",
            description = "Distribution per dimension: block, block(k), cyclic, cyclic(k), none "
                + "(default: ${DEFAULT-VALUE}).")
        String dist;

        @Option(names = "--grid", paramLabel = "AxBx...", description = "Process grid (default: balanced).")
        String grid;

        @Option(names = "--order", defaultValue = "c", paramLabel = "c|fortran",
            description = "Storage order (default: ${DEFAULT-VALUE}).")
        String order;

        @Option(names = "--element", defaultValue = "double", paramLabel = "TYPE",
            description = "Element type, a type expression (default: ${DEFAULT-VALUE}; synthetic arrays are double).")
        String element;

        DistributedArray array(final int ranks) {
            final long[] s = dims(shape, "--shape");
            final String[] d = dist.split(",(?![^(]*\\))");
            if (d.length != s.length) {
                throw ParioException.argument("--dist needs " + s.length + " distributions, got '" + dist + "'");
            }
            final Dist[] dists = new Dist[d.length];
            for (int i = 0; i < d.length; i++) {
                dists[i] = Dist.parse(d[i]);
            }
            final Order o = switch (order.toLowerCase(Locale.ROOT)) {
                case "c" -> Order.C;
                case "fortran", "f" -> Order.FORTRAN;
                default -> throw ParioException.argument("--order must be c or fortran, got '" + order + "'");
            };
            return DistributedArray.of(s, Datatype.parse(element), dists, grid == null ? null : dims(grid, "--grid"),
                ranks, o);
        }

        static long[] dims(final String text, final String what) {
            try {
                return Arrays.stream(text.toLowerCase(Locale.ROOT).split("x")).mapToLong(Long::parseLong).toArray();
            } catch (NumberFormatException e) {
                throw ParioException.argument(what + " must look like 64x64x32, got '" + text + "'");
            }
        }
    }

    /** Element g of the synthetic array (global linear index g) holds g as a double. */
    static double[] synthetic(final DistributedArray.Local part) {
        final double[] v = new double[Math.toIntExact(part.count())];
        final int[] k = {0};
        globalIndices(part, g -> v[k[0]++] = g);
        return v;
    }

    /** @return the number of elements that do not hold their global index */
    static long wrong(final DistributedArray.Local part, final double[] v) {
        final long[] bad = {0};
        final int[] k = {0};
        globalIndices(part, g -> bad[0] += v[k[0]++] == g ? 0 : 1);
        return bad[0];
    }

    /**
     * Hands over the global linear index of each local element, in local order, from the part's filetype: the
     * cursor walks its runs, so no index arrays are built per element.
     */
    private static void globalIndices(final DistributedArray.Local part, final java.util.function.LongConsumer each) {
        final long extent = part.array().element().extent();
        final org.pario.datatypes.Cursor c = part.filetype().cursor(1);
        while (c.next()) {
            final long first = c.offset() / extent;
            for (long i = 0; i < c.length() / extent; i++) {
                each.accept(first + i);
            }
        }
    }

    /** The bytes of a rank's elements, in local order, one element extent apart. */
    static byte[] localBytes(final DistributedArray.Local part) {
        return new byte[Math.toIntExact(part.count() * part.array().element().extent())];
    }

    /**
     * Collective: moves a rank's part between its local buffer and a raw file holding the whole array in global
     * order (elements one extent apart, as the array's order lays them out).
     */
    static void raw(final org.pario.comm.Communicator comm, final String location, final DistributedArray.Local part,
                    final byte[] local, final boolean write) {
        final java.util.Set<org.pario.io.Mode> modes = write
            ? java.util.EnumSet.of(org.pario.io.Mode.CREATE, org.pario.io.Mode.WRONLY)
            : java.util.EnumSet.of(org.pario.io.Mode.RDONLY);
        try (org.pario.io.ParallelFile f = org.pario.io.ParallelFile.open(comm, location, modes)) {
            final Datatype el = part.array().element();
            final long want = part.array().globalCount() * el.extent();
            if (!write && f.size() != want) {
                throw ParioException.argument(location + " holds " + f.size() + " bytes; a " + String.join("x",
                    Arrays.stream(part.array().shape()).mapToObj(Long::toString).toList()) + " array of " + el
                    + " takes " + want);
            }
            f.setView(0, el, part.filetype(), org.pario.datatypes.DataRepresentation.NATIVE);
            if (write) {
                f.writeAll(local, part.count(), el);
                if (org.pario.io.storage.Storages.isLocal(location)) {
                    // the last element's trailing padding is no data: grow the file to the whole array
                    f.preallocate(want);
                }
            } else {
                f.readAll(local, part.count(), el);
            }
        }
    }

    /** {@code pario checkpoint write FILE}. */
    @Command(name = "write", mixinStandardHelpOptions = true,
        description = "N ranks (threads) write an array as 'data': a synthetic double array (element i holds i), or "
            + "the raw array in --input.")
    static final class Write implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE",
            description = "The checkpoint to write (replaced atomically): a path or an hdfs:// URI.")
        private String file;

        @Option(names = {"-n", "--ranks"}, defaultValue = "4", description = "Ranks (default: ${DEFAULT-VALUE}).")
        private int ranks;

        @picocli.CommandLine.Mixin
        private VerboseOption verbose;

        @picocli.CommandLine.ArgGroup(exclusive = false)
        private Layout layout = new Layout();

        @picocli.CommandLine.Mixin
        private HintOption hint;

        @Option(names = "--input", paramLabel = "RAW",
            description = "A raw file holding the whole array in global order (native bytes, elements one extent "
                + "apart): a path or an hdfs:// URI. Without it the array is synthetic.")
        private String input;

        @Override
        public Integer call() {
            final DistributedArray a = layout.array(ranks);
            final Hints hints = hint.hints();
            if (input == null && !a.element().equals(Datatype.DOUBLE)) {
                throw ParioException.argument("synthetic arrays are double; give --input RAW for " + a.element());
            }
            final long t0 = System.nanoTime();
            LocalCluster.run(ranks, comm -> {
                final DistributedArray.Local part = a.local(comm.rank());
                final Object data;
                if (input == null) {
                    data = synthetic(part);
                } else {
                    final byte[] local = localBytes(part);
                    raw(comm, input, part, local, false);
                    data = local;
                }
                try (ProgressBars bar = ProgressBars.on(comm.rank() == 0, "write")) {
                    Checkpoint.write(comm, file, List.of(new Checkpoint.Entry("data", part, data)),
                        Map.of("written_by", "pario checkpoint write"), hints, bar);
                }
            });
            final double s = (System.nanoTime() - t0) / 1e9;
            spec.commandLine().getOut().printf(Locale.ROOT, "wrote %s: %s in %.2f s (%.1f MiB/s)%n", file, a, s,
                a.globalCount() * a.element().extent() / 1048576.0 / s);
            return 0;
        }
    }

    /** {@code pario checkpoint restore FILE}. */
    @Command(name = "restore", mixinStandardHelpOptions = true,
        description = "N ranks (threads) restore array 'data' with any distribution: into the raw file --output, or, "
            + "for a synthetic checkpoint, checking every value.")
    static final class Restore implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE", description = "The checkpoint: a path or an hdfs:// URI.")
        private String file;

        @Option(names = {"-n", "--ranks"}, defaultValue = "4", description = "Ranks (default: ${DEFAULT-VALUE}).")
        private int ranks;

        @picocli.CommandLine.Mixin
        private VerboseOption verbose;

        @picocli.CommandLine.ArgGroup(exclusive = false)
        private Layout layout = new Layout();

        @picocli.CommandLine.Mixin
        private HintOption hint;

        @Option(names = "--output", paramLabel = "RAW",
            description = "Write the restored array to this raw file in global order (replaced if it exists): a path "
                + "or an hdfs:// URI. Without it, the values are checked against the synthetic array.")
        private String output;

        @Override
        public Integer call() {
            final Checkpoint.ArrayInfo info = Checkpoint.info(file).array("data");
            if (layout.shape.equals("64x64x64")) {
                layout.shape = String.join("x", Arrays.stream(info.shape()).mapToObj(Long::toString).toList());
            }
            if (layout.element.equals("double")) {
                layout.element = info.element().toString();
            }
            final DistributedArray a = layout.array(ranks);
            final Hints hints = hint.hints();
            if (output != null) {
                Locations.deleteIfExists(output);
            }
            final long t0 = System.nanoTime();
            final List<Long> wrong = LocalCluster.call(ranks, comm -> {
                final DistributedArray.Local part = a.local(comm.rank());
                final Object local = output != null ? localBytes(part) : new double[Math.toIntExact(part.count())];
                try (ProgressBars bar = ProgressBars.on(comm.rank() == 0, "read")) {
                    Checkpoint.restore(comm, file, "data", part, local, hints, bar);
                }
                if (output != null) {
                    raw(comm, output, part, (byte[]) local, true);
                    return 0L;
                }
                return wrong(part, (double[]) local);
            });
            final double s = (System.nanoTime() - t0) / 1e9;
            final long bad = wrong.stream().mapToLong(Long::longValue).sum();
            if (bad > 0) {
                throw new ParioException(org.pario.ErrorCategory.IO, bad + " restored values differ from their "
                    + "global index (is this a synthetic checkpoint?)", null);
            }
            spec.commandLine().getOut().printf(Locale.ROOT, "restored %s as %s in %.2f s (%.1f MiB/s), %s%n", file, a,
                s, a.globalCount() * a.element().extent() / 1048576.0 / s,
                output == null ? "every value checked" : "written to " + output);
            return 0;
        }
    }

    /** {@code pario checkpoint verify FILE}. */
    @Command(name = "verify", mixinStandardHelpOptions = true,
        description = "Checks every checksum of every array; names the array and byte range of any damage.")
    static final class Verify implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE", description = "The checkpoint: a path or an hdfs:// URI.")
        private String file;

        @Option(names = {"-n", "--ranks"}, defaultValue = "2", description = "Ranks reading (default: ${DEFAULT-VALUE}).")
        private int ranks;

        @picocli.CommandLine.Mixin
        private VerboseOption verbose;

        @Override
        public Integer call() {
            LocalCluster.run(ranks, comm -> Checkpoint.verify(comm, file));
            final Checkpoint.Header h = Checkpoint.info(file);
            long chunks = 0;
            for (final Checkpoint.ArrayInfo a : h.arrays()) {
                chunks += a.crc32c().length;
            }
            spec.commandLine().getOut().printf(Locale.ROOT, "%s: %d arrays, %d checksums, all match%n", file,
                h.arrays().size(), chunks);
            return 0;
        }
    }

    /** {@code pario checkpoint info FILE}. */
    @Command(name = "info", mixinStandardHelpOptions = true, description = "Prints a checkpoint's header as a table.")
    static final class Info implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE", description = "The checkpoint: a path or an hdfs:// URI.")
        private String file;

        @picocli.CommandLine.Mixin
        private VerboseOption verbose;

        @Override
        public Integer call() {
            print(Checkpoint.info(file), spec.commandLine().getOut());
            return 0;
        }
    }

    static void print(final Checkpoint.Header h, final PrintWriter out) {
        out.printf(Locale.ROOT, "format version %d, checksums CRC-32C per %d bytes%n", h.version(), h.chunkBytes());
        h.metadata().forEach((k, v) -> out.printf(Locale.ROOT, "metadata %s = %s%n", k, v));
        out.printf(Locale.ROOT, "%-12s %-16s %-28s %-7s %12s %14s %9s%n", "array", "shape", "element", "order",
            "offset", "bytes", "checksums");
        for (final Checkpoint.ArrayInfo a : h.arrays()) {
            final List<String> dims = new ArrayList<>();
            for (final long d : a.shape()) {
                dims.add(Long.toString(d));
            }
            out.printf(Locale.ROOT, "%-12s %-16s %-28s %-7s %12d %14d %9d%n", a.name(), String.join("x", dims),
                a.element(), a.order() == Order.C ? "c" : "fortran", a.offset(), a.bytes(), a.crc32c().length);
        }
    }
}
