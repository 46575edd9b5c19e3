package org.pario.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.pario.comm.LocalCluster;
import org.pario.io.array.Checkpoint;

/**
 * Injects one class of fault into 4-rank JVM jobs ({@link FaultJobMain}), run after run, and reports what
 * happened: hangs (a process still alive 60 s after the fault), wrong data (a check that read other bytes than
 * were written, or a checkpoint that no longer verifies), other problems (a rank that did not fail, or failed
 * with an error that does not name the cause or differs from the others' where errors are agreed) and the
 * worst time from the fault to the last rank's failure.
 */
final class FaultCampaign {
    /** Ranks per job. */
    static final int RANKS = 4;
    /** The rank faults are injected into: not rank 0, which also coordinates. */
    static final int VICTIM = 2;
    /** A job still running this long after its fault hangs. */
    private static final long HANG_MILLIS = 60_000;

    /** The fault classes. */
    enum Fault {
        KILL_IN_ALLREDUCE("SIGKILL of a rank at a random point of back-to-back allreduces", "reduce"),
        KILL_IN_STREAM("SIGKILL of a rank at a random point of a ring of 1 MiB messages (eager, unpacked into "
            + "posted receives as they arrive)", "stream"),
        KILL_IN_WRITE("SIGKILL of an aggregator at a random point of collective writes (each read back)", "write"),
        KILL_IN_READ("SIGKILL of an aggregator at a random point of collective reads", "read"),
        KILL_IN_CHECKPOINT("SIGKILL of a rank at a random point of back-to-back checkpoints", "checkpoint"),
        KILL_IN_ASYNC_CHECKPOINT("SIGKILL of a rank at a random point of back-to-back asynchronous checkpoints, the "
            + "job's allreduces going on meanwhile", "async-checkpoint"),
        THROW("a rank's code throws at a random allreduce (no abort call)", "reduce"),
        NEVER_ARRIVES("a rank never starts (start-up bound 5 s)", "reduce"),
        NETWORK_CUT("a host's link cut at a random point of allreduces (traffic dropped; failure timeout 2 s)",
            "reduce"),
        DISK_FULL("file system full in the middle of a checkpoint (6 MiB tmpfs, 16 MiB checkpoint)", "diskfull"),
        PERMISSION("one aggregator may not write the checkpoint (runs as another user)", "permission");

        final String description;
        final String mode;

        Fault(final String description, final String mode) {
            this.description = description;
            this.mode = mode;
        }
    }

    /** What the runs of one fault class showed. */
    record Outcome(Fault fault, int runs, int hangs, int wrongData, long worstMillis, List<String> problems,
                   List<String> lastErrors) {
        String row() {
            return "| " + fault.description + " | " + runs + " | " + hangs + " | " + wrongData + " | "
                + (worstMillis / 1000.0) + " s | " + problems.size() + " |";
        }
    }

    private FaultCampaign() {
    }

    /** Runs {@code runs} injections of one fault class. */
    static Outcome run(final Fault fault, final int runs, final long seed) throws Exception {
        final Random random = new Random(seed);
        int hangs = 0;
        int wrong = 0;
        long worst = 0;
        final List<String> problems = new ArrayList<>();
        List<String> lastErrors = List.of();
        for (int i = 0; i < runs; i++) {
            final Run r = new Run(fault, random);
            r.execute();
            lastErrors = r.errors;
            hangs += r.hung ? 1 : 0;
            wrong += r.wrong;
            worst = Math.max(worst, r.timeToFail);
            for (final String p : r.problems) {
                problems.add("run " + i + ": " + p);
            }
        }
        return new Outcome(fault, runs, hangs, wrong, worst, problems, lastErrors);
    }

    /** One job with one fault. */
    private static final class Run {
        private final Fault fault;
        private final Random random;
        private final List<Line> lines = Collections.synchronizedList(new ArrayList<>());
        private final List<String> problems = new ArrayList<>();
        private final String job = "fault-" + UUID.randomUUID();
        private final List<String> errors = new ArrayList<>();
        private boolean hung;
        private int wrong;
        private long timeToFail;

        /** A line a rank printed, and when the campaign read it. */
        private record Line(int rank, long nanos, String text) {
        }

        Run(final Fault fault, final Random random) {
            this.fault = fault;
            this.random = random;
        }

        void execute() throws Exception {
            final Path dir = Files.createTempDirectory("pario-fault-");
            Netns netns = null;
            boolean mounted = false;
            final Process[] ranks = new Process[RANKS];
            try {
                if (fault == Fault.DISK_FULL) {
                    Processes.run("mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", dir.toString());
                    mounted = true;
                }
                if (fault == Fault.NETWORK_CUT) {
                    netns = new Netns(RANKS);
                }
                final int throwAt = fault == Fault.THROW ? 1 + random.nextInt(300) : 0;
                final long started = System.nanoTime();
                for (int r = 0; r < RANKS; r++) {
                    if (fault == Fault.NEVER_ARRIVES && r == VICTIM) {
                        continue;
                    }
                    ranks[r] = start(r, dir, throwAt, netns);
                }
                long injected = inject(ranks, started, netns);
                final long deadline = injected + TimeUnit.MILLISECONDS.toNanos(HANG_MILLIS);
                for (final Process p : ranks) {
                    if (p != null && !p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                        hung = true;
                    }
                }
                if (hung) {
                    problems.add("hang: a rank was still running " + HANG_MILLIS / 1000 + " s after the fault\n"
                        + transcript());
                }
                judge(injected);
                if (fault == Fault.KILL_IN_CHECKPOINT || fault == Fault.KILL_IN_ASYNC_CHECKPOINT
                    || fault == Fault.DISK_FULL) {
                    checkCheckpoint(dir);
                }
            } finally {
                for (final Process p : ranks) {
                    if (p != null) {
                        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    }
                }
                if (netns != null) {
                    netns.close();
                }
                if (mounted) {
                    Processes.run("umount", dir.toString());
                }
                deleteTree(dir);
            }
        }

        private Process start(final int r, final Path dir, final int throwAt, final Netns netns) throws IOException {
            List<String> command = new ArrayList<>(Processes.java(FaultJobMain.class, fault.mode, dir.toString(),
                Integer.toString(VICTIM), Integer.toString(throwAt)));
            if (fault == Fault.PERMISSION && r == VICTIM) {
                // user nobody, still able to read every file (the class path), but not to write root's files
                command.addAll(0, List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                    "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search"));
            }
            if (netns != null) {
                command = netns.on(r, command);
            }
            final ProcessBuilder pb = Processes.rank(r, RANKS, command);
            pb.environment().put("PARIO_JOB", job);
            pb.environment().put("PARIO_TOKEN", "fault-campaign");
            pb.environment().put("PARIO_STARTUP_TIMEOUT", fault == Fault.NEVER_ARRIVES ? "5" : "60");
            pb.environment().put("PARIO_FAILURE_TIMEOUT", "2");
            if (netns != null) {
                pb.environment().put("PARIO_COORDINATOR", Netns.hostName(0) + ":7077");
            } else {
                pb.environment().put("PARIO_RENDEZVOUS_DIR", dir.resolve("..").normalize()
                    .resolve(dir.getFileName() + ".rendezvous").toString());
                pb.environment().put("PARIO_BIND", "127.0.0.1");
            }
            final Process p = pb.start();
            final Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                    for (String s; (s = in.readLine()) != null; ) {
                        synchronized (lines) {
                            lines.add(new Line(r, System.nanoTime(), s));
                            lines.notifyAll();
                        }
                    }
                } catch (IOException e) {
                    // the process is gone
                }
            }, "fault-reader-" + r);
            reader.setDaemon(true);
            reader.start();
            return p;
        }

        /** Injects the fault; returns when it took effect (System.nanoTime). */
        private long inject(final Process[] ranks, final long started, final Netns netns) throws Exception {
            switch (fault) {
                case NEVER_ARRIVES:
                    return started;
                case THROW:
                    return awaitLine(VICTIM, "rank " + VICTIM + " throwing", 120);
                case DISK_FULL:
                case PERMISSION:
                    return awaitLine(-1, " begin", 120);
                default:
                    for (int r = 0; r < RANKS; r++) {
                        awaitLine(r, "rank " + r + " ready", 120);
                    }
                    // the fault lands at a random moment of the loop: the campaign covers every phase of the calls
                    Thread.sleep(random.nextInt(1000));
                    if (fault == Fault.NETWORK_CUT) {
                        netns.cut(VICTIM);
                    } else {
                        ranks[VICTIM].destroyForcibly();
                    }
                    return System.nanoTime();
            }
        }

        /** @return when the first line of {@code rank} (any rank if negative) containing {@code text} was read */
        private long awaitLine(final int rank, final String text, final int seconds) throws Exception {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            synchronized (lines) {
                for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
                    for (final Line l : lines) {
                        if ((rank < 0 || l.rank == rank) && l.text.contains(text)) {
                            return l.nanos;
                        }
                    }
                    TimeUnit.NANOSECONDS.timedWait(lines, left);
                }
            }
            throw new IllegalStateException(fault + ": no rank printed '" + text + "' in " + seconds + " s\n"
                + transcript());
        }

        /** Every rank that was not the fault's victim must fail, naming the cause; agreed errors must agree. */
        private void judge(final long injected) {
            final List<String> messages = new ArrayList<>();
            final boolean everyRankFails = fault == Fault.DISK_FULL || fault == Fault.PERMISSION
                || fault == Fault.NETWORK_CUT;
            for (int r = 0; r < RANKS; r++) {
                if (r == VICTIM && !everyRankFails) {
                    continue;
                }
                Line failed = null;
                synchronized (lines) {
                    for (final Line l : lines) {
                        if (l.rank == r && l.text.startsWith("rank " + r + " wrong: ")) {
                            wrong++;
                            problems.add("wrong data: " + l.text);
                        }
                        if (l.rank == r && l.text.startsWith("rank " + r + " failed: ") && failed == null) {
                            failed = l;
                        }
                    }
                }
                if (failed == null) {
                    problems.add("rank " + r + " did not fail\n" + transcript());
                    continue;
                }
                timeToFail = Math.max(timeToFail, TimeUnit.NANOSECONDS.toMillis(failed.nanos - injected));
                final String message = failed.text.substring(("rank " + r + " failed: ").length());
                messages.add(message);
                errors.add("rank " + r + ": " + message);
                final String expected = switch (fault) {
                    case NEVER_ARRIVES -> "start-up: ranks [" + VICTIM + "] did not arrive";
                    case DISK_FULL -> "No space left";
                    case PERMISSION -> "denied";
                    default -> r == VICTIM ? "rank " : "rank " + VICTIM;
                };
                if (!message.contains(expected)) {
                    problems.add("rank " + r + "'s error does not name the cause ('" + expected + "'): " + message);
                }
            }
            if ((fault == Fault.DISK_FULL || fault == Fault.PERMISSION || fault == Fault.NEVER_ARRIVES) && messages.stream().distinct().count() > 1) {
                problems.add("the ranks' errors differ: " + messages);
            }
        }

        /** The checkpoint left behind must verify and hold one whole iteration; no hidden file may be left. */
        private void checkCheckpoint(final Path dir) throws IOException {
            final String file = dir.resolve("ckpt").toString();
            try {
                final org.pario.io.array.CheckpointHeader h = Checkpoint.at(file).header();
                final long iteration = h.attributes().getLong("iteration");
                final long elements = h.array("a").shape()[0];
                LocalCluster.run(2, world -> {
                    Checkpoint.at(file).verify(world);
                    final var array = FaultJobMain.array(world, elements);
                    final var part = array.local();
                    final double[] v = Checkpoint.at(file).restore("a", array);
                    for (int k = 0; k < v.length; k++) {
                        if (v[k] != iteration * 1e7 + part.globalLinear(k)) {
                            throw new IllegalStateException("element " + part.globalLinear(k) + " holds " + v[k]
                                + ", not iteration " + iteration + "'s value");
                        }
                    }
                });
                if (fault == Fault.DISK_FULL && iteration != 0) {
                    problems.add("the checkpoint that cannot fit claims to be complete");
                }
            } catch (RuntimeException e) {
                wrong++;
                problems.add("the checkpoint left behind is damaged: " + e.getMessage());
            }
            try (Stream<Path> s = Files.list(dir)) {
                final List<Path> debris = s.filter(p -> !p.getFileName().toString().equals("ckpt")).toList();
                if (!debris.isEmpty()) {
                    problems.add("files left behind: " + debris);
                }
            }
        }

        private String transcript() {
            final StringBuilder b = new StringBuilder();
            synchronized (lines) {
                for (final Line l : lines) {
                    b.append("  [").append(l.rank).append("] ").append(l.text).append('\n');
                }
            }
            return b.toString();
        }
    }

    private static void deleteTree(final Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (final Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
        final Path rendezvous = dir.resolve("..").normalize().resolve(dir.getFileName() + ".rendezvous");
        if (Files.exists(rendezvous)) {
            try (Stream<Path> s = Files.walk(rendezvous)) {
                for (final Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
