package org.pario.cli;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
 * {@code windows}, each line is followed by a comment {@code # timed OPERATION BYTES START END}: when rank 0 timed
 * its calls, in seconds of the machine's monotonic clock (the one {@code bench/c/placement.c} prints), so that a
 * cell can be matched against how the host placed the CPUs while it was measured.
 */
final class CommBenchmark {
    private static final long[] SIZES = {8, 65536, 1 << 20, 16 << 20, 64 << 20};
    /**
     * The untimed warm-up before the first measurement, per message size: bytes per rank, at most this many rounds
     * of the five operations and a ping-pong, and at most this long by rank 0's clock.
     */
    private static final long[][] WARM_UP = {{1 << 20, 3_000, 8_000}, {16 << 20, 100, 3_000}, {8, 10_000, 5_000}};

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
     * into catching their messages while polling only once its peer answers that fast: with 2 ranks on 2 cores, 8 B
     * operations took 40-90 µs in the first 30000 calls and 15-20 µs after, and a 1 MiB message with its 8 B answer
     * 727-755 µs per round in the first thousand rounds and 190-260 from the nine thousandth (plain Java sockets:
     * 270-320 throughout). A job that checkpoints for minutes runs in that steady state, so that is what the table
     * shows. Without the ping-pong in it, the timed 8 B ping-pong took 48-58 µs per message where the others took
     * 6-12. {@code bench/c/comm_bench.c} runs the same warm-up (the C stacks' times do not change with it); the time
     * bounds keep a stack that polls with more ranks than cores from spending minutes on it.
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
     * One cell's figure and when it was measured.
     *
     * @param micros the median time of one operation in microseconds, agreed by all ranks (their maximum)
     * @param startNanos {@link System#nanoTime()} on this rank when its timed calls began
     * @param endNanos the same when they ended
     */
    private record Timing(double micros, long startNanos, long endNanos) {
        /** @return the same with half the time (a ping-pong's round trip as one message) */
        Timing half() {
            return new Timing(micros / 2, startNanos, endNanos);
        }
    }

    /** @return the median time of {@code reps} timed calls after up to 50 untimed ones */
    private static Timing time(final Communicator world, final int reps, final Runnable op) {
        for (int i = 0; i < Math.min(reps, 50); i++) {
            op.run();
        }
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
        return new Timing(max[0], start, end);
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
                System.out.printf(Locale.ROOT, "# timed %s %d %.3f %.3f%n", op, bytes, timing.startNanos() / 1e9,
                    timing.endNanos() / 1e9);
            }
        }
    }
}
