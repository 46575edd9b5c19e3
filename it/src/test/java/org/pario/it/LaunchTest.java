package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.cli.Main;

/** {@code pario launch} starting real JVM ranks. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LaunchTest {
    private static String[] launch(final int n, final String mode) {
        final List<String> args = new ArrayList<>(List.of("launch", "-n", Integer.toString(n), "--",
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-cp",
            System.getProperty("java.class.path"), JobMain.class.getName(), mode));
        return args.toArray(new String[0]);
    }

    @Test
    void launchStartsAJobAndPrefixesOutputWithRanks() {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = Main.run(new PrintWriter(out), new PrintWriter(err), launch(3, "collectives"));
        assertEquals(0, code, out + "\n" + err);
        for (int r = 0; r < 3; r++) {
            assertTrue(out.toString().contains("[" + r + "] rank " + r + " ok of 3"), out.toString());
        }
    }

    @Test
    void launchExitsWithTheFirstFailureAndStopsTheRest() {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = Main.run(new PrintWriter(out), new PrintWriter(err), launch(4, "die"));
        assertNotEquals(0, code, out.toString());
        assertTrue(err.toString().contains("exited with status"), err.toString());
    }

    /**
     * A launched rank's C library backs large allocations with transparent huge pages, so that the buffers of its
     * direct storage accesses are physically contiguous: 64 MiB of them are at least half huge pages (the kernel may
     * lack a free huge page now and then; without the setting none are).
     */
    @Test
    void launchedRanksBackDirectBuffersWithHugePages() throws Exception {
        final String thp = java.nio.file.Files.readString(Path.of("/sys/kernel/mm/transparent_hugepage/enabled"));
        assertTrue(thp.contains("[madvise]") || thp.contains("[always]"),
            "the machines the project runs on offer transparent huge pages on request: " + thp);
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = Main.run(new PrintWriter(out), new PrintWriter(err), new String[] {"launch", "-n", "1", "--",
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-cp",
            System.getProperty("java.class.path"), HugePagesMain.class.getName()});
        assertEquals(0, code, out + "\n" + err);
        final java.util.regex.Matcher m = java.util.regex.Pattern
            .compile("tunables=(\\S+) buffers=16 hugeKiB=(-?\\d+)").matcher(out.toString());
        assertTrue(m.find(), out.toString());
        assertTrue((":" + m.group(1)).contains(":glibc.malloc.hugetlb=1"), m.group(1));
        assertTrue(Long.parseLong(m.group(2)) >= 32 * 1024, out.toString());
    }

    /** The CPUs a process may run on, as this system lists them ({@code 0-3,6}). */
    private static String allowedCpus(final String status) {
        for (final String line : status.split("\n")) {
            if (line.contains("Cpus_allowed_list:")) {
                return line.substring(line.indexOf(':') + 1).trim();
            }
        }
        throw new AssertionError("no Cpus_allowed_list in " + status);
    }

    private static String launchPrintingAffinity(final int n, final String... options) {
        final List<String> args = new ArrayList<>(List.of("launch", "-n", Integer.toString(n)));
        args.addAll(List.of(options));
        args.addAll(List.of("--", "sh", "-c",
            "echo cpus=$PARIO_CPUS; echo host=$PARIO_HOST_CPUS; grep Cpus_allowed_list /proc/self/status"));
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        assertEquals(0, Main.run(new PrintWriter(out), new PrintWriter(err), args.toArray(new String[0])),
            out + "\n" + err);
        return out.toString();
    }

    /**
     * {@code --bind-to cores} runs each rank on an equal share of the launcher's CPUs of its own when the ranks fit;
     * ranks that outnumber the CPUs run on one each, in snake order, unless {@code --bind-to none}; ranks that fit
     * run anywhere by default.
     */
    @Test
    void ranksBoundToCoresRunOnSharesOfTheirOwn() throws Exception {
        final String mine = allowedCpus(java.nio.file.Files.readString(Path.of("/proc/self/status")));
        final int cpus = (int) java.util.Arrays.stream(mine.split(","))
            .mapToLong(p -> p.contains("-") ? Long.parseLong(p.split("-")[1]) - Long.parseLong(p.split("-")[0]) + 1 : 1)
            .sum();
        assertTrue(cpus >= 2, "this test needs 2 CPUs, the machines the project runs on have them: " + cpus);
        final String bound = launchPrintingAffinity(2, "--bind-to", "cores");
        final java.util.Set<String> seen = new java.util.HashSet<>();
        for (int r = 0; r < 2; r++) {
            final String prefix = "[" + r + "] ";
            final String cpusLine = bound.lines().filter(l -> l.startsWith(prefix + "cpus=")).findFirst().orElseThrow();
            final String share = cpusLine.substring((prefix + "cpus=").length());
            assertEquals(share, allowedCpus(bound.lines().filter(l -> l.startsWith(prefix + "Cpus_allowed_list"))
                .findFirst().orElseThrow()), bound);
            assertEquals(cpus / 2, share.split(",").length, bound);
            assertTrue(seen.add(share), "two ranks share CPUs: " + bound);
        }
        // more ranks than CPUs, by default: one CPU each, in snake order
        final String crowded = launchPrintingAffinity(2 * cpus);
        final List<String> cpuOf = new java.util.ArrayList<>();
        for (int r = 0; r < 2 * cpus; r++) {
            final String prefix = "[" + r + "] ";
            final String share = crowded.lines().filter(l -> l.startsWith(prefix + "cpus=")).findFirst().orElseThrow()
                .substring((prefix + "cpus=").length());
            assertEquals(share, allowedCpus(crowded.lines().filter(l -> l.startsWith(prefix + "Cpus_allowed_list"))
                .findFirst().orElseThrow()), crowded);
            assertFalse(share.contains(",") || share.contains("-"), "one CPU per crowded rank: " + crowded);
            cpuOf.add(share);
        }
        assertEquals(cpus, new java.util.HashSet<>(cpuOf).size(), "every CPU used: " + crowded);
        // each rank learns how many CPUs the host's ranks share, which its bound JVM no longer sees
        assertEquals(2 * cpus, crowded.lines().filter(l -> l.endsWith("host=" + cpus)).count(), crowded);
        for (int r = 0; r < cpus; r++) {
            assertEquals(cpuOf.get(r), cpuOf.get(2 * cpus - 1 - r), "snake order: " + crowded);
        }
        // ranks that fit, by default, and no binding asked for: every rank may run where the launcher may
        for (final String unbound : new String[] {launchPrintingAffinity(2), launchPrintingAffinity(2 * cpus,
            "--bind-to", "none")}) {
            assertTrue(unbound.lines().filter(l -> l.contains("Cpus_allowed_list"))
                .allMatch(l -> allowedCpus(l).equals(mine)), unbound);
            assertTrue(unbound.lines().filter(l -> l.contains("cpus=")).allMatch(l -> l.endsWith("cpus=")), unbound);
        }
    }
}
