package org.pario.cli;

import java.io.PrintWriter;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.pario.io.array.Checkpoint;
import org.pario.io.array.CheckpointEntry;
import org.pario.io.array.LatestCheckpoint;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code pario checkpoint ls|latest|prune DIR}: the checkpoints of a directory. */
final class CheckpointCatalogCommands {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
        .withZone(ZoneOffset.UTC);

    private CheckpointCatalogCommands() {
    }

    static String state(final CheckpointEntry e) {
        return e.state().name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static String name(final CheckpointEntry e) {
        final String l = e.location();
        return l.substring(l.lastIndexOf('/') + 1);
    }

    static String size(final long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        final String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = bytes / 1024.0;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    /** Prints entries as a table, one line each, with what is wrong under a line that is not whole. */
    static void table(final PrintWriter out, final List<CheckpointEntry> entries) {
        int nameWidth = 4;
        for (final CheckpointEntry e : entries) {
            nameWidth = Math.max(nameWidth, name(e).length());
        }
        final String row = "%-" + nameWidth + "s  %-12s  %-23s  %10s  %s%n";
        out.printf(Locale.ROOT, row, "file", "state", "written (UTC)", "size", "arrays and attributes");
        for (final CheckpointEntry e : entries) {
            final String what = e.whole() ? String.join(", ", e.arrays())
                + (e.attributes().isEmpty() ? "" : "  " + e.attributes()) : "";
            out.printf(Locale.ROOT, row, name(e), state(e), TIME.format(e.time()), size(e.bytes()), what);
            if (e.problem() != null) {
                out.printf(Locale.ROOT, "%" + nameWidth + "s  `- %s%n", "", e.problem());
            }
        }
    }

    /** {@code pario checkpoint ls DIR}. */
    @Command(name = "ls", mixinStandardHelpOptions = true,
        description = "Lists the checkpoints of a directory, oldest first: whole ones with their time, size, arrays and "
            + "attributes, damaged ones and half-written ones (writes not committed) with why. Reads headers only.")
    static final class Ls implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "DIR", description = "A directory: a path or an hdfs:// URI.")
        private String dir;

        @picocli.CommandLine.Mixin
        private VerboseOption verbose;

        @Override
        public Integer call() {
            final List<CheckpointEntry> all = Checkpoint.list(dir);
            final PrintWriter out = spec.commandLine().getOut();
            if (all.isEmpty()) {
                out.printf("%s holds no checkpoint%n", dir);
                return 0;
            }
            table(out, all);
            return 0;
        }
    }

    /** {@code pario checkpoint latest DIR}. */
    @Command(name = "latest", mixinStandardHelpOptions = true,
        description = "Prints the newest checkpoint of a directory whose data verifies (reading it whole), and what "
            + "was passed over on the way. Exits with 1 when there is none.")
    static final class Latest implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "DIR", description = "A directory: a path or an hdfs:// URI.")
        private String dir;

        @picocli.CommandLine.Mixin
        private VerboseOption verbose;

        @Override
        public Integer call() {
            final LatestCheckpoint l = Checkpoint.latest(dir);
            final PrintWriter out = spec.commandLine().getOut();
            final PrintWriter err = spec.commandLine().getErr();
            for (final CheckpointEntry e : l.skipped()) {
                err.printf("skipped %s (%s): %s%n", e.location(), state(e), e.problem());
            }
            if (l.newest().isEmpty()) {
                err.printf("%s holds no checkpoint that verifies%n", dir);
                return 1;
            }
            // the location alone on stdout, so that scripts can use it: restore "$(pario checkpoint latest DIR)"
            out.println(l.newest().get().location());
            return 0;
        }
    }

    /** {@code pario checkpoint prune DIR --keep N}. */
    @Command(name = "prune", mixinStandardHelpOptions = true,
        description = "Keeps the N newest whole checkpoints of a directory and deletes older ones (and damaged files "
            + "older than the oldest kept). Never deletes a whole checkpoint while fewer than N exist; leaves "
            + "half-written files, which may belong to a write still running.")
    static final class Prune implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "DIR", description = "A directory: a path or an hdfs:// URI.")
        private String dir;

        @Option(names = "--keep", required = true, paramLabel = "N", description = "How many checkpoints to keep, "
            + "at least 1.")
        private int keep;

        @picocli.CommandLine.Mixin
        private VerboseOption verbose;

        @Override
        public Integer call() {
            final PrintWriter out = spec.commandLine().getOut();
            final List<CheckpointEntry> gone = Checkpoint.prune(dir, keep);
            for (final CheckpointEntry e : gone) {
                out.printf("deleted %s (%s, %s)%n", e.location(), state(e), TIME.format(e.time()));
            }
            final long kept = Checkpoint.list(dir).stream().filter(CheckpointEntry::whole).count();
            out.printf("%s: %d file%s deleted, %d checkpoint%s kept%n", dir, gone.size(), gone.size() == 1 ? "" : "s",
                kept, kept == 1 ? "" : "s");
            return 0;
        }
    }
}
