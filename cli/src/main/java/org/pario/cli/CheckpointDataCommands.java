package org.pario.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.pario.ParioException;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;
import org.pario.io.array.Checkpoint;
import org.pario.io.array.Element;
import org.pario.io.array.Region;
import org.pario.io.array.StoredArray;
import org.pario.io.storage.Storage;
import org.pario.io.storage.StorageProvider;
import org.pario.io.storage.Storages;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code pario checkpoint show|export FILE ARRAY}: looking at the data of a checkpoint without a program. */
final class CheckpointDataCommands {
    /** The most rows or columns a picture samples; larger slices are shown every k-th element. */
    static final int MOST_SHOWN = 512;
    /** Bytes an export reads at a time. */
    static final long EXPORT_SLAB = 64L << 20;

    private CheckpointDataCommands() {
    }

    /** {@code pario checkpoint show FILE ARRAY}. */
    @Command(name = "show", mixinStandardHelpOptions = true,
        description = "Shows a 2-D slice of an array: its smallest, largest and mean value, a shaded picture in the "
            + "terminal and, with --png, a heat map with a colour scale and axis labels. Reads only the checksum "
            + "chunks the slice touches, and checks them.")
    static final class Show implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE", description = "The checkpoint: a path or an hdfs:// URI.")
        private String file;

        @Parameters(index = "1", paramLabel = "ARRAY", description = "The array's name.")
        private String array;

        @Option(names = "--slice", paramLabel = "SPEC", description = "The slice, as NumPy indexes it: one item per "
            + "dimension, two of them ranges (start:end[:step], or : for all), the others single indexes; for "
            + "example '100, :, :'. Default: all of the last two dimensions at the middle of the others.")
        private String slice;

        @Option(names = "--png", paramLabel = "OUT", description = "Also write the heat map to this PNG file "
            + "(replaced if it exists).")
        private String png;

        @Option(names = "--width", defaultValue = "64", paramLabel = "N",
            description = "Characters per line of the terminal picture (default: ${DEFAULT-VALUE}; 0 for none).")
        private int width;

        @picocli.CommandLine.Mixin
        private VerboseOption verbose;

        @Override
        public Integer call() throws Exception {
            if (width < 0) {
                throw ParioException.argument("--width must be >= 0, got " + width);
            }
            final Output out = png == null ? null : Output.prepare("--png", png, file);
            final StoredArray a = Checkpoint.at(file).header().array(array);
            final long[] shape = a.shape();
            final Region asked = slice == null ? middle(shape) : Region.parse(slice, shape);
            final int[] shown = shownDimensions(asked, slice);
            final Numbers numbers = Numbers.of(a.element());
            // sample large slices so the picture stays a few hundred cells a side
            final long[] start = asked.start();
            final long[] count = asked.count();
            final long[] stride = asked.stride();
            final long[] every = new long[2];
            for (int i = 0; i < 2; i++) {
                final int d = shown[i];
                every[i] = (count[d] + MOST_SHOWN - 1) / MOST_SHOWN;
                stride[d] *= every[i];
                count[d] = (count[d] + every[i] - 1) / every[i];
            }
            final Region region = Region.of(start, count).stride(stride);
            final ByteBuffer raw = Checkpoint.at(file).read(array, region, Element.of(a.element()));
            final int rows = (int) count[shown[0]];
            final int cols = (int) count[shown[1]];
            final double[] values = new double[rows * cols];
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < cols; c++) {
                    // the region is in the array's order: C puts its last dimension fastest, Fortran its first
                    final long at = a.order() == Order.C ? (long) r * cols + c : (long) c * rows + r;
                    values[r * cols + c] = numbers.get(raw, at * a.element().extent());
                }
            }
            final HeatMap map = new HeatMap(values, rows, cols);
            final PrintWriter o = spec.commandLine().getOut();
            final String sampled = every[0] > 1 || every[1] > 1 ? String.format(Locale.ROOT, " (every %d x %d-th "
                + "element shown)", every[0], every[1]) : "";
            o.printf(Locale.ROOT, "%s %s: %d x %d values%s%n", array, asked, rows, cols, sampled);
            o.printf(Locale.ROOT, "min %s  max %s  mean %s%s%n", HeatMap.number(map.min()), HeatMap.number(map.max()),
                HeatMap.number(map.mean()), map.notFinite() > 0 ? "  (" + map.notFinite() + " NaN or infinite, left "
                + "out)" : "");
            if (width > 0) {
                o.print(map.terminal(width));
                o.printf("shading from min to max: '%s'%n", " .:-=+*#%@");
            }
            if (out != null) {
                final long[] last = new long[2];
                for (int i = 0; i < 2; i++) {
                    last[i] = start[shown[i]] + (count[shown[i]] - 1) * stride[shown[i]];
                }
                final java.awt.image.BufferedImage img = map.image(array + " " + asked, new HeatMap.Axis("dim "
                    + shown[0], Long.toString(start[shown[0]]), Long.toString(last[0])), new HeatMap.Axis("dim "
                    + shown[1], Long.toString(start[shown[1]]), Long.toString(last[1])));
                out.write(hidden -> {
                    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                    if (!javax.imageio.ImageIO.write(img, "png", bytes)) {
                        throw new IllegalStateException("this JVM has no PNG writer");
                    }
                    writeFile(hidden, ByteBuffer.wrap(bytes.toByteArray()));
                    return 0;
                });
                o.printf("wrote %s%n", png);
            }
            return 0;
        }

        /** The last two dimensions whole, the others at their middle. */
        private static Region middle(final long[] shape) {
            if (shape.length < 2) {
                throw ParioException.argument("show draws two dimensions; this array has one (export it instead)");
            }
            final long[] start = new long[shape.length];
            final long[] count = new long[shape.length];
            for (int d = 0; d < shape.length; d++) {
                final boolean whole = d >= shape.length - 2;
                start[d] = whole ? 0 : shape[d] / 2;
                count[d] = whole ? shape[d] : 1;
            }
            return Region.of(start, count);
        }

        /** The two dimensions the slice spans; every other one must be a single index. */
        private static int[] shownDimensions(final Region r, final String spec) {
            final long[] count = r.count();
            final int[] shown = new int[2];
            int n = 0;
            for (int d = 0; d < count.length; d++) {
                if (count[d] == 0) {
                    throw ParioException.argument("--slice " + spec + " is empty in dimension " + d);
                }
                if (count[d] > 1) {
                    if (n == 2) {
                        throw ParioException.argument("--slice " + spec + " spans more than two dimensions; give a "
                            + "single index in all but two");
                    }
                    shown[n++] = d;
                }
            }
            if (n < 2) {
                throw ParioException.argument("--slice " + spec + " spans " + n + " dimension" + (n == 1 ? "" : "s")
                    + "; a picture needs two with more than one element");
            }
            return shown;
        }
    }

    /** {@code pario checkpoint export FILE ARRAY OUT}. */
    @Command(name = "export", mixinStandardHelpOptions = true,
        description = "Writes an array, or a region of it, as a NumPy .npy file (numpy.load opens it), reading and "
            + "checking only the checksum chunks it touches, a slab at a time.")
    static final class Export implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE", description = "The checkpoint: a path or an hdfs:// URI.")
        private String file;

        @Parameters(index = "1", paramLabel = "ARRAY", description = "The array's name.")
        private String array;

        @Parameters(index = "2", paramLabel = "OUT", description = "The file to write (replaced if it exists).")
        private String output;

        @Option(names = "--region", paramLabel = "SPEC", description = "A region, as NumPy indexes it: "
            + "start:end[:step] or a single index per dimension, for example '0:64, :, 5'. Default: the whole array.")
        private String region;

        @Option(names = "--format", defaultValue = "npy", paramLabel = "npy",
            description = "The output format (default and only: ${DEFAULT-VALUE}).")
        private String format;

        @picocli.CommandLine.Mixin
        private VerboseOption verbose;

        @Override
        public Integer call() throws Exception {
            if (!format.equalsIgnoreCase("npy")) {
                throw ParioException.argument("--format must be npy, got '" + format + "'");
            }
            final Output out = Output.prepare("OUT", output, file);
            final StoredArray a = Checkpoint.at(file).header().array(array);
            final Region r = region == null ? Region.all(a.shape()) : Region.parse(region, a.shape());
            final byte[] header = Npy.header(a.element(), r.count(), a.order());
            final long bytes = out.write(hidden -> export(hidden, a, r, header));
            spec.commandLine().getOut().printf(Locale.ROOT, "wrote %s: %s %s of %s, %s shape %s%n", output, array, r,
                a.element(), CheckpointCatalogCommands.size(bytes), Arrays.toString(r.count()));
            return 0;
        }

        /** Writes the header, then the region a slab of its slowest dimension at a time. */
        private long export(final String hidden, final StoredArray a, final Region r, final byte[] header)
            throws Exception {
            final long[] count = r.count();
            final int slowest = a.order() == Order.C ? 0 : count.length - 1;
            long perIndex = a.element().extent();
            for (int d = 0; d < count.length; d++) {
                perIndex = d == slowest ? perIndex : Math.multiplyExact(perIndex, count[d]);
            }
            final long step = Math.max(1, EXPORT_SLAB / Math.max(1, perIndex));
            try (Storage st = Storages.open(hidden, new StorageProvider.Request(false, true, true, true))) {
                long at = 0;
                st.write(at, ByteBuffer.wrap(header));
                at += header.length;
                if (r.isEmpty()) {
                    return at;
                }
                final long[] start = r.start();
                final long[] stride = r.stride();
                for (long i = 0; i < count[slowest]; i += step) {
                    final long[] s = start.clone();
                    final long[] c = count.clone();
                    s[slowest] = start[slowest] + i * stride[slowest];
                    c[slowest] = Math.min(step, count[slowest] - i);
                    final ByteBuffer slab = Checkpoint.at(file).read(array, Region.of(s, c).stride(stride),
                        Element.of(a.element()));
                    slab.rewind();
                    final long n = slab.remaining();
                    st.write(at, slab);
                    at += n;
                }
                st.sync();
                return at;
            }
        }
    }

    static void writeFile(final String location, final ByteBuffer content) throws Exception {
        try (Storage st = Storages.open(location, new StorageProvider.Request(false, true, true, true))) {
            st.write(0, content);
            st.sync();
        }
    }

    /** Reads one numeric element's value as a double, whatever its basic type. */
    interface Numbers {
        double get(ByteBuffer b, long at);

        static Numbers of(final Datatype element) {
            final java.util.List<org.pario.datatypes.TypemapEntry> entries = new java.util.ArrayList<>();
            element.typemap().forEach(entries::add);
            if (entries.size() != 1) {
                throw ParioException.argument("show draws arrays of one number per element; elements of " + element
                    + " hold " + entries.size() + " (export the array instead)");
            }
            final long off = entries.get(0).displacement();
            final String code = Npy.basic(entries.get(0).type());
            final String kind = code.substring(1);
            final ByteOrder order = ByteOrder.nativeOrder();
            return switch (kind) {
                case "f8" -> (b, at) -> b.order(order).getDouble((int) (at + off));
                case "f4" -> (b, at) -> b.order(order).getFloat((int) (at + off));
                case "i8" -> (b, at) -> b.order(order).getLong((int) (at + off));
                case "u8" -> (b, at) -> {
                    final long v = b.order(order).getLong((int) (at + off));
                    return v >= 0 ? v : (v >>> 1) * 2.0 + (v & 1);
                };
                case "i4" -> (b, at) -> b.order(order).getInt((int) (at + off));
                case "u4" -> (b, at) -> b.order(order).getInt((int) (at + off)) & 0xffffffffL;
                case "i2" -> (b, at) -> b.order(order).getShort((int) (at + off));
                case "u2" -> (b, at) -> b.order(order).getShort((int) (at + off)) & 0xffff;
                case "i1" -> (b, at) -> b.get((int) (at + off));
                case "u1", "b1" -> (b, at) -> b.get((int) (at + off)) & 0xff;
                default -> throw ParioException.argument("show draws numbers; elements of " + element + " are not "
                    + "(export the array instead)");
            };
        }
    }
}
