package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short soak in the suite: 64 ranks as threads, and 16 JVM ranks with Netty's paranoid leak detection, running
 * every kind of collective and a collective write and read again and again; no wrong result, no leak report, and
 * the heap after a full GC no larger at the end than at the start (within a margin). {@code bench/run-soak.sh}
 * runs it for longer.
 */
// the bound of each soak is BOUND, which follows its length; the suite's default timeout would cut long ones short
@org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.HOURS)
class SoakTest {
    private static final int SECONDS = Integer.getInteger("pario.soak.seconds", 5);
    /** The bound of each soak: its own length, start-up of 16 JVMs on 2 cores, and the final checks. */
    private static final java.time.Duration BOUND = java.time.Duration.ofSeconds(2L * SECONDS + 240);
    private static final Pattern LINE = Pattern.compile("soak (\\d+) (\\d+) (\\d+) (\\d+)");

    @TempDir
    Path dir;

    private static long[] parse(final String out) {
        final Matcher m = LINE.matcher(out);
        assertTrue(m.find(), "no soak line in:\n" + out);
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
            Long.parseLong(m.group(4))};
    }

    @Test
    void sixtyFourThreadRanks() {
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(BOUND, this::sixtyFourThreads);
    }

    @Test
    void sixteenJvmRanksWithLeakDetection() {
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(BOUND, this::sixteenJvms);
    }

    private void sixtyFourThreads() throws Exception {
        final java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
        final java.io.PrintStream old = System.out;
        System.setOut(new java.io.PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            SoakMain.main(new String[] {"threads", "64", Integer.toString(SECONDS),
                dir.toString()});
        } finally {
            System.setOut(old);
        }
        final long[] s = parse(buf.toString(StandardCharsets.UTF_8));
        System.out.println("soak threads: " + s[0] + " ranks, " + s[1] + " iterations, heap " + s[2] + " -> " + s[3]
            + " MiB");
        assertEquals(64, s[0]);
        assertTrue(s[1] >= 2, "iterations: " + s[1]);
        assertTrue(s[3] <= s[2] + 64, "heap grew from " + s[2] + " to " + s[3] + " MiB");
    }

    private void sixteenJvms() throws Exception {
        final int n = 16;
        final String job = "soak-" + UUID.randomUUID();
        final List<Process> ranks = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            final ProcessBuilder pb = Processes.jobRank(r, n, job, dir, 0, List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx96m",
                "-XX:TieredStopAtLevel=1", "-Dio.netty.leakDetection.level=paranoid", "-cp",
                System.getProperty("java.class.path"), SoakMain.class.getName(), "jvm", Integer.toString(SECONDS),
                dir.toString()));
            pb.environment().put("PARIO_STARTUP_TIMEOUT", "120");
            ranks.add(pb.start());
        }
        final StringBuilder all = new StringBuilder();
        for (final Process p : ranks) {
            all.append(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            assertTrue(p.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), all.toString());
        }
        final long[] s = parse(all.toString());
        System.out.println("soak JVMs: " + s[0] + " ranks, " + s[1] + " iterations, rank 0 heap " + s[2] + " -> "
            + s[3] + " MiB, leak reports: " + (all.toString().contains("LEAK:") ? "yes" : "none"));
        assertEquals(16, s[0]);
        assertFalse(all.toString().contains("LEAK:"), "Netty reported a leak:\n" + all);
        assertTrue(s[3] <= s[2] + 32, "rank 0's heap grew from " + s[2] + " to " + s[3] + " MiB");
    }
}
