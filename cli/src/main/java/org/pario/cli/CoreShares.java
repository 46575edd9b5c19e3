package org.pario.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Which cores each rank of a launch runs on ({@code pario launch --bind-to cores}). A rank whose JVM the scheduler
 * moves between cores, or puts on the core of the rank it exchanges data with, loses its caches and its turn: 2
 * ranks over loopback, a 16 MiB message and its answer took 3.1-3.3 ms with each rank on a core of its own against
 * 3.8-3.9 ms unbound (Open MPI binds its ranks to cores by default). But whole benchmarks moved both ways (a 64 MiB
 * broadcast between 2 ranks 15.2-15.6 ms bound against 9.4-10.2), so ranks run unbound unless asked. A JVM is many
 * threads (compiler, collector, Pario's event loop), so a rank gets an equal share of the cores, not one, where there
 * are more cores than ranks. Ranks that outnumber the cores are not bound: each needs to run wherever a core is free.
 */
final class CoreShares {
    private static final Path STATUS = Path.of("/proc/self/status");
    private static final Path TASKSET = Path.of("/usr/bin/taskset");

    private CoreShares() {
    }

    /**
     * @param ranks how many ranks the launch starts on this machine
     * @return one CPU list per rank (as {@code taskset -c} takes it), or an empty list where the ranks outnumber
     *         the cores this process may use, or where this system cannot bind (no {@code /proc} or no taskset)
     */
    static List<String> of(final int ranks) {
        final List<Integer> cpus = allowedCpus();
        if (ranks < 1 || cpus.size() < ranks || !Files.isExecutable(TASKSET)) {
            return List.of();
        }
        final int each = cpus.size() / ranks;
        final List<String> shares = new ArrayList<>(ranks);
        for (int r = 0; r < ranks; r++) {
            final StringBuilder list = new StringBuilder();
            for (int k = 0; k < each; k++) {
                list.append(k == 0 ? "" : ",").append(cpus.get(r * each + k));
            }
            shares.add(list.toString());
        }
        return shares;
    }

    /** @return {@code command} run on the CPUs of {@code share} */
    static List<String> bound(final String share, final List<String> command) {
        final List<String> bound = new ArrayList<>(command.size() + 3);
        bound.add(TASKSET.toString());
        bound.add("-c");
        bound.add(share);
        bound.addAll(command);
        return bound;
    }

    /** @return the CPUs this process may run on, in order; empty where the system does not say */
    static List<Integer> allowedCpus() {
        try {
            for (final String line : Files.readAllLines(STATUS)) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return parse(line.substring("Cpus_allowed_list:".length()).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or a /proc this code does not understand: ranks run unbound
        }
        return List.of();
    }

    /** @return the CPUs of a list such as {@code 0-3,8,10-11} */
    static List<Integer> parse(final String list) {
        final List<Integer> cpus = new ArrayList<>();
        for (final String part : list.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            final int dash = part.indexOf('-');
            final int from = Integer.parseInt(part.substring(0, dash < 0 ? part.length() : dash).trim());
            final int to = dash < 0 ? from : Integer.parseInt(part.substring(dash + 1).trim());
            for (int c = from; c <= to; c++) {
                cpus.add(c);
            }
        }
        return cpus;
    }
}
