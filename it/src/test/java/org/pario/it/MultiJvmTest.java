package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Ranks in separate JVMs over TCP: started with Pario's environment and with MPICH's mpiexec; one killed. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MultiJvmTest {
    @TempDir
    Path rendezvous;

    private static List<String> java(final String mode) {
        return java(List.of("-Xmx256m"), JobMain.class, mode);
    }

    /** @return the command that runs {@code main} in a JVM of this test's Java and class path, with options */
    private static List<String> java(final List<String> options, final Class<?> main, final String... args) {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.addAll(options);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return command;
    }

    private List<Process> start(final int n, final String mode) throws IOException {
        return start(n, r -> java(mode));
    }

    private List<Process> start(final int n, final java.util.function.IntFunction<List<String>> command)
        throws IOException {
        return start(n, command, 2);
    }

    private List<Process> start(final int n, final java.util.function.IntFunction<List<String>> command,
                                final int failureTimeoutSeconds) throws IOException {
        final String job = "test-" + UUID.randomUUID();
        final List<Process> ranks = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            final ProcessBuilder pb = Processes.jobRank(r, n, job, rendezvous, failureTimeoutSeconds,
                command.apply(r));
            pb.environment().put("PARIO_STARTUP_TIMEOUT", "60");
            ranks.add(pb.start());
        }
        return ranks;
    }

    /** Sends a process a signal: STOP freezes it, its connections left open; CONT lets it go on. */
    private static void signal(final String name, final long pid) throws Exception {
        new ProcessBuilder("bash", "-c", "kill -" + name + " " + pid).start().waitFor();
    }

    /** @return the process's output, to read line by line while it runs */
    private static java.io.BufferedReader lines(final Process p) {
        return new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    }

    private static String output(final Process p) throws Exception {
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        return out;
    }

    @Test
    void fourJvmsRunCollectivesOverTcp() throws Exception {
        final List<Process> ranks = start(4, "collectives");
        for (int r = 0; r < 4; r++) {
            final String out = output(ranks.get(r));
            assertTrue(out.contains("rank " + r + " ok of 4"), "rank " + r + " printed:\n" + out);
            assertEquals(0, ranks.get(r).exitValue(), out);
        }
    }

    /**
     * A message beyond 2 GiB (2.25 GiB, more than one Netty buffer and more than an {@code int} of bytes) from a
     * derived type into a plain array: every value arrives, and the status counts every byte. The receiver probes
     * for it before it posts a receive, and its heap has no room for a second copy: the data must wait at the
     * sender until it is asked for (rendezvous), not arrive unasked. The receiver is frozen for 8 s as the message
     * leaves, so the sender, which finishes once its send returns, must stay until its data has been fetched and
     * has drained, past any fixed bound on leaving (it gives up only after the failure timeout, 20 s here, without
     * progress). Rank 0 holds a third of the data and its packed copy, rank 1 the array it receives into.
     */
    @Test
    void aMessageBeyondTwoGibArrivesWholeThroughAStalledReceiver() throws Exception {
        final long bytes = 8L * HugeMessageMain.BLOCK * HugeMessageMain.BLOCKS;
        final List<Process> ranks = start(2, r -> java(List.of(r == 0 ? "-Xmx1200m" : "-Xmx2700m",
            "-XX:MaxDirectMemorySize=3g", "-Dpario.sharedMemory=false"), HugeMessageMain.class), 20);
        final java.io.BufferedReader rank0 = lines(ranks.get(0));
        final String line = rank0.readLine();
        assertEquals("rank 0 sending", line);
        final long pid = ranks.get(1).pid();
        signal("STOP", pid);
        try {
            // the fault lasts 8 s, and rank 0 must not leave while its data cannot drain
            assertFalse(ranks.get(0).waitFor(8, TimeUnit.SECONDS), "rank 0 left with its message undelivered");
        } finally {
            signal("CONT", pid);
        }
        final StringBuilder out0 = new StringBuilder();
        for (String l = rank0.readLine(); l != null; l = rank0.readLine()) {
            out0.append(l).append('\n');
        }
        assertTrue(ranks.get(0).waitFor(60, TimeUnit.SECONDS));
        assertTrue(out0.toString().contains("rank 0 ok " + bytes), "rank 0 printed:\n" + out0);
        final String out1 = output(ranks.get(1));
        assertTrue(out1.contains("rank 1 ok " + bytes), "rank 1 printed:\n" + out1);
        assertEquals(0, ranks.get(0).exitValue(), out0.toString());
        assertEquals(0, ranks.get(1).exitValue(), out1);
    }

    @Test
    void aKilledRankFailsEveryOtherRankPromptlyNamingIt() throws Exception {
        final List<Process> ranks = start(4, "die");
        final Pattern failed = Pattern.compile("rank (\\d) failed after (\\d+) ms: (.*)");
        for (int r = 0; r < 4; r++) {
            final String out = output(ranks.get(r));
            if (r == 2) {
                assertEquals(9, ranks.get(r).exitValue(), "rank 2 halted itself");
                continue;
            }
            final Matcher m = failed.matcher(out);
            assertTrue(m.find(), "rank " + r + " printed:\n" + out);
            assertTrue(m.group(3).contains("rank 2"), "the error names the lost rank: " + m.group(3));
            assertTrue(Long.parseLong(m.group(2)) < 10_000, "failed within 10 s: " + m.group(2) + " ms");
            assertEquals(3, ranks.get(r).exitValue());
        }
    }

    @Test
    void aStoppedRankIsDeclaredFailedWhenItsHeartbeatsStop() throws Exception {
        final List<Process> ranks = start(3, "stop");
        final java.io.BufferedReader rank1 = lines(ranks.get(1));
        final String line = rank1.readLine();
        assertTrue(line != null && line.startsWith("pid "), "rank 1 printed: " + line);
        final long pid = ranks.get(1).pid();
        // freeze rank 1: its connections stay open, but it sends nothing, not even heartbeats
        signal("STOP", pid);
        try {
            final Pattern failed = Pattern.compile("rank (\\d) failed after (\\d+) ms: (.*)");
            for (final int r : new int[] {0, 2}) {
                final String out = output(ranks.get(r));
                final Matcher m = failed.matcher(out);
                assertTrue(m.find(), "rank " + r + " printed:\n" + out);
                assertTrue(m.group(3).contains("rank 1"), m.group(3));
                assertTrue(Long.parseLong(m.group(2)) < 10_000, "failed within 10 s: " + m.group(2) + " ms");
            }
        } finally {
            ranks.get(1).destroyForcibly();
            signal("CONT", pid);
        }
    }

    /**
     * A receiver frozen while an 8 GiB message streams to it (it asked for the data, so the sender packs only a few
     * blocks ahead of what the socket has taken, and waits for room): the sender must stop waiting once the
     * receiver is declared lost, and fail, naming it, within the failure timeout (2 s here), with no hang. The sender
     * has 1 GiB of direct memory for 8 GiB of data: without the bound on packing ahead it would run out.
     */
    @Test
    void aSenderWaitingForItsReceiverToTakeDataFailsWhenTheReceiverStops() throws Exception {
        final List<Process> ranks = start(2, r -> java(List.of("-Xmx256m", "-XX:MaxDirectMemorySize=1g"),
            JobMain.class, "stream"));
        final java.io.BufferedReader rank1 = lines(ranks.get(1));
        assertEquals("asked", rank1.readLine());
        final long pid = ranks.get(1).pid();
        signal("STOP", pid);
        try {
            final String out = output(ranks.get(0));
            final Matcher m = Pattern.compile("rank 0 failed after (\\d+) ms: (.*)").matcher(out);
            assertTrue(m.find(), "rank 0 exited with " + ranks.get(0).exitValue() + " and printed:\n" + out);
            assertTrue(m.group(2).contains("rank 1"), m.group(2));
            assertTrue(Long.parseLong(m.group(1)) < 10_000, "failed within 10 s: " + m.group(1) + " ms");
        } finally {
            ranks.get(1).destroyForcibly();
            signal("CONT", pid);
        }
    }

    /**
     * A send that must hold more data than the JVM's direct memory allows (256 MiB with 64 MiB of it, its receive not
     * yet posted, over TCP: through shared memory the data would wait in a file) fails with a MEMORY error that says
     * what to change, instead of an {@code OutOfMemoryError}; the receive posted later fails naming the sender
     * instead of waiting, and the job carries on.
     */
    @Test
    void aSendBeyondTheDirectMemoryLimitFailsClearlyAndTheJobCarriesOn() throws Exception {
        final List<Process> ranks = start(2, r -> java(List.of("-Xmx512m", "-XX:MaxDirectMemorySize=64m",
            "-Dpario.sharedMemory=false"), JobMain.class, "nomemory"));
        final String out0 = output(ranks.get(0));
        final String out1 = output(ranks.get(1));
        assertTrue(out0.contains("rank 0 send failed: MEMORY rank 0 has no direct memory left to hold a message of "
            + (8L << 25) + " bytes for rank 1"), out0);
        assertTrue(out0.contains("-XX:MaxDirectMemorySize"), out0);
        assertTrue(out1.contains("rank 1 receive failed: rank 0 could not send the data of this message"), out1);
        assertTrue(out0.contains("rank 0 then ok"), out0);
        assertTrue(out1.contains("rank 1 then ok"), out1);
        assertEquals(0, ranks.get(0).exitValue(), out0);
        assertEquals(0, ranks.get(1).exitValue(), out1);
    }

    /** Starts the 4-rank collectives job under another launcher and checks that every rank succeeded. */
    private void launcherStartsAWorkingFourRankJob(final String name, final List<String> launcher) throws Exception {
        final List<String> command = new ArrayList<>(launcher);
        command.addAll(java("collectives"));
        final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("PARIO_BIND", "127.0.0.1");
        pb.environment().put("PARIO_RENDEZVOUS_DIR", rendezvous.toString());
        final Process p = pb.start();
        final String out = output(p);
        for (int r = 0; r < 4; r++) {
            assertTrue(out.contains("rank " + r + " ok of 4"), name + " output:\n" + out);
        }
        assertEquals(0, p.exitValue(), out);
    }

    @Test
    void mpiexecStartsAWorkingFourRankJob() throws Exception {
        launcherStartsAWorkingFourRankJob("mpiexec", List.of(Mpich.mpiexec(), "-n", "4"));
    }

    /** Open MPI's mpirun: ranks find their rank, size and job from its OMPI_ and PMIX_ variables. */
    @Test
    void openMpiMpirunStartsAWorkingFourRankJob() throws Exception {
        final String mpirun = java.nio.file.Files.isExecutable(Path.of("/usr/bin/mpirun.openmpi"))
            ? "/usr/bin/mpirun.openmpi" : "mpirun.openmpi";
        launcherStartsAWorkingFourRankJob("mpirun", List.of(mpirun, "--allow-run-as-root", "--oversubscribe", "-n",
            "4", "-x", "PARIO_BIND", "-x", "PARIO_RENDEZVOUS_DIR"));
    }
}
