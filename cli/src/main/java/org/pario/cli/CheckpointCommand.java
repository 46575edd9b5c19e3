package org.pario.cli;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.LongConsumer;

import org.pario.ParioException;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.Cursor;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;
import org.pario.io.Hints;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;
import org.pario.io.array.Checkpoint;
import org.pario.io.array.CheckpointHeader;
import org.pario.io.array.CheckpointWriter;
import org.pario.io.array.Dist;
import org.pario.io.array.DistributedArray;
import org.pario.io.array.Element;
import org.pario.io.array.StoredArray;
import org.pario.io.storage.Storages;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code pario checkpoint write|restore|verify|info}: checkpoints of distributed arrays from the shell; the directory
 * commands are in {@link CheckpointCatalogCommands}, the data commands in {@link CheckpointDataCommands}.
 */
@Command(name = "checkpoint", mixinStandardHelpOptions = true,
    description = "Writes, restores, verifies and describes checkpoints of distributed arrays; lists, finds and prunes "
        + "the checkpoints of a directory; shows and exports their data (docs/cli.md).",
    subcommands = {CheckpointCommand.Write.class, CheckpointCommand.Restore.class, CheckpointCommand.Verify.class,
        CheckpointCommand.Info.class, CheckpointCatalogCommands.Ls.class, CheckpointCatalogCommands.Latest.class,
        CheckpointCatalogCommands.Prune.class, CheckpointDataCommands.Show.class, CheckpointDataCommands.Export.class})
final class CheckpointCommand implements Runnable {
    @Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "a subcommand is required: write, restore, verify, info, ls, latest, prune, show, export");
    }

    /** The synthetic array's layout, as options. */
    static final class Layout {
        @Option(names = "--shape", defaultValue = "64x64x64", paramLabel = "AxBx...",
            description = "Global shape (default: ${DEFAULT-VALUE}).")
        String shape;

        @Option(names = "--dist", paramLabel = "D,D,...",
            description = "Distribution per dimension: block, block(k), cyclic, cyclic(k), none "
                + "(default: block,block,cyclic for three dimensions, block in every dimension otherwise).")
        String dist;

        @Option(names = "--grid", paramLabel = "AxBx...", description = "Process grid (default: balanced).")
        String grid;

        @Option(names = "--order", defaultValue = "c", paramLabel = "c|fortran",
            description = "Storage order (default: ${DEFAULT-VALUE}).")
        String order;

        @Option(names = "--element", defaultValue = "double", paramLabel = "TYPE",
            description = "Element type, a type expression (default: ${DEFAULT-VALUE}; synthetic arrays are double).")
        String element;

        private Dist[] dists(final int dims) {
            if (dist == null) {
                final Dist[] d = new Dist[dims];
                java.util.Arrays.fill(d, Dist.block());
                if (dims == 3) {
                    d[2] = Dist.cyclic();
                }
                return d;
            }
            final String[] d = dist.split(",(?![^(]*\\))");
            if (d.length != dims) {
                throw ParioException.argument("--dist needs " + dims + " distributions, got '" + dist + "'");
            }
            final Dist[] dists = new Dist[d.length];
            for (int i = 0; i < d.length; i++) {
                dists[i] = Dist.parse(d[i]);
            }
            return dists;
        }

        private Order order() {
            return switch (order.toLowerCase(Locale.ROOT)) {
                case "c" -> Order.C;
                case "fortran", "f" -> Order.FORTRAN;
                default -> throw ParioException.argument("--order must be c or fortran, got '" + order + "'");
            };
        }

        /**
         * Checks every option against {@code ranks} before any rank starts: the layout, and that the ranks' parts fit
         * Java arrays and the array fits this JVM's heap, which the ranks (threads) share; returns the layout as text.
         */
        String validate(final int ranks) {
            RankCounts.threads("-n", ranks);
            final long[] s = dims(shape, "--shape");
            final Dist[] d = dists(s.length);
            order();
            final Datatype el = Datatype.parse(element);
            final long[] g = grid == null ? null : dims(grid, "--grid");
            final long[] chosen;
            final long most;
            try {
                chosen = DistributedArray.gridFor(ranks, s, d, g);
                most = DistributedArray.largestLocalCount(ranks, s, d, g);
            } catch (ParioException e) {
                throw ParioException.argument("--shape " + shape + " with " + Arrays.toString(d) + " on " + ranks
                    + " ranks: " + e.getMessage());
            }
            final long whole;
            try {
                whole = Math.multiplyExact(product(s), el.extent());
            } catch (ArithmeticException e) {
                throw ParioException.argument("--shape " + shape + " of " + el + " is more than 2^63 bytes");
            }
            if (most > (Integer.MAX_VALUE - 8) / el.extent()) {
                throw ParioException.argument("--shape " + shape + " on " + ranks + " ranks gives one rank " + most
                    + " elements of " + el + " (" + (most * el.extent() >> 20) + " MiB), more than one Java array "
                    + "holds (2 GiB): give more ranks (-n) or a smaller shape");
            }
            final long heap = Runtime.getRuntime().maxMemory();
            if (whole > heap / 4 * 3) {
                throw ParioException.argument("--shape " + shape + " of " + el + " is " + (whole >> 20) + " MiB; the "
                    + "ranks of this command are threads of one JVM whose heap holds " + (heap >> 20) + " MiB: give a "
                    + "smaller shape, or more heap (JAVA_OPTS=-Xmx...)");
            }
            return Arrays.toString(s) + " of " + el + ", " + Arrays.toString(d) + " on grid "
                + Arrays.toString(chosen);
        }

        private static long product(final long[] s) {
            long n = 1;
            for (final long x : s) {
                n = Math.multiplyExact(n, x);
            }
            return n;
        }

        /** The array on {@code comm}, its elements in buffers of {@code element}. */
        <T> DistributedArray<T> array(final org.pario.comm.Communicator comm, final Element<T> kind) {
            final long[] s = dims(shape, "--shape");
            final DistributedArray<T> a = DistributedArray.of(comm, kind, s, dists(s.length)).order(order());
            return grid == null ? a : a.grid(dims(grid, "--grid"));
        }

        /** The raw element type of --element, held as bytes. */
        Element<byte[]> rawElement() {
            return Element.of(Datatype.parse(element), byte[].class);
        }

        static long[] dims(final String text, final String what) {
            final long[] d;
            try {
                d = Arrays.stream(text.toLowerCase(Locale.ROOT).split("x")).mapToLong(Long::parseLong).toArray();
            } catch (NumberFormatException e) {
                throw ParioException.argument(what + " must look like 64x64x32, got '" + text + "'");
            }
            for (final long x : d) {
                if (x < (what.equals("--grid") ? 0 : 1)) {
                    throw ParioException.argument(what + " " + text + ": every size must be >= "
                        + (what.equals("--grid") ? "0" : "1"));
                }
            }
            return d;
        }
    }

    /** Element g of the synthetic array (global linear index g) holds g as a double. */
    static double[] synthetic(final DistributedArray<double[]> array) {
        final double[] v = array.allocate();
        final int[] k = {0};
        globalIndices(array.local(), g -> v[k[0]++] = g);
        return v;
    }

    /** @return the number of elements that do not hold their global index */
    static long wrong(final DistributedArray<double[]> array, final double[] v) {
        final long[] bad = {0};
        final int[] k = {0};
        globalIndices(array.local(), g -> bad[0] += v[k[0]++] == g ? 0 : 1);
        return bad[0];
    }

    /**
     * Hands over the global linear index of each local element, in local order, from the part's filetype: the
     * cursor walks its runs, so no index arrays are built per element.
     */
    private static void globalIndices(final DistributedArray<?>.Local part, final LongConsumer each) {
        final long extent = part.array().elementType().extent();
        final Cursor c = part.filetype().cursor(1);
        while (c.next()) {
            final long first = c.offset() / extent;
            for (long i = 0; i < c.length() / extent; i++) {
                each.accept(first + i);
            }
        }
    }

    /**
     * Collective: moves a rank's part between its local buffer and a raw file holding the whole array in global
     * order (elements one extent apart, as the array's order lays them out).
     */
    static void raw(final String location, final DistributedArray<byte[]> array, final byte[] local,
                    final boolean write) {
        final Set<Mode> modes = write ? EnumSet.of(Mode.CREATE, Mode.WRONLY) : EnumSet.of(Mode.RDONLY);
        final DistributedArray<byte[]>.Local part = array.local();
        try (ParallelFile f = ParallelFile.open(array.comm(), location, modes)) {
            final Datatype el = array.elementType();
            final long want = array.globalCount() * el.extent();
            if (!write && f.size() != want) {
                throw ParioException.argument(location + " holds " + f.size() + " bytes; a " + String.join("x",
                    Arrays.stream(array.shape()).mapToObj(Long::toString).toList()) + " array of " + el
                    + " takes " + want);
            }
            f.setView(0, el, part.filetype(), DataRepresentation.NATIVE);
            if (write) {
                f.writeAll(local, part.count(), el);
                if (Storages.isLocal(location)) {
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
            final String layoutText = layout.validate(ranks);
            final Hints hints = hint.hints();
            // checked before any rank starts: the checkpoint itself is written beside FILE and renamed over it
            Output.prepare("FILE", file, input);
            if (input == null && !Datatype.parse(layout.element).equals(Datatype.DOUBLE)) {
                throw ParioException.argument("synthetic arrays are double; give --input RAW for " + layout.element);
            }
            final long t0 = System.nanoTime();
            final List<Long> bytes = LocalCluster.call(ranks, comm -> {
                try (ProgressBars bar = ProgressBars.on(comm.rank() == 0, "write")) {
                    final Checkpoint target = Checkpoint.at(file).hints(hints).listener(bar);
                    final CheckpointWriter w = target.writer().attribute("written_by", "pario checkpoint write");
                    if (input == null) {
                        final DistributedArray<double[]> a = layout.array(comm, Element.DOUBLE);
                        w.array("data", a, synthetic(a));
                    } else {
                        final DistributedArray<byte[]> a = layout.array(comm, layout.rawElement());
                        final byte[] local = a.allocate();
                        raw(input, a, local, false);
                        w.array("data", a, local);
                    }
                    return w.write().dataBytes();
                }
            });
            final double s = (System.nanoTime() - t0) / 1e9;
            spec.commandLine().getOut().printf(Locale.ROOT, "wrote %s: %s in %.2f s (%.1f MiB/s)%n", file, layoutText,
                s, bytes.get(0) / 1048576.0 / s);
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
        public Integer call() throws Exception {
            final StoredArray info = Checkpoint.at(file).header().array("data");
            if (layout.shape.equals("64x64x64")) {
                layout.shape = String.join("x", Arrays.stream(info.shape()).mapToObj(Long::toString).toList());
            }
            if (layout.element.equals("double")) {
                layout.element = info.element().toString();
            }
            final String layoutText = layout.validate(ranks);
            final Hints hints = hint.hints();
            if (output == null && !info.element().equals(Datatype.DOUBLE)) {
                throw ParioException.argument("only synthetic double checkpoints can be checked value by value; give "
                    + "--output RAW to restore an array of " + info.element());
            }
            final Output out = output == null ? null : Output.prepare("--output", output, file);
            final long t0 = System.nanoTime();
            final List<Long> wrong = out == null ? restore(layout, hints, null)
                : out.write(hidden -> restore(layout, hints, hidden));
            final double s = (System.nanoTime() - t0) / 1e9;
            final long bad = wrong.stream().mapToLong(Long::longValue).sum();
            if (bad > 0) {
                throw new ParioException(org.pario.ErrorCategory.IO, bad + " restored values differ from their "
                    + "global index (is this a synthetic checkpoint?)", null);
            }
            spec.commandLine().getOut().printf(Locale.ROOT, "restored %s as %s in %.2f s (%.1f MiB/s), %s%n", file,
                layoutText, s, info.bytes() / 1048576.0 / s,
                output == null ? "every value checked" : "written to " + output);
            return 0;
        }

        /**
         * Restores on threads: into the raw file {@code raw}, or checking the synthetic values when it is null.
         *
         * @return per rank, the values that differ from their global index (0 when written to a raw file)
         */
        private List<Long> restore(final Layout layout, final Hints hints, final String raw) {
            return LocalCluster.call(ranks, comm -> {
                try (ProgressBars bar = ProgressBars.on(comm.rank() == 0, "read")) {
                    final Checkpoint source = Checkpoint.at(file).hints(hints).listener(bar);
                    if (raw != null) {
                        final DistributedArray<byte[]> a = layout.array(comm, layout.rawElement());
                        raw(raw, a, source.restore("data", a), true);
                        return 0L;
                    }
                    final DistributedArray<double[]> a = layout.array(comm, Element.DOUBLE);
                    return wrong(a, source.restore("data", a));
                }
            });
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
            RankCounts.threads("-n", ranks);
            LocalCluster.run(ranks, comm -> Checkpoint.at(file).verify(comm));
            final CheckpointHeader h = Checkpoint.at(file).header();
            long chunks = 0;
            for (final StoredArray a : h.arrays()) {
                chunks += a.chunks();
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
            spec.commandLine().getOut().print(Checkpoint.at(file).header());
            return 0;
        }
    }
}
