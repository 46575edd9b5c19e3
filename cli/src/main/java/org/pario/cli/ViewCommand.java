package org.pario.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.BasicKind;
import org.pario.datatypes.Cursor;
import org.pario.datatypes.Datatype;
import org.pario.io.Hints;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code pario view map|write|read SPEC ...}: what a set of file views does, without writing a program. */
@Command(name = "view", mixinStandardHelpOptions = true,
    description = "Shows and exercises the file views of a view spec (a JSON file, see docs/cli.md).",
    subcommands = {ViewCommand.MapCmd.class, ViewCommand.WriteCmd.class, ViewCommand.ReadCmd.class})
final class ViewCommand implements Runnable {
    @Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "a subcommand is required: map, write, read");
    }

    /** The most byte ranges {@link #ranges} lists for one rank: memory for them stays bounded. */
    static final int MAX_RANGES = 1_000_000;

    /** The file byte ranges rank r's view reaches for its count, merged, in order. */
    static List<long[]> ranges(final ViewSpec s, final int r) {
        final List<long[]> out = new ArrayList<>();
        final long esize = s.etype().size();
        final long bytes = Math.multiplyExact(s.counts()[r], esize);
        if (bytes == 0) {
            return out;
        }
        final long fsize = s.filetypes()[r].size();
        if (fsize == 0) {
            throw ParioException.argument("view spec: rank " + r + "'s filetype holds no data");
        }
        final long start = (s.offsets() == null ? 0 : s.offsets()[r]) * esize;
        final Cursor c = s.filetypes()[r].cursor((start + bytes + fsize - 1) / fsize).seek(start).limit(start + bytes);
        while (c.next()) {
            final long at = s.disps()[r] + c.offset();
            if (at < 0) {
                throw ParioException.argument("view spec: rank " + r + "'s view reaches file byte " + at + ", before "
                    + "the start of the file (displacement " + s.disps()[r] + ", filetype " + s.filetypes()[r] + ")");
            }
            if (!out.isEmpty() && out.get(out.size() - 1)[0] + out.get(out.size() - 1)[1] == at) {
                out.get(out.size() - 1)[1] += c.length();
            } else if (out.size() == MAX_RANGES) {
                throw ParioException.argument("view spec: rank " + r + "'s view reaches more than " + MAX_RANGES
                    + " separate byte ranges for its count of " + s.counts()[r] + ", more than view map lists");
            } else {
                out.add(new long[] {at, c.length()});
            }
        }
        return out;
    }

    /** {@code pario view map SPEC}. */
    @Command(name = "map", mixinStandardHelpOptions = true,
        description = "For each rank, the file byte ranges its view reaches, and a picture of the file by rank.")
    static final class MapCmd implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "SPEC", description = "The view spec (JSON).")
        private Path specFile;

        @Option(names = "--json", description = "Print {\"ranks\": [[[offset, length], ...], ...], \"size\": N}.")
        private boolean json;

        @picocli.CommandLine.Mixin
        private VerboseOption verbose;

        @Override
        public Integer call() throws IOException {
            final ViewSpec s = ViewSpec.read(specFile);
            final PrintWriter out = spec.commandLine().getOut();
            final List<List<long[]>> all = new ArrayList<>();
            long size = 0;
            for (int r = 0; r < s.ranks(); r++) {
                final List<long[]> ranges = ranges(s, r);
                all.add(ranges);
                for (final long[] x : ranges) {
                    size = Math.max(size, x[0] + x[1]);
                }
            }
            if (json) {
                try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
                    g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
                    g.setPrettyPrinter(new SpecJsonPrinter());
                    g.writeStartObject();
                    g.writeArrayFieldStart("ranks");
                    for (final List<long[]> ranges : all) {
                        g.writeStartArray();
                        for (final long[] x : ranges) {
                            g.writeArray(x, 0, 2);
                        }
                        g.writeEndArray();
                    }
                    g.writeEndArray();
                    g.writeNumberField("size", size);
                    g.writeEndObject();
                }
                out.println();
                out.flush();
                return 0;
            }
            for (int r = 0; r < s.ranks(); r++) {
                final StringBuilder b = new StringBuilder();
                long total = 0;
                for (final long[] x : all.get(r)) {
                    total += x[1];
                    if (b.length() < 200) {
                        b.append(" [").append(x[0]).append(',').append(x[0] + x[1]).append(')');
                    }
                }
                out.printf("rank %d: %d bytes in %d range%s:%s%s%n", r, total, all.get(r).size(),
                    all.get(r).size() == 1 ? "" : "s", b, b.length() >= 200 ? " ..." : "");
            }
            picture(all, size, out);
            out.flush();
            return 0;
        }

        private static void picture(final List<List<long[]>> all, final long size, final PrintWriter out) {
            if (size == 0) {
                out.println("file: no bytes");
                return;
            }
            final int width = (int) Math.min(64, size);
            final long per = (size + width - 1) / width;
            final int[] owner = new int[width];
            java.util.Arrays.fill(owner, -1);
            for (int r = 0; r < all.size(); r++) {
                for (final long[] x : all.get(r)) {
                    for (long a = x[0]; a < x[0] + x[1]; a = (a / per + 1) * per) {
                        final int cell = (int) (a / per);
                        owner[cell] = owner[cell] == -1 || owner[cell] == r ? r : -2;
                    }
                }
            }
            final StringBuilder bar = new StringBuilder("  |");
            for (final int o : owner) {
                bar.append(o == -1 ? '.' : o == -2 ? '*' : Character.forDigit(o % 36, 36));
            }
            out.printf("file, %d bytes, %d byte%s per mark (rank number, '*' several ranks, '.' no rank):%n", size,
                per, per == 1 ? "" : "s");
            out.println(bar.append('|'));
        }
    }

    /**
     * One rank's collective access as the spec describes it: open (a new file to write, or read only), set the
     * rank's view, then write_all/read_all at the individual pointer, or write_at_all/read_at_all at its offset.
     */
    static long access(final ViewSpec s, final org.pario.comm.Communicator comm, final String file, final boolean write,
                       final ByteBuffer data) {
        final int r = comm.rank();
        final EnumSet<Mode> modes = write ? EnumSet.of(Mode.CREATE, Mode.RDWR) : EnumSet.of(Mode.RDONLY);
        try (ParallelFile f = ParallelFile.open(comm, file, modes, Hints.of(s.hints()))) {
            f.setView(s.disps()[r], s.etype(), s.filetypes()[r], s.datarep());
            final long count = s.counts()[r];
            if (s.offsets() == null) {
                return (write ? f.writeAll(data, count, s.etype()) : f.readAll(data, count, s.etype())).bytes();
            }
            return (write ? f.writeAtAll(s.offsets()[r], data, count, s.etype())
                : f.readAtAll(s.offsets()[r], data, count, s.etype())).bytes();
        }
    }

    /** Element k of rank r, as the spec defines it: (r + 1) * 1000000 + k, stored as the etype. */
    static ByteBuffer fill(final Datatype etype, final int r, final long count) {
        final BasicKind kind = etype.basicKind().orElseThrow(() -> ParioException.argument(
            "pario view write fills basic etypes only (int, double, ...), not " + etype));
        final int size = (int) etype.size();
        final ByteBuffer b = ByteBuffer.allocate(Math.toIntExact(count * size)).order(ByteOrder.LITTLE_ENDIAN);
        for (long k = 0; k < count; k++) {
            final long v = (r + 1) * 1_000_000L + k;
            final int at = (int) (k * size);
            if (kind == BasicKind.FLOATING) {
                if (size == 4) {
                    b.putFloat(at, v);
                } else {
                    b.putDouble(at, v);
                }
            } else if (kind == BasicKind.COMPLEX || kind == BasicKind.EXTENDED_FLOATING) {
                throw ParioException.argument("pario view write cannot fill etype " + etype);
            } else {
                switch (size) {
                    case 1 -> b.put(at, (byte) v);
                    case 2 -> b.putShort(at, (short) v);
                    case 4 -> b.putInt(at, (int) v);
                    default -> b.putLong(at, v);
                }
            }
        }
        return b;
    }

    /** How a write or read runs its ranks: threads of this JVM, or one JVM each ({@code --launch}). */
    static final class Ranks {
        @Option(names = "--launch", description = "Run each rank in its own JVM (over TCP), as `pario launch` does, "
            + "instead of as threads of this JVM.")
        boolean launch;

        /** Set in the JVMs {@code --launch} starts: this process is one rank of the job. */
        @Option(names = "--as-rank", hidden = true)
        boolean asRank;

        /**
         * Runs {@code body} on every rank of the spec: as this process's rank of a launched job ({@code --as-rank}),
         * by launching one JVM per rank running {@code subcommand} ({@code --launch}), or on threads.
         *
         * @return the exit status
         */
        int execute(final ViewSpec s, final List<String> subcommand, final picocli.CommandLine cmd,
                    final java.util.function.Consumer<org.pario.comm.Communicator> body)
            throws IOException, InterruptedException {
            if (asRank) {
                try (org.pario.comm.Communicator world = org.pario.comm.Pario.init()) {
                    if (world.size() != s.ranks()) {
                        throw ParioException.argument("the view spec has " + s.ranks() + " ranks but the job has "
                            + world.size());
                    }
                    body.accept(world);
                }
                return 0;
            }
            if (launch) {
                return launchJob(s.ranks(), subcommand, cmd);
            }
            LocalCluster.run(s.ranks(), body::accept);
            return 0;
        }

        /** Starts one JVM per rank running the same subcommand with {@code --as-rank}; returns the job's status. */
        int launchJob(final int ranks, final List<String> subcommand, final picocli.CommandLine cmd)
            throws IOException, InterruptedException {
            final List<String> command = Jvm.command();
            command.addAll(List.of(Main.class.getName(), "view"));
            command.addAll(subcommand);
            command.add("--as-rank");
            return LaunchCommand.launch(ranks, "127.0.0.1", 60, command, cmd.getOut(), cmd.getErr(), false);
        }
    }

    /** {@code pario view write SPEC FILE}. */
    @Command(name = "write", mixinStandardHelpOptions = true,
        description = "Every rank writes its count of etypes ((rank + 1) * 1000000 + k) collectively into a new FILE.")
    static final class WriteCmd implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "SPEC", description = "The view spec (JSON).")
        private Path specFile;

        @Parameters(index = "1", paramLabel = "FILE",
            description = "The file to create (replaced if it exists): a path or an hdfs:// URI.")
        private String file;

        @picocli.CommandLine.Mixin
        private VerboseOption verbose;

        @picocli.CommandLine.ArgGroup(exclusive = false)
        private Ranks ranks = new Ranks();

        @Override
        public Integer call() throws Exception {
            final ViewSpec s = ViewSpec.read(specFile);
            if (ranks.asRank) {
                // one rank of a launched job: the launcher already chose the hidden file, passed as FILE
                return ranks.execute(s, List.of(), spec.commandLine(), comm -> access(s, comm, file, true,
                    fill(s.etype(), comm.rank(), s.counts()[comm.rank()])));
            }
            for (int r = 0; r < s.ranks(); r++) {
                // found before anything is written: an etype the command cannot fill
                fill(s.etype(), r, 0);
            }
            return Output.prepare("FILE", file, specFile.toString()).write(hidden -> ranks.execute(s,
                List.of("write", specFile.toString(), hidden), spec.commandLine(),
                comm -> access(s, comm, hidden, true, fill(s.etype(), comm.rank(), s.counts()[comm.rank()]))));
        }
    }

    /** {@code pario view read SPEC FILE OUT}. */
    @Command(name = "read", mixinStandardHelpOptions = true,
        description = "Every rank reads its count of etypes collectively from FILE; OUT gets the buffers in rank order.")
    static final class ReadCmd implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "SPEC", description = "The view spec (JSON).")
        private Path specFile;

        @Parameters(index = "1", paramLabel = "FILE", description = "The file to read: a path or an hdfs:// URI.")
        private String file;

        @Parameters(index = "2", paramLabel = "OUT", description = "Where the ranks' buffers go, concatenated.")
        private Path output;

        @picocli.CommandLine.Mixin
        private VerboseOption verbose;

        @picocli.CommandLine.ArgGroup(exclusive = false)
        private Ranks ranks = new Ranks();

        @Override
        public Integer call() throws Exception {
            final ViewSpec s = ViewSpec.read(specFile);
            final java.io.PrintWriter err = spec.commandLine().getErr();
            if (ranks.asRank) {
                return ranks.execute(s, List.of(), spec.commandLine(), comm -> report(readInto(s, comm,
                    output.toString()), comm.rank() == 0 ? err : null));
            }
            final List<String> sub = new ArrayList<>(List.of("read", specFile.toString(), file));
            if (strict) {
                sub.add("--strict");
            }
            return Output.prepare("OUT", output.toString(), file, specFile.toString()).write(hidden -> {
                sub.add(hidden);
                return ranks.execute(s, sub, spec.commandLine(), comm -> report(readInto(s, comm, hidden),
                    comm.rank() == 0 ? err : null));
            });
        }

        /**
         * Says how many bytes the ranks read (on rank 0), and fails every rank on a short read under --strict.
         *
         * @param got {bytes read, bytes the views ask for}, the same on every rank
         * @param err where rank 0 reports, null on the others
         */
        private void report(final long[] got, final java.io.PrintWriter err) {
            if (got[0] < got[1] && strict) {
                throw new ParioException(ErrorCategory.TRUNCATE, "short read: the ranks read " + got[0] + " of the "
                    + got[1] + " bytes their views ask for (" + file + " ends first); OUT is left as it was", null);
            }
            if (err != null) {
                err.println("pario: read " + got[0] + " of " + got[1] + " bytes" + (got[0] < got[1] ? " (a short "
                    + "read: " + file + " ends before the views do; the rest of OUT is zeros; --strict makes this an "
                    + "error)" : ""));
                err.flush();
            }
        }

        @Option(names = "--strict", description = "Fail, leaving OUT as it was, when FILE holds fewer bytes than the "
            + "views ask for (by default the missing bytes are zeros in OUT and the count is printed).")
        private boolean strict;

        /** Reads the rank's part and writes the buffers into OUT in rank order; @return {bytes read, bytes asked} */
        private long[] readInto(final ViewSpec s, final org.pario.comm.Communicator comm, final String out) {
            final byte[] data = new byte[Math.toIntExact(s.counts()[comm.rank()] * s.etype().size())];
            final long read = access(s, comm, file, false, ByteBuffer.wrap(data));
            // the ranks' buffers go into OUT one after the other, in rank order
            try (ParallelFile f = ParallelFile.open(comm, out, EnumSet.of(Mode.CREATE, Mode.WRONLY))) {
                f.writeOrdered(data, data.length, Datatype.BYTE);
            }
            return new long[] {comm.allreduce(read, org.pario.comm.Op.SUM),
                comm.allreduce((long) data.length, org.pario.comm.Op.SUM)};
        }

    }
}
