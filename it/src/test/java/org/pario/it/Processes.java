package org.pario.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starting the processes of multi-JVM tests: ranks on this test's class path, and system commands. */
final class Processes {
    private Processes() {
    }

    /** @return the command that runs {@code main} with {@code args} in a JVM of this test's class path (256 MiB) */
    static List<String> java(final Class<?> main, final String... args) {
        final List<String> c = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString(), "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-cp", System.getProperty("java.class.path"), main.getName()));
        c.addAll(List.of(args));
        return c;
    }

    /** @return a builder for rank {@code rank} of {@code size} running {@code command}, output and errors merged */
    static ProcessBuilder rank(final int rank, final int size, final List<String> command) {
        final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("PARIO_RANK", Integer.toString(rank));
        pb.environment().put("PARIO_SIZE", Integer.toString(size));
        return pb;
    }

    /**
     * A builder for rank {@code rank} of {@code size} of a job of JVMs that find each other on this machine: the
     * job's name and rendezvous folder, loopback, and how long a silent peer may stay silent (0 keeps the default).
     */
    static ProcessBuilder jobRank(final int rank, final int size, final String job, final Path rendezvous,
                                  final int failureTimeoutSeconds, final List<String> command) {
        final ProcessBuilder pb = rank(rank, size, command);
        pb.environment().put("PARIO_JOB", job);
        pb.environment().put("PARIO_RENDEZVOUS_DIR", rendezvous.toString());
        pb.environment().put("PARIO_BIND", "127.0.0.1");
        if (failureTimeoutSeconds > 0) {
            pb.environment().put("PARIO_FAILURE_TIMEOUT", Integer.toString(failureTimeoutSeconds));
        }
        return pb;
    }

    /** Runs a system command to its end (at most 30 s); fails with its output unless it exits with 0. */
    static void run(final String... command) throws IOException {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " failed: " + out.trim());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
