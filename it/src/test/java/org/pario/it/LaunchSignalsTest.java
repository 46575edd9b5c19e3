package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.pario.cli.Main;

/**
 * {@code pario launch} under signals: SIGINT, SIGTERM or SIGHUP to the launcher stops every rank, even ranks that
 * ignore SIGTERM, within a bound, and leaves no process and no {@code pario-launch-*} folder; ranks whose launcher
 * was killed outright leave by themselves; a job past its time limit is stopped.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LaunchSignalsTest {
    @TempDir
    Path tmp;
    /** Every launcher and rank a test started, stopped after it whatever it asserted. */
    private final List<ProcessHandle> started = new ArrayList<>();

    /**
     * A test that fails leaves its launcher and hung ranks behind (a launcher that inherited SIGINT as ignored, say,
     * does not stop on it); they would run on beside every later test and job on the machine.
     */
    @AfterEach
    void stopWhatIsLeft() {
        for (final ProcessHandle h : started) {
            h.descendants().forEach(ProcessHandle::destroyForcibly);
            h.destroyForcibly();
        }
    }

    /** A launcher of {@code ranks} hung ranks, its temporary folder inside the test's; its output merged. */
    private Process launcher(final int ranks, final String... options) throws Exception {
        final List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString(), "--enable-native-access=ALL-UNNAMED", "-Xmx128m", "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"),
            Main.class.getName(), "launch", "-n", Integer.toString(ranks)));
        command.addAll(List.of(options));
        command.add("--");
        command.addAll(Processes.java(HungRankMain.class));
        final Process launcher = new ProcessBuilder(command).redirectErrorStream(true).start();
        started.add(launcher.toHandle());
        return launcher;
    }

    /** Reads the launcher's output until every rank said it is ready; @return the ranks' pids */
    private List<Long> ready(final Process launcher, final int ranks, final StringBuilder seen)
        throws Exception {
        final BufferedReader in = new BufferedReader(new InputStreamReader(launcher.getInputStream(),
            StandardCharsets.UTF_8));
        final Pattern p = Pattern.compile("rank \\d+ pid (\\d+) ready");
        final List<Long> pids = new ArrayList<>();
        String line;
        while (pids.size() < ranks && (line = in.readLine()) != null) {
            seen.append(line).append('\n');
            final Matcher m = p.matcher(line);
            if (m.find()) {
                pids.add(Long.parseLong(m.group(1)));
                ProcessHandle.of(pids.get(pids.size() - 1)).ifPresent(started::add);
            }
        }
        assertEquals(ranks, pids.size(), seen.toString());
        final Thread drain = new Thread(() -> {
            try {
                String l;
                while ((l = in.readLine()) != null) {
                    synchronized (seen) {
                        seen.append(l).append('\n');
                    }
                }
            } catch (java.io.IOException e) {
                // the launcher is gone
            }
        });
        drain.setDaemon(true);
        drain.start();
        return pids;
    }

    private void assertNothingLeft(final List<Long> pids, final String what) throws Exception {
        for (final long pid : pids) {
            final var h = ProcessHandle.of(pid);
            if (h.isPresent()) {
                h.get().onExit().get(15, TimeUnit.SECONDS);
            }
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
                what + ": rank process " + pid + " is still running");
        }
        try (var left = Files.list(tmp)) {
            assertEquals(List.of(), left.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("pario-"))
                .toList(), what + ": temporary folders left behind");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"INT", "TERM", "HUP"})
    void aSignalToTheLauncherStopsHungRanksAndLeavesNothing(final String signal) throws Exception {
        final Process launcher = launcher(2);
        final StringBuilder seen = new StringBuilder();
        final List<Long> pids = ready(launcher, 2, seen);
        final long start = System.nanoTime();
        Processes.run("kill", "-" + signal, Long.toString(launcher.pid()));
        assertTrue(launcher.waitFor(30, TimeUnit.SECONDS), "the launcher ends: " + seen);
        final long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        assertNothingLeft(pids, "SIG" + signal);
        assertTrue(seconds <= 15, "stopped within 15 s, took " + seconds);
    }

    @Test
    void ranksWhoseLauncherWasKilledLeaveByThemselves() throws Exception {
        final Process launcher = launcher(2);
        final StringBuilder seen = new StringBuilder();
        final List<Long> pids = ready(launcher, 2, seen);
        Processes.run("kill", "-KILL", Long.toString(launcher.pid()));
        assertTrue(launcher.waitFor(10, TimeUnit.SECONDS));
        for (final long pid : pids) {
            final var h = ProcessHandle.of(pid);
            if (h.isPresent()) {
                h.get().onExit().get(15, TimeUnit.SECONDS);
            }
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "rank " + pid + " left");
        }
    }

    @Test
    void aJobPastItsTimeLimitIsStopped() throws Exception {
        final Process launcher = launcher(2, "--timeout", "5");
        final StringBuilder seen = new StringBuilder();
        final List<Long> pids = ready(launcher, 2, seen);
        assertTrue(launcher.waitFor(60, TimeUnit.SECONDS), seen.toString());
        assertEquals(124, launcher.exitValue(), seen.toString());
        assertNothingLeft(pids, "time limit");
        synchronized (seen) {
            assertTrue(seen.toString().contains("passed its time limit of 5 s"), seen.toString());
        }
    }
}
