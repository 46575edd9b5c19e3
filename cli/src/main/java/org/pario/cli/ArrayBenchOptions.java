package org.pario.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.pario.ParioException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The array the I/O benchmarks move, and the ranks that move it: {@code -n}, {@code --size}, {@code --pattern}
 * ({@link IoBenchmark#array}).
 */
final class ArrayBenchOptions {
    @Option(names = {"-n", "--ranks"}, defaultValue = "4", paramLabel = "N",
        description = "Number of ranks (default: ${DEFAULT-VALUE}).")
    int ranks;

    @Option(names = "--size", defaultValue = "512", paramLabel = "EDGE",
        description = "Elements per dimension (default: ${DEFAULT-VALUE}: 1 GiB).")
    long size;

    @Option(names = "--pattern", defaultValue = "block", paramLabel = "block|AxBxC|cyclic|cyclicK",
        description = "BLOCK on a balanced grid of the N ranks, BLOCK on the grid AxBxC, CYCLIC(1) on the "
            + "last dimension, or CYCLIC(K) on it (default: ${DEFAULT-VALUE}: 2x2x1 for 4 ranks, 2x1x1 for 2).")
    String pattern;

    /** Fails before any rank starts when the ranks, size and pattern do not fit together. */
    void check() {
        RankCounts.jvms("-n", ranks, 1);
        IoBenchmark.check(pattern, ranks, size);
    }

    /**
     * The same for ranks as threads of this JVM, whose heap then holds every rank's part: a heap too small for the
     * whole array fails here, with what to give, instead of running out of memory half way.
     */
    void checkThreads() {
        RankCounts.threads("-n", ranks);
        IoBenchmark.check(pattern, ranks, size);
        final long bytes = size * size * size * 8;
        // every part, and room for the file's buffers and the JVM's own
        final long needed = bytes + (256L << 20);
        final long heap = Runtime.getRuntime().maxMemory();
        if (heap < needed) {
            throw ParioException.argument("--threads: the " + ranks + " ranks' parts of --size " + size
                + " take " + (bytes >> 20) + " MiB of this JVM's heap, which holds at most " + (heap >> 20)
                + " MiB: give the JVM at least " + ((needed >> 20) + 1) + " MiB (PARIO_JAVA_OPTS=-Xmx"
                + ((needed >> 30) + 1) + "g) or a smaller --size");
        }
    }

    /**
     * Starts the benchmark's ranks ({@code pario bench NAME --worker} with these options, {@code workerArgs} and
     * the hints), waits for them, then deletes {@code scratch}, whatever the outcome.
     *
     * @return the job's exit code
     */
    int launch(final CommandSpec spec, final String name, final List<String> workerArgs, final HintOption hint,
               final String... scratch) throws Exception {
        // checked here, so that a bad hint fails before any rank starts
        hint.hints();
        final List<String> command = new ArrayList<>(Jvm.command("-Xmx3g"));
        command.addAll(List.of(Main.class.getName(), "bench", name, "--worker", "--size", Long.toString(size),
            "--pattern", pattern));
        command.addAll(workerArgs);
        hint.forward(command);
        try {
            return LaunchCommand.launch(ranks, "127.0.0.1", 60, command, spec.commandLine().getOut(),
                spec.commandLine().getErr(), true);
        } finally {
            deleteAll(scratch);
        }
    }

    /**
     * Runs the benchmark's ranks as threads of this JVM ({@code job} with the hints' values), then deletes {@code
     * scratch}, whatever the outcome.
     */
    void runInThreads(final HintOption hint, final Consumer<Map<String, String>> job,
                      final String... scratch) {
        // checked here, so that a bad hint fails before any rank starts
        hint.hints();
        try {
            job.accept(hint.values);
        } finally {
            deleteAll(scratch);
        }
    }

    private static void deleteAll(final String... files) {
        for (final String file : files) {
            Locations.deleteIfExists(file);
        }
    }
}
