package org.pario.cli;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.comm.Pario;
import org.pario.datatypes.Datatype;

/**
 * The body of {@code pario bench comm}: latency and bandwidth between ranks in separate JVMs over TCP: a
 * ping-pong between ranks 0 and 1, and the collectives barrier, bcast, allreduce, gather and alltoall, from 8 B to
 * 64 MiB per rank. Rank 0 prints one line per (operation, size): the median time of an operation in microseconds
 * (the slowest rank's median; for the ping-pong, half the round trip, the time of one message) and, for sizes of
 * 64 KiB and more, the bandwidth in MiB/s (bytes per rank divided by the time). The same format as
 * {@code bench/c/comm_bench.c}, so the two can be compared line by line. The buffers are {@code double[]} arrays, or
 * direct {@code ByteBuffer}s of the same bytes, which large messages leave from and land in without a copy. With
 * {@code windows}, each line is followed by a comment {@code # timed OPERATION BYTES START END SETTLE}: when rank 0
 * timed its calls, in seconds of the machine's monotonic clock (the one {@code bench/c/placement.c} prints), so that
 * a cell can be matched against how the host placed the CPUs while it was measured, and how long the untimed calls
 * before them ran until the JIT compilers were idle. Each cell is timed in that steady state, as a long job runs.
 */
final class CommBenchmark {
    private static final long[] SIZES = {8, 65536, 1 << 20, 16 << 20, 64 << 20};
    /**
     * The untimed warm-up before the first measurement, per message size: bytes per rank, at most this many rounds
     * of the five operations and a ping-pong, and at most this long by rank 0's clock.
     */
    private static final long[][] WARM_UP = {{1 << 20, 3_000, 8_000}, {16 << 20, 100, 3_000}, {8, 10_000, 5_000}};

    /** How long the compilers must have been (nearly) idle before a cell is timed. */
    private static final long QUIET_NANOS = 300_000_000L;
    /** Compile time below this share of a batch's time counts as idle: small compiles go on for minutes. */
    private static final long QUIET_SHARE = 50;
    /** The most time a cell's untimed calls may take, so that a stack that never settles still ends. */
    private static final long SETTLE_LIMIT_NANOS = 10_000_000_000L;
    /** Linux counts a thread's CPU time in clock ticks of 1/100 s (USER_HZ, the same on every architecture). */
    private static final long NANOS_PER_TICK = 10_000_000L;

    private CommBenchmark() {
    }

    /**
     * Runs the benchmark as one rank of a job started by a launcher.
     *
     * @param direct whether to use direct {@code ByteBuffer}s instead of {@code double[]} arrays
     * @param windows whether to print each cell's timed span after its line
     */
    static void run(final boolean direct, final boolean windows) {
        try (Communicator world = Pario.init()) {
            final int me = world.rank();
            final int n = world.size();
            if (me == 0) {
                System.out.printf(Locale.ROOT, "# Pario, %d ranks over %s%s%n", n, world.transport(),
                    direct ? ", direct buffers" : "");
            }
            for (final long[] w : WARM_UP) {
                warmUp(world, (int) (w[0] / 8), w[1], w[2], direct);
            }
            final Report report = new Report(world, windows);
            report.add("barrier", 0, time(world, 2000, () -> world.barrier()));
            for (final long size : SIZES) {
                final int count = (int) (size / 8);
                final Object a = doubles(count, direct);
                final Object b = doubles(count, direct);
                final int reps = size <= 65536 ? 2000 : size <= (1 << 20) ? 100 : 30;
                if (n > 1) {
                    report.add("pingpong", size, time(world, reps, () -> pingPong(world, a, b, count)).half());
                }
                report.add("bcast", size, time(world, reps, () -> world.bcast(a, count, Datatype.DOUBLE, 0)));
                report.add("allreduce", size,
                    time(world, reps, () -> world.allreduce(a, b, count, Datatype.DOUBLE, Op.SUM)));
                final Object all = doubles(count * n, direct);
                report.add("gather", size, time(world, reps,
                    () -> world.gather(a, count, Datatype.DOUBLE, all, count, Datatype.DOUBLE, 0)));
                final int per = Math.max(1, count / n);
                final Object s = doubles(per * n, direct);
                final Object r = doubles(per * n, direct);
                report.add("alltoall", size, time(world, reps,
                    () -> world.alltoall(s, per, Datatype.DOUBLE, r, per, Datatype.DOUBLE)));
            }
        }
    }

    /**
     * Runs the five operations and a ping-pong of {@code count} doubles per rank untimed, for {@code rounds} rounds or
     * {@code millis} ms by rank 0's clock, whichever ends first: at 1 MiB (eager messages), 16 MiB (rendezvous), then
     * 8 B, the first sizes measured. A JVM runs new code slowly until it has compiled it, and a rank's waits settle
     * into catching their messages while polling only once its peer answers that fast: small operations and 1 MiB
     * round trips took several times longer in the first thousands of calls than after. A job that checkpoints for
     * minutes runs in that steady state, so that is what the table shows; without the ping-pong in the warm-up, the
     * timed 8 B ping-pong stayed in the slow state (docs/history/benchmarks-2026-11.md). {@code
     * bench/c/comm_bench.c} runs the same warm-up (the C stacks' times do not change with it); the time bounds keep
     * a stack that polls with more ranks than cores from spending minutes on it.
     */
    private static void warmUp(final Communicator world, final int count, final long rounds, final long millis,
                               final boolean direct) {
        final int n = world.size();
        final int[] more = {1};
        final Object a = doubles(count, direct);
        final Object b = doubles(count, direct);
        final Object all = doubles(count * n, direct);
        final int per = Math.max(1, count / n);
        final Object s = doubles(per * n, direct);
        final Object r = doubles(per * n, direct);
        final long start = System.nanoTime();
        for (long i = 0; more[0] != 0; i++) {
            more[0] = i < rounds && System.nanoTime() - start < millis * 1_000_000L ? 1 : 0;
            world.barrier();
            world.bcast(more, 1, Datatype.INT, 0);
            world.bcast(a, count, Datatype.DOUBLE, 0);
            world.allreduce(a, b, count, Datatype.DOUBLE, Op.SUM);
            world.gather(a, count, Datatype.DOUBLE, all, count, Datatype.DOUBLE, 0);
            world.alltoall(s, per, Datatype.DOUBLE, r, per, Datatype.DOUBLE);
            if (n > 1) {
                pingPong(world, a, b, count);
            }
        }
    }

    /** Rank 0 sends {@code count} doubles to rank 1, which sends as many back; the other ranks wait. */
    private static void pingPong(final Communicator world, final Object a, final Object b, final int count) {
        if (world.rank() == 0) {
            world.send(a, count, Datatype.DOUBLE, 1, 0);
            world.recv(b, count, Datatype.DOUBLE, 1, 0);
        } else if (world.rank() == 1) {
            world.recv(b, count, Datatype.DOUBLE, 0, 0);
            world.send(a, count, Datatype.DOUBLE, 0, 0);
        }
    }

    /**
     * @return {@code count} doubles, element i holding {@code i % 1000}: a {@code double[]}, or a direct buffer in
     *     this machine's byte order
     */
    private static Object doubles(final int count, final boolean direct) {
        // the values bench/c/comm_bench.c writes into its buffers, so that both sides send data from written memory
        if (direct) {
            final ByteBuffer b = ByteBuffer.allocateDirect(count * 8).order(ByteOrder.nativeOrder());
            for (int i = 0; i < count; i++) {
                b.putDouble(i * 8, i % 1000);
            }
            return b;
        }
        final double[] d = new double[count];
        for (int i = 0; i < count; i++) {
            d[i] = i % 1000;
        }
        return d;
    }

    /**
     * Runs {@code op} untimed in batches of {@code batch} calls until, for {@link #QUIET_NANOS} in a row, no rank's
     * JIT compilers spent more than 1/{@link #QUIET_SHARE} of the batches' time compiling, or for at most {@link
     * #SETTLE_LIMIT_NANOS}. The first calls of a path the warm-up did not run often enough get the compilers going,
     * and on two cores their threads take the CPU from the ranks: a large allreduce took several times longer while
     * they compiled for it than once they were done, and 50 untimed calls were not enough. Every rank runs the
     * same number of calls: after each batch the ranks agree on the largest compile time and elapsed time by an
     * allreduce.
     *
     * @return how long the untimed calls took on the slowest rank, in nanoseconds
     */
    private static long settle(final Communicator world, final int batch, final Runnable op) {
        final long start = System.nanoTime();
        long quiet = 0;
        final long[] mine = new long[3];
        final long[] agreed = new long[3];
        while (true) {
            final long compiledBefore = compilingNanos();
            final long batchStart = System.nanoTime();
            for (int i = 0; i < batch; i++) {
                op.run();
            }
            final long now = System.nanoTime();
            mine[0] = Math.max(0, compilingNanos() - compiledBefore);
            mine[1] = now - batchStart;
            mine[2] = now - start;
            world.allreduce(mine, agreed, 3, Datatype.LONG, Op.MAX);
            quiet = agreed[0] * QUIET_SHARE <= agreed[1] ? quiet + agreed[1] : 0;
            if (quiet >= QUIET_NANOS || agreed[2] >= SETTLE_LIMIT_NANOS) {
                return agreed[2];
            }
        }
    }

    /**
     * @return the CPU time this JVM's compiler threads have used, in nanoseconds: from {@code /proc} on Linux, which
     *     also counts a compilation still running (the JVM's own figure grows only when one ends, and a large method
     *     takes C2 hundreds of milliseconds); else the JVM's total compilation time
     */
    private static long compilingNanos() {
        long ticks = 0;
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (final Path thread : threads) {
                ticks += compilerTicks(thread);
            }
            return ticks * NANOS_PER_TICK;
        } catch (final IOException | UnsupportedOperationException e) {
            final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
            return jit != null && jit.isCompilationTimeMonitoringSupported()
                ? jit.getTotalCompilationTime() * 1_000_000L : 0;
        }
    }

    /** @return the user and system clock ticks of a compiler thread, or 0 for any other thread or one just gone */
    private static long compilerTicks(final Path thread) {
        final String stat;
        try {
            stat = Files.readString(thread.resolve("stat"));
        } catch (final IOException e) {
            return 0;
        }
        // "tid (name) state ...": the name may hold spaces, so the fields are counted from its closing parenthesis
        final int close = stat.lastIndexOf(')');
        if (close < 0 || !stat.substring(stat.indexOf('(') + 1, close).contains("CompilerThre")) {
            return 0;
        }
        final String[] fields = stat.substring(close + 2).split(" ");
        // fields 14 and 15 of the line (utime, stime) are the 12th and 13th after the name
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    /**
     * One cell's figure and when it was measured.
     *
     * @param micros the median time of one operation in microseconds, agreed by all ranks (their maximum)
     * @param startNanos {@link System#nanoTime()} on this rank when its timed calls began
     * @param endNanos the same when they ended
     * @param settleNanos how long the untimed calls before them took
     */
    private record Timing(double micros, long startNanos, long endNanos, long settleNanos) {
        /** @return the same with half the time (a ping-pong's round trip as one message) */
        Timing half() {
            return new Timing(micros / 2, startNanos, endNanos, settleNanos);
        }
    }

    /**
     * @return the median time of {@code reps} timed calls, after untimed ones until the JIT compilers of every rank
     *     have settled ({@link #settle})
     */
    private static Timing time(final Communicator world, final int reps, final Runnable op) {
        final long settled = settle(world, Math.min(reps, 50), op);
        final double[] t = new double[reps];
        final long start = System.nanoTime();
        for (int i = 0; i < reps; i++) {
            world.barrier();
            final long t0 = System.nanoTime();
            op.run();
            t[i] = (System.nanoTime() - t0) / 1000.0;
        }
        final long end = System.nanoTime();
        java.util.Arrays.sort(t);
        final double[] median = {t[reps / 2]};
        final double[] max = new double[1];
        world.allreduce(median, max, 1, Datatype.DOUBLE, Op.MAX);
        return new Timing(max[0], start, end, settled);
    }

    /** Rank 0's lines of the table. */
    private record Report(Communicator world, boolean windows) {
        void add(final String op, final long bytes, final Timing timing) {
            if (world.rank() != 0) {
                return;
            }
            final double micros = timing.micros();
            final String bw = bytes >= 65536
                ? String.format(Locale.ROOT, "%10.1f", bytes / micros * 1e6 / (1 << 20)) : "";
            System.out.printf(Locale.ROOT, "%-10s %10d B %12.1f us %s%n", op, bytes, micros, bw);
            if (windows) {
                // System.nanoTime is CLOCK_MONOTONIC on Linux, the clock bench/c/placement.c prints
                System.out.printf(Locale.ROOT, "# timed %s %d %.3f %.3f %.3f%n", op, bytes, timing.startNanos() / 1e9,
                    timing.endNanos() / 1e9, timing.settleNanos() / 1e9);
            }
        }
    }
}
