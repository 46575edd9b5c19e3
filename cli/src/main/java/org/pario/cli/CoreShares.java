package org.pario.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Which cores each rank of a launch runs on ({@code pario launch --bind-to auto|cores|none}). A rank whose JVM the
 * scheduler moves between cores, or puts on the core of the rank it exchanges data with, loses its caches and its
 * turn, and a large message between 2 ranks was faster with each on a core of its own (Open MPI binds its ranks to
 * cores by default). But whole benchmarks moved both ways, so ranks that fit run unbound unless asked
 * (docs/history/benchmarks-2026-11.md).
 * A JVM is many threads (compiler, collector, Pario's event loop), so a rank gets an equal share of the cores, not
 * one, where there are more cores than ranks.
 *
 * <p>Ranks that outnumber the cores are bound by default, one core each, in snake order (ranks 0, 1, ..., c-1 on cores
 * 0 to c-1, then c, ..., 2c-1 back from core c-1 to 0, and so on). Such ranks wait by polling and yielding their core
 * ({@code comm.md}, "The waiting thread drives the event loop"), and a yield hands the core only to threads queued on
 * the same one: unbound, a waiter could yield to nobody while the rank it waits for sat queued on the other core, and
 * the scheduler's placement changed from second to second, and with it a barrier's time. Snake order puts
 * neighbours (rank 0 and 1 of a ping-pong, r and r+1 of a halo exchange) on different cores, and rank 0, where the
 * small collectives gather, with the last rank, which the root serves last.
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

    /**
     * @param ranks how many ranks the launch starts on this machine
     * @return one CPU per rank, in snake order over the CPUs this process may use, where the ranks outnumber them;
     *         otherwise, or where this system cannot bind, an empty list
     */
    static List<String> crowded(final int ranks) {
        final List<Integer> cpus = allowedCpus();
        if (cpus.isEmpty() || ranks <= cpus.size() || !Files.isExecutable(TASKSET)) {
            return List.of();
        }
        final List<String> shares = new ArrayList<>(ranks);
        for (int r = 0; r < ranks; r++) {
            shares.add(Integer.toString(cpus.get(snake(r, cpus.size()))));
        }
        return shares;
    }

    /** @return the index of the core of rank {@code rank} among {@code cores} in snake order */
    static int snake(final int rank, final int cores) {
        final int lap = rank / cores;
        final int step = rank % cores;
        return lap % 2 == 0 ? step : cores - 1 - step;
    }

    /**
     * @param ranks how many ranks the launch starts on this machine
     * @param mode  {@code auto}: bound only where they outnumber the cores; {@code cores}: always; {@code none}
     * @return one CPU list per rank, or an empty list for ranks left unbound
     * @throws IllegalArgumentException when {@code mode} is none of the three, its message to follow the setting's name
     */
    static List<String> forMode(final int ranks, final String mode) {
        return switch (mode) {
            case "none" -> List.of();
            case "auto" -> crowded(ranks);
            case "cores" -> {
                final List<String> fitting = of(ranks);
                yield fitting.isEmpty() ? crowded(ranks) : fitting;
            }
            default -> throw new IllegalArgumentException("must be auto, cores or none, got '" + mode + "'");
        };
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
