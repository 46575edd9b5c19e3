package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.io.array.Checkpoint;
import org.pario.io.array.Element;

/**
 * Jobs under a real Slurm: a one-node cluster on this machine ({@code bin/slurm-test-cluster}, which
 * {@code bin/setup-test-deps} makes possible by installing Debian's slurm-wlm and munge), ranks started by
 * {@code srun} and by an {@code sbatch} script finding each other through Slurm's variables alone; and a job across
 * three hosts, on a cluster of three nodes in network namespaces ({@link SlurmHosts}).
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SlurmTest {
    private static final Path CLUSTER = Path.of("..", "bin", "slurm-test-cluster").toAbsolutePath().normalize();

    @TempDir
    Path dir;

    @BeforeAll
    static void startSlurm() throws Exception {
        final String[] r = run(List.of(CLUSTER.toString(), "start"), 120);
        assertEquals("0", r[0], "Slurm must run for these tests (root, slurm-wlm and munge: bin/setup-test-deps): "
            + r[1]);
    }

    @AfterAll
    static void stopSlurm() throws Exception {
        run(List.of(CLUSTER.toString(), "stop"), 60);
    }

    /** @return {exit code, output and errors} */
    private static String[] run(final List<String> command, final int seconds) throws Exception {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " still runs after " + seconds + " s: " + out);
        }
        return new String[] {Integer.toString(p.exitValue()), out};
    }

    private static List<String> srun(final int tasks, final String... args) {
        final List<String> c = new ArrayList<>(List.of("srun", "-n", Integer.toString(tasks), "--partition", "pario"));
        c.addAll(Processes.java(SlurmJobMain.class, args));
        return c;
    }

    @Test
    void srunWritesACheckpointOnFourTasksAndRestoresItOnThree() throws Exception {
        final String file = dir.resolve("a.ckpt").toString();
        final String[] w = run(srun(4, "write", file), 120);
        assertEquals("0", w[0], w[1]);
        for (int r = 0; r < 4; r++) {
            assertTrue(w[1].contains("rank " + r + " of 4 ok"), w[1]);
        }
        assertEquals(4, Checkpoint.at(file).header().ranks(), "written by the 4 tasks Slurm started");
        final String[] back = run(srun(3, "restore", file), 120);
        assertEquals("0", back[0], back[1]);
        assertTrue(back[1].contains("rank 2 of 3 ok"), back[1]);
        final double[] all = Checkpoint.at(file).read("a", Element.DOUBLE);
        final double[] want = new double[all.length];
        for (int i = 0; i < want.length; i++) {
            want[i] = i;
        }
        assertArrayEquals(want, all);
    }

    @Test
    void anSbatchScriptCheckpointsAndRestartsTheHeatSolverBitwiseIdentically() throws Exception {
        Files.createDirectories(dir.resolve("straight"));
        Files.createDirectories(dir.resolve("restarted"));
        final String straight = dir.resolve("straight").toString();
        final String restarted = dir.resolve("restarted").toString();
        final Path script = dir.resolve("heat.sbatch");
        final Path output = dir.resolve("job.out");
        Files.writeString(script, String.join("\n",
            "#!/bin/bash",
            "#SBATCH --ntasks=4",
            "#SBATCH --partition=pario",
            "#SBATCH --output=" + output,
            "set -euo pipefail",
            line(srun(4, "heat", straight, "120", "60")),
            line(srun(4, "heat", restarted, "60", "30")),
            line(srun(3, "heat", restarted, "120", "30", restarted + "/step-60.ckpt")),
            line(srun(1, "compare", straight + "/step-120.ckpt", restarted + "/step-120.ckpt")),
            ""));
        final String[] r = run(List.of("sbatch", "--wait", script.toString()), 240);
        final String out = Files.exists(output) ? Files.readString(output) : "(no output file)";
        assertEquals("0", r[0], r[1] + out);
        assertTrue(out.contains("identical: 6300 values"), out);
        assertTrue(out.contains("last checkpoint: " + restarted + "/step-120.ckpt"), out);
    }

    private static String line(final List<String> command) {
        return String.join(" ", command.stream().map(a -> "'" + a.replace("'", "'\\''") + "'").toList());
    }

    @Test
    void aTaskKilledMidJobFailsTheOthersPromptlyNamingItAndTheStepEnds() throws Exception {
        final Process srun = new ProcessBuilder(srun(4, "loop")).redirectErrorStream(true).start();
        final Map<Integer, Long> pids = new ConcurrentHashMap<>();
        final java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(4);
        final List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
        final Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(srun.getInputStream(),
                StandardCharsets.UTF_8))) {
                for (String l = in.readLine(); l != null; l = in.readLine()) {
                    lines.add(l);
                    final String[] f = l.split(" ");
                    if (f.length == 4 && f[0].equals("rank") && f[2].equals("pid")) {
                        pids.put(Integer.parseInt(f[1]), Long.parseLong(f[3]));
                        started.countDown();
                    }
                }
            } catch (java.io.IOException e) {
                lines.add("reading failed: " + e);
            }
        });
        reader.start();
        // each task prints its pid just before its loop of allreduces
        assertTrue(started.await(90, TimeUnit.SECONDS), "every task started: " + lines);
        final long killed = System.nanoTime();
        run(List.of("kill", "-KILL", Long.toString(pids.get(2))), 10);
        assertTrue(srun.waitFor(60, TimeUnit.SECONDS), "the step ends after a task dies: " + lines);
        final double seconds = (System.nanoTime() - killed) / 1e9;
        reader.join(10_000);
        assertNotEquals(0, srun.exitValue(), "srun reports the failed step");
        for (final int r : new int[] {0, 1, 3}) {
            final String failed = lines.stream().filter(l -> l.startsWith("rank " + r + " failed: ")).findFirst()
                .orElseThrow(() -> new AssertionError("rank " + r + " did not fail: " + lines));
            assertTrue(failed.contains("rank 2"), failed);
        }
        assertTrue(seconds < 30, "the step ended " + seconds + " s after the kill");
    }

    /**
     * A job across three hosts (network namespaces, each with its own slurmd, as {@link SlurmHosts} sets up): the
     * ranks on different hosts find each other through Slurm's variables alone, each reports the host Slurm
     * placed it on, {@code cb_config_list *:1} gives one aggregator per host, and a checkpoint written across
     * the hosts restores with every value in place.
     */
    @Test
    void aJobAcrossThreeHostsFindsItsRanksAndPutsOneAggregatorOnEachHost() throws Exception {
        assertEquals(null, Netns.unavailable(), "a Slurm job across hosts runs on network namespaces");
        final Path file = dir.resolve("hosts.ckpt");
        try (Netns hosts = new Netns(3); SlurmHosts cluster = new SlurmHosts(hosts, 3, dir.resolve("slurm"))) {
            final List<String> command = new ArrayList<>(List.of("srun", "-N", "3", "-n", "4", "--partition",
                "hosts"));
            command.addAll(Processes.java(SlurmJobMain.class, "hosts", file.toString()));
            final ProcessBuilder pb = cluster.client(command);
            // the two clusters number their jobs alike: rendezvous files of their own
            pb.environment().put("PARIO_RENDEZVOUS_DIR", dir.toString());
            final Process srun = pb.start();
            final String out = new String(srun.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(srun.waitFor(120, TimeUnit.SECONDS), "the job ended: " + out);
            assertEquals(0, srun.exitValue(), out + "\n" + cluster.logs());
            final java.util.Set<String> seen = new java.util.TreeSet<>();
            for (int r = 0; r < 4; r++) {
                final String prefix = "rank " + r + " host ";
                final String line = out.lines().filter(l -> l.startsWith(prefix)).findFirst()
                    .orElseThrow(() -> new AssertionError("no " + prefix + "line: " + out));
                final String[] f = line.substring(prefix.length()).split(" slurm node ");
                assertEquals(f[1], f[0], "rank " + r + " runs on the host Slurm reports: " + line);
                seen.add(f[0]);
                assertTrue(out.contains("rank " + r + " cb_nodes 3"), "one aggregator per host: " + out);
                assertTrue(out.contains("rank " + r + " of 4 ok"), out);
            }
            assertEquals(java.util.Set.of("node0", "node1", "node2"), seen, out);
        }
        assertEquals(4, Checkpoint.at(file).header().ranks(), "written by the 4 tasks on 3 hosts");
    }
}
