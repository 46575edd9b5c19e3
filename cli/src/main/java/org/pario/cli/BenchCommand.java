package org.pario.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code pario bench}: benchmarks of Pario's layers on this machine. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Measures Pario on this machine.",
    subcommands = {BenchCommand.Comm.class})
final class BenchCommand implements Runnable {
    @Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "a benchmark is required: comm");
    }

    /** {@code pario bench comm -n N}: collectives between N JVM ranks over TCP. */
    @Command(name = "comm", mixinStandardHelpOptions = true,
        description = "Latency and bandwidth of barrier, bcast, allreduce, gather and alltoall between N JVM ranks "
            + "over TCP on this machine, 8 B to 64 MiB per rank. Prints rank 0's table: median microseconds per "
            + "operation and MiB/s per rank. bench/run-comm.sh prints it beside MPICH and Open MPI.")
    static final class Comm implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @Option(names = {"-n", "--ranks"}, defaultValue = "2", paramLabel = "N",
            description = "Number of ranks (default: ${DEFAULT-VALUE}).")
        private int ranks;

        @Option(names = "--worker", hidden = true, description = "Run as one rank of the benchmark job.")
        private boolean worker;

        @Override
        public Integer call() throws Exception {
            if (worker) {
                CommBenchmark.run();
                return 0;
            }
            final List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx3g", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "bench", "comm", "--worker"));
            return LaunchCommand.launch(ranks, "127.0.0.1", 60, command, spec.commandLine().getOut(),
                spec.commandLine().getErr(), true);
        }
    }
}
