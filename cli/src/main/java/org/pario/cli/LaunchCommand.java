package org.pario.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code pario launch -n N [--] COMMAND...}: starts N processes of a job on this machine. Each gets its rank and
 * the job's size, name, token and rendezvous directory in its environment ({@code PARIO_RANK}, {@code PARIO_SIZE},
 * {@code PARIO_JOB}, {@code PARIO_TOKEN}, {@code PARIO_RENDEZVOUS_DIR}, {@code PARIO_BIND}, and the CPUs the launch
 * may use in {@code PARIO_HOST_CPUS}), which
 * {@code Pario.init()} reads. Ranks that outnumber the cores run on one core each, in snake order; with {@code
 * --bind-to cores} ranks that fit run on an equal share of the cores each ({@link CoreShares}; the CPUs in {@code
 * PARIO_CPUS}). Output is forwarded line by line with a
 * {@code [rank]} prefix. The launch exits with the first non-zero status of any rank, after stopping the others, or
 * with 0 when all succeed. Unless the environment already says otherwise, the C library of each rank backs large
 * allocations with transparent huge pages ({@code GLIBC_TUNABLES=glibc.malloc.hugetlb=1}), so that the direct
 * buffers of its storage accesses are physically contiguous ({@link org.pario.io.storage.DirectBuffers}).
 */
@Command(name = "launch", mixinStandardHelpOptions = true,
    description = {"Starts N ranks of a job on this machine and waits for them.",
        "Exits with the first non-zero status of any rank (stopping the others), or 0."},
    footer = {"", "Example:", "  pario launch -n 4 -- java -cp app.jar com.example.Solver"})
final class LaunchCommand implements Callable<Integer> {
    @Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = {"-n", "--ranks"}, required = true, paramLabel = "N", description = "Number of ranks.")
    private int ranks;

    @Option(names = "--bind", defaultValue = "127.0.0.1", paramLabel = "ADDRESS",
        description = "Interface the ranks bind and advertise (default: ${DEFAULT-VALUE}).")
    private String bind;

    @Option(names = "--bind-to", defaultValue = "${env:PARIO_BIND_TO:-auto}", paramLabel = "auto|cores|none",
        description = {"auto: ranks that outnumber the cores this process may use run on one core each, in snake "
            + "order (0, 1, 1, 0 for 4 ranks on 2 cores), through taskset; ranks that fit run wherever the system "
            + "puts them. cores: as auto, and ranks that fit run on an equal share of the cores each, as Open MPI "
            + "binds by default. none: every rank wherever the system puts it (default: ${DEFAULT-VALUE}, or "
            + "PARIO_BIND_TO)."})
    private String bindTo;

    @Option(names = "--startup-timeout", defaultValue = "60", paramLabel = "SECONDS",
        description = "How long the job may take to assemble (default: ${DEFAULT-VALUE}).")
    private int startupTimeout;

    @Option(names = "--timeout", defaultValue = "0", paramLabel = "SECONDS",
        description = "The job's time limit: past it the ranks are stopped and the launch exits with status "
            + TIMED_OUT + " (default: ${DEFAULT-VALUE}, no limit).")
    private long timeout;

    @picocli.CommandLine.Mixin
    private VerboseOption verbose;

    @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "The program each rank runs, with its arguments.")
    private List<String> command;

    @Override
    public Integer call() throws IOException, InterruptedException {
        RankCounts.jvms("-n", ranks, 1);
        checkBind(bind);
        if (timeout < 0 || startupTimeout < 1) {
            throw org.pario.ParioException.argument("--timeout must be >= 0 and --startup-timeout >= 1, got "
                + timeout + " and " + startupTimeout);
        }
        final List<String> shares;
        try {
            shares = shares("--bind-to", bindTo, ranks);
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        return launch(ranks, bind, startupTimeout, command, spec.commandLine().getOut(), spec.commandLine().getErr(),
            false, shares, timeout);
    }

    /** The status of a launch whose job passed its time limit, as timeout(1) exits. */
    static final int TIMED_OUT = 124;

    /** How long stopped ranks get to exit before they are killed. */
    private static final long STOP_SECONDS = 5;

    /** Refuses an address that is not this host's before any rank starts (the ranks would fail to bind). */
    static void checkBind(final String bind) {
        final java.net.InetAddress address;
        try {
            address = java.net.InetAddress.getByName(bind);
        } catch (java.net.UnknownHostException e) {
            throw org.pario.ParioException.argument("--bind " + bind + " is not an address or a known host name");
        }
        try {
            if (!address.isAnyLocalAddress() && !address.isLoopbackAddress()
                && java.net.NetworkInterface.getByInetAddress(address) == null) {
                throw org.pario.ParioException.argument("--bind " + bind + " is not an address of this host");
            }
        } catch (java.net.SocketException e) {
            throw org.pario.ParioException.argument("--bind " + bind + ": " + e.getMessage());
        }
    }

    /**
     * @return the CPUs of each rank under binding mode {@code setting} (of {@code what}), empty for unbound ranks
     * @throws IllegalArgumentException naming {@code what} when it is not auto, cores or none
     */
    private static List<String> shares(final String what, final String setting, final int ranks) {
        try {
            return CoreShares.forMode(ranks, setting);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " " + e.getMessage(), e);
        }
    }

    /** The C library setting that backs large allocations with transparent huge pages, where the kernel has them. */
    static final String MALLOC_HUGE_PAGES = "glibc.malloc.hugetlb=1";

    /**
     * Adds {@link #MALLOC_HUGE_PAGES} to a rank's {@code GLIBC_TUNABLES}, unless they already choose a huge page
     * setting ({@code glibc.malloc.hugetlb=0} turns it off). Only glibc reads the variable; other C libraries and
     * kernels without transparent huge pages ignore it.
     */
    static void hugePagesForMalloc(final java.util.Map<String, String> env) {
        final String tunables = env.get("GLIBC_TUNABLES");
        if (tunables == null || tunables.isBlank()) {
            env.put("GLIBC_TUNABLES", MALLOC_HUGE_PAGES);
        } else if (!(":" + tunables).contains(":glibc.malloc.hugetlb=")) {
            env.put("GLIBC_TUNABLES", tunables + ":" + MALLOC_HUGE_PAGES);
        }
    }

    /**
     * As below, with the ranks bound as the environment variable {@code PARIO_BIND_TO} says ({@code auto} unless
     * set; for the commands that launch ranks themselves: bench, demo, view).
     */
    static int launch(final int ranks, final String bind, final int startupTimeout, final List<String> command,
                      final PrintWriter out, final PrintWriter err, final boolean onlyRankZero)
        throws IOException, InterruptedException {
        return launch(ranks, bind, startupTimeout, command, out, err, onlyRankZero,
            shares("PARIO_BIND_TO", System.getenv().getOrDefault("PARIO_BIND_TO", "auto"), ranks), 0);
    }

    /**
     * Starts {@code ranks} processes of {@code command} as one job and waits for them.
     *
     * @param onlyRankZero forward only rank 0's standard output, without prefix (for reports)
     * @param shares       the CPUs each rank runs on ({@link CoreShares}), or an empty list for unbound ranks
     * @param timeLimit    seconds the job may run, or 0 for no limit
     * @return the first non-zero exit status, {@link #TIMED_OUT} past the time limit, or 0
     */
    static int launch(final int ranks, final String bind, final int startupTimeout, final List<String> command,
                      final PrintWriter out, final PrintWriter err, final boolean onlyRankZero,
                      final List<String> shares, final long timeLimit)
        throws IOException, InterruptedException {
        final int hostCpus = CoreShares.allowedCpus().size();
        final Path dir = Files.createTempDirectory("pario-launch-");
        final byte[] secret = new byte[24];
        new SecureRandom().nextBytes(secret);
        final String job = "launch-" + UUID.randomUUID();
        final List<Process> processes = new ArrayList<>();
        final BlockingQueue<int[]> exits = new LinkedBlockingQueue<>();
        final List<Thread> pumps = new ArrayList<>();
        // SIGINT, SIGTERM or SIGHUP end this JVM without unwinding this method: the hook stops the ranks (a
        // bounded wait, then SIGKILL) and removes the rendezvous folder, so nothing is orphaned
        final Thread onSignal = new Thread(() -> {
            try {
                stop(processes);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            removeFolder(dir);
        }, "pario-launch-stop");
        Runtime.getRuntime().addShutdownHook(onSignal);
        try {
            for (int r = 0; r < ranks; r++) {
                final ProcessBuilder pb = new ProcessBuilder(shares.isEmpty() ? command
                    : CoreShares.bound(shares.get(r), command));
                if (!shares.isEmpty()) {
                    pb.environment().put("PARIO_CPUS", shares.get(r));
                }
                if (hostCpus > 0) {
                    // a bound rank's JVM sees only its own share; whether ranks outnumber cores is the host's matter
                    pb.environment().put("PARIO_HOST_CPUS", Integer.toString(hostCpus));
                }
                pb.environment().put("PARIO_RANK", Integer.toString(r));
                pb.environment().put("PARIO_SIZE", Integer.toString(ranks));
                pb.environment().put("PARIO_JOB", job);
                pb.environment().put("PARIO_TOKEN", HexFormat.of().formatHex(secret));
                pb.environment().put("PARIO_RENDEZVOUS_DIR", dir.toString());
                pb.environment().put("PARIO_BIND", bind);
                pb.environment().put("PARIO_STARTUP_TIMEOUT", Integer.toString(startupTimeout));
                pb.environment().put("PARIO_LAUNCHER_PID", Long.toString(ProcessHandle.current().pid()));
                hugePagesForMalloc(pb.environment());
                final Process p;
                try {
                    p = pb.start();
                } catch (IOException e) {
                    throw new IOException("cannot start '" + String.join(" ", command) + "': " + e.getMessage(), e);
                }
                synchronized (processes) {
                    processes.add(p);
                }
                final int rank = r;
                pumps.add(pump(p.getInputStream(), out, onlyRankZero ? (rank == 0 ? -1 : -2) : rank));
                pumps.add(pump(p.getErrorStream(), err, onlyRankZero && rank == 0 ? -1 : rank));
                p.onExit().thenAccept(done -> exits.add(new int[] {rank, done.exitValue()}));
            }
            int status = 0;
            final long deadline = timeLimit > 0 ? System.nanoTime() + TimeUnit.SECONDS.toNanos(timeLimit) : 0;
            for (int finished = 0; finished < ranks; finished++) {
                final int[] exit = timeLimit > 0 ? exits.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)
                    : exits.take();
                if (exit == null) {
                    err.println("pario: the job passed its time limit of " + timeLimit + " s; stopping the ranks");
                    err.flush();
                    stop(processes);
                    return TIMED_OUT;
                }
                if (exit[1] != 0 && status == 0) {
                    status = exit[1];
                    err.println("pario: rank " + exit[0] + " exited with status " + exit[1] + "; stopping the others");
                    err.flush();
                    stop(processes);
                }
            }
            for (final Thread t : pumps) {
                t.join(TimeUnit.SECONDS.toMillis(5));
            }
            return status;
        } finally {
            stop(processes);
            removeFolder(dir);
            try {
                Runtime.getRuntime().removeShutdownHook(onSignal);
            } catch (IllegalStateException stopping) {
                // the JVM is stopping: the hook does the same
            }
        }
    }

    private static void removeFolder(final Path dir) {
        try (var files = Files.list(dir)) {
            for (final Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // already gone
        }
    }

    /** Asks every rank to stop (SIGTERM), waits at most {@link #STOP_SECONDS} for all, then kills what is left. */
    private static void stop(final List<Process> processes) throws InterruptedException {
        final List<Process> all;
        synchronized (processes) {
            all = new ArrayList<>(processes);
        }
        for (final Process p : all) {
            p.destroy();
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STOP_SECONDS);
        for (final Process p : all) {
            if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                p.destroyForcibly();
            }
        }
        for (final Process p : all) {
            p.waitFor(1, TimeUnit.SECONDS);
        }
    }

    /**
     * Forwards lines with a {@code [rank]} prefix; rank -1 forwards the output as it comes, without prefix (so that
     * a progress bar redrawn with carriage returns stays one line), -2 drops it.
     */
    private static Thread pump(final InputStream in, final PrintWriter to, final int rank) {
        final Thread t = new Thread(() -> {
            if (rank == -1) {
                try (java.io.Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
                    final char[] chunk = new char[4096];
                    int n;
                    while ((n = r.read(chunk)) > 0) {
                        synchronized (to) {
                            to.write(chunk, 0, n);
                            to.flush();
                        }
                    }
                } catch (IOException e) {
                    // the process is gone; nothing more to forward
                }
                return;
            }
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (rank == -2) {
                        continue;
                    }
                    synchronized (to) {
                        to.println(rank == -1 ? line : "[" + rank + "] " + line);
                        to.flush();
                    }
                }
            } catch (IOException e) {
                // the process is gone; nothing more to forward
            }
        }, "pario-launch-output-" + rank);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
