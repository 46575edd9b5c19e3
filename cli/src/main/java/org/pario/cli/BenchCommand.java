package org.pario.cli;

import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code pario bench}: benchmarks of Pario's layers on this machine. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Measures Pario on this machine.",
    subcommands = {BenchCommand.Comm.class, BenchCommand.Io.class, BenchCommand.CheckpointBench.class,
        BenchCommand.Solver.class})
final class BenchCommand implements Runnable {
    @Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "a benchmark is required: comm, io, checkpoint or solver");
    }

    /** {@code pario bench comm -n N}: point-to-point messages and collectives between N JVM ranks over TCP. */
    @Command(name = "comm", mixinStandardHelpOptions = true,
        description = "Latency and bandwidth of a ping-pong between ranks 0 and 1 and of barrier, bcast, allreduce, "
            + "gather and alltoall between N JVM ranks over TCP on this machine, 8 B to 64 MiB per rank. Prints rank "
            + "0's table: median microseconds per operation (for the ping-pong, per message: half the round trip) "
            + "and MiB/s per rank. bench/run-comm.sh prints it beside MPICH and Open MPI.")
    static final class Comm implements Callable<Integer> {
        @Option(names = "--direct", description = "Send from and receive into direct ByteBuffers instead of double[] "
            + "arrays (large messages are then received without a copy, and a collective's blocks of 32 MiB and "
            + "more sent without packing).")
        private boolean direct;

        @Option(names = "--windows", description = "After each line, a comment with the span its calls were timed in "
            + "(# timed OPERATION BYTES START END SETTLE: seconds of the monotonic clock, and the seconds of untimed "
            + "calls before, until the JIT compilers were idle), for matching against "
            + "bench/c/placement's samples of how far apart the host ran the CPUs.")
        private boolean windows;

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
                CommBenchmark.run(direct, windows);
                return 0;
            }
            // a ping-pong between ranks 0 and 1 needs both
            RankCounts.jvms("-n", ranks, 2);
            final List<String> command = Jvm.command("-Xmx3g");
            command.addAll(List.of(Main.class.getName(), "bench", "comm", "--worker"));
            if (direct) {
                command.add("--direct");
            }
            if (windows) {
                command.add("--windows");
            }
            return LaunchCommand.launch(ranks, "127.0.0.1", 60, command, spec.commandLine().getOut(),
                spec.commandLine().getErr(), true);
        }
    }

    /** {@code pario bench io -n N}: collective write and read of a distributed 3-D array between N JVM ranks. */
    @Command(name = "io", mixinStandardHelpOptions = true,
        description = "Collective write (synced) and read of an N^3 array of doubles between JVM ranks over TCP, "
            + "distributed as a darray: BLOCK on a grid (AxBxC), or CYCLIC(1) or CYCLIC(K) over the last dimension "
            + "(cyclic, cyclicK). "
            + "Prints rank 0's lines: phase, pattern, ranks, MiB/s, seconds, peak RSS MiB (largest rank, all "
            + "ranks). bench/run-io.sh prints it beside MPICH's ROMIO and Open MPI's OMPIO and ROMIO.")
    static final class Io implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @picocli.CommandLine.Mixin
        private ArrayBenchOptions array;

        @Option(names = "--file", defaultValue = "pario-bench-io.bin", paramLabel = "PATH",
            description = "The file to write and read, a path or an hdfs:// URI, deleted afterwards "
                + "(default: ${DEFAULT-VALUE}).")
        private String file;

        @Option(names = "--warmup", defaultValue = "0.125", paramLabel = "FRACTION",
            description = "Part of each rank's data first written and read, untimed, to a scratch file, so that the "
                + "timed phases run warm; 0 for none (default: ${DEFAULT-VALUE}).")
        private double warmup;

        @picocli.CommandLine.Mixin
        private HintOption hint;

        @Option(names = "--threads", description = "Run the ranks as threads of this JVM instead of as JVMs: "
            + "messages between them pass in memory, and the peak memory printed is the process's, shared out over "
            + "the ranks. The heap must hold the whole array (PARIO_JAVA_OPTS=-Xmx8g, say).")
        private boolean threads;

        @Option(names = "--worker", hidden = true, description = "Run as one rank of the benchmark job.")
        private boolean worker;

        @Override
        public Integer call() throws Exception {
            if (!(warmup >= 0 && warmup <= 1)) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--warmup must be in [0, 1], got " + warmup);
            }
            if (worker) {
                IoBenchmark.run(array.size, array.pattern, file, hint.values, warmup);
                return 0;
            }
            if (threads) {
                array.checkThreads();
            } else {
                array.check();
            }
            final String path = Locations.scratch("--file", file, existing -> false);
            Locations.scratch("--file", file + ".warmup", existing -> false);
            if (threads) {
                array.runInThreads(hint, hints -> IoBenchmark.runInThreads(array.ranks, array.size, array.pattern,
                    path, hints, warmup, spec.commandLine().getOut()), path, path + ".warmup");
                return 0;
            }
            return array.launch(spec, "io", List.of("--file", path, "--warmup", Double.toString(warmup)), hint, path,
                path + ".warmup");
        }
    }

    /** {@code pario bench checkpoint -n N}: a checkpoint beside the raw collective write and read of its data. */
    @Command(name = "checkpoint", mixinStandardHelpOptions = true,
        description = "Checkpoint write, restore (on the same ranks, and on one rank fewer with another "
            + "distribution) and verify of the N^3 array of doubles pario bench io moves, beside the raw collective "
            + "write (synced) and read of the same data through the same view, in one job: first the JVM's first "
            + "checkpoint, then --rounds rounds of every phase. Prints rank 0's lines (phase, pattern, ranks, MiB/s, "
            + "seconds), each phase's median and the ratios checkpoint/raw write, restore/raw read, first/warm "
            + "checkpoint and restore on fewer ranks/restore. bench/run-checkpoint.sh prints it beside parallel HDF5.")
    static final class CheckpointBench implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @picocli.CommandLine.Mixin
        private ArrayBenchOptions array;

        @Option(names = "--rounds", defaultValue = "3", paramLabel = "R",
            description = "Rounds of the warm phases (default: ${DEFAULT-VALUE}).")
        private int rounds;

        @Option(names = "--compute", defaultValue = "0", paramLabel = "SECONDS",
            description = "Seconds each rank waits between making its array and the first checkpoint, standing for "
                + "the computation a job does before it checkpoints, during which Pario prepares its checkpoint code "
                + "(default: ${DEFAULT-VALUE}: the first checkpoint right away).")
        private double compute;

        @Option(names = "--prepare", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Call Checkpoint.prepare on the array before the computation, as the guide says a job "
                + "should; --no-prepare leaves it out (default: prepared).")
        private boolean prepare;

        @Option(names = "--file", defaultValue = "pario-bench-checkpoint", paramLabel = "PATH",
            description = "Prefix of the files written (PATH.raw and PATH.ckpt), deleted afterwards "
                + "(default: ${DEFAULT-VALUE}).")
        private String file;

        @picocli.CommandLine.Mixin
        private HintOption hint;

        @Option(names = "--worker", hidden = true, description = "Run as one rank of the benchmark job.")
        private boolean worker;

        @Override
        public Integer call() throws Exception {
            if (rounds < 1) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--rounds must be >= 1, got " + rounds);
            }
            if (!(compute >= 0 && compute <= 3600)) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--compute must be in [0, 3600] seconds, got " + compute);
            }
            if (worker) {
                CheckpointBenchmark.run(array.size, array.pattern, file, hint.values, rounds, compute, prepare);
                return 0;
            }
            array.check();
            final String prefix = Locations.scratch("--file", file, existing -> false);
            Locations.scratch("--file", file + ".raw", existing -> false);
            Locations.scratch("--file", file + ".ckpt", existing -> false);
            return array.launch(spec, "checkpoint", List.of("--file", prefix, "--rounds", Integer.toString(rounds),
                "--compute", Double.toString(compute), prepare ? "--prepare" : "--no-prepare"), hint, prefix + ".raw",
                prefix + ".ckpt");
        }
    }

    /** {@code pario bench solver -n N}: a compute loop without, with synchronous and with asynchronous checkpoints. */
    @Command(name = "solver", mixinStandardHelpOptions = true,
        description = "A compute loop over the N^3 array of doubles pario bench io moves (smoothing sweeps over each "
            + "rank's part, a value passed around the ring of ranks after each), --intervals intervals of --sweeps "
            + "sweeps, run three ways in one job: without checkpoints, with a synchronous checkpoint after every "
            + "interval, and with an asynchronous one. Prints each run's seconds, the seconds a checkpoint blocks the "
            + "loop, and the ratios asynchronous/synchronous blocking and asynchronous run/run without checkpoints.")
    static final class Solver implements Callable<Integer> {
        @Spec
        private picocli.CommandLine.Model.CommandSpec spec;

        @picocli.CommandLine.Mixin
        private ArrayBenchOptions array;

        @Option(names = "--intervals", defaultValue = "4", paramLabel = "K",
            description = "Checkpoint intervals (default: ${DEFAULT-VALUE}).")
        private int intervals;

        @Option(names = "--sweeps", defaultValue = "4", paramLabel = "S",
            description = "Sweeps in an interval (default: ${DEFAULT-VALUE}).")
        private int sweeps;

        @Option(names = "--file", defaultValue = "pario-bench-solver.ckpt", paramLabel = "PATH",
            description = "The checkpoint written, deleted afterwards (default: ${DEFAULT-VALUE}).")
        private String file;

        @picocli.CommandLine.Mixin
        private HintOption hint;

        @Option(names = "--worker", hidden = true, description = "Run as one rank of the benchmark job.")
        private boolean worker;

        @Override
        public Integer call() throws Exception {
            if (intervals < 1 || intervals > 10000 || sweeps < 1 || sweeps > 10000) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--intervals and --sweeps must be in [1, 10000], got " + intervals + " and " + sweeps);
            }
            if (worker) {
                SolverBenchmark.run(array.size, array.pattern, file, hint.values, intervals, sweeps);
                return 0;
            }
            array.check();
            final String target = Locations.scratch("--file", file, existing -> false);
            return array.launch(spec, "solver", List.of("--file", target, "--intervals", Integer.toString(intervals),
                "--sweeps", Integer.toString(sweeps)), hint, target);
        }
    }
}
