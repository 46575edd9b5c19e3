package org.pario.bench;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.comm.Pario;
import org.pario.datatypes.Datatype;

/**
 * Runs one operation back to back, without a barrier between calls, and prints rank 0's mean time per call and
 * the heap bytes its threads allocated per call, once per round: at 8 B the figure to set beside {@code
 * bench/c/barrier_floor.c}, which does the same without a library; at larger sizes a steadier figure than the
 * medians of {@code pario bench comm}, from {@code double[]} arrays or direct {@code ByteBuffer}s.
 *
 * <p>Usage: {@code pario launch -n N -- java -Dpario.sharedMemory=false -cp benchmarks.jar org.pario.bench.OpLoop
 * ITERATIONS barrier|allreduce|bcast|gather|alltoall|send|pingpong [BYTES [direct] [timed] [rounds=R]]} (BYTES per
 * rank, default 8; {@code send}: one message from rank 0 to rank 1 and a 4-byte answer; {@code pingpong}: one each
 * way, as {@code pario bench comm} times it), in R rounds (default 3). {@code timed} times each call after a
 * barrier instead, as {@code pario bench comm} does, and also prints the mean and tail of the calls and, per rank, the
 * median time at which it left the barrier and ended the call, counted from the first rank to leave the barrier
 * ({@link System#nanoTime()} is one clock for all processes of a Linux host): how much of a call's time is waiting
 * for ranks that left the barrier later.
 */
public final class OpLoop {
    private OpLoop() {
    }

    /**
     * Runs the loop and prints rank 0's figures.
     *
     * @param args {@code ITERATIONS OPERATION [BYTES [direct] [timed] [rounds=R]]}
     */
    public static void main(final String[] args) {
        final List<String> flags = args.length > 3 ? List.of(args).subList(3, args.length) : List.of();
        // later rounds of either loop show the settled speed
        int rounds = 3;
        boolean usage = args.length < 2 || args.length > 6;
        for (final String flag : flags) {
            if (flag.matches("rounds=[1-9][0-9]*")) {
                rounds = Integer.parseInt(flag.substring("rounds=".length()));
            } else if (!flag.equals("direct") && !flag.equals("timed")) {
                usage = true;
            }
        }
        if (usage) {
            System.err.println("usage: OpLoop ITERATIONS barrier|allreduce|bcast|gather|alltoall|send|pingpong "
                + "[BYTES [direct] [timed] [rounds=R]]");
            System.exit(2);
        }
        final int iterations = Integer.parseInt(args[0]);
        final String op = args[1];
        final int count = args.length > 2 ? Math.toIntExact(Math.max(1, Long.parseLong(args[2]) / 8)) : 1;
        final boolean direct = flags.contains("direct");
        final boolean timed = flags.contains("timed");
        try (Communicator world = Pario.init()) {
            final int n = world.size();
            final Object mine = doubles(count, direct);
            // only what the operation uses, so that one large message fits
            final Object result = op.equals("barrier") || op.equals("bcast")
                || op.equals("send") || op.equals("pingpong") ? null
                : doubles(Math.multiplyExact(count, n), direct);
            final Object all = op.equals("alltoall") ? doubles(Math.multiplyExact(count, n), direct) : null;
            final int per = Math.max(1, count / n);
            final Runnable call = switch (op) {
                // one message from rank 0 to rank 1, which answers with 4 bytes once it has all of it
                case "send" -> () -> {
                    if (world.rank() == 0) {
                        world.send(mine, count, Datatype.DOUBLE, 1, 1);
                        world.recv(new int[1], 1, Datatype.INT, 1, 2);
                    } else if (world.rank() == 1) {
                        world.recv(mine, count, Datatype.DOUBLE, 0, 1);
                        world.send(new int[1], 1, Datatype.INT, 0, 2);
                    }
                };
                case "pingpong" -> () -> {
                    if (world.rank() == 0) {
                        world.send(mine, count, Datatype.DOUBLE, 1, 1);
                        world.recv(mine, count, Datatype.DOUBLE, 1, 2);
                    } else if (world.rank() == 1) {
                        world.recv(mine, count, Datatype.DOUBLE, 0, 1);
                        world.send(mine, count, Datatype.DOUBLE, 0, 2);
                    }
                };
                case "barrier" -> world::barrier;
                case "allreduce" -> () -> world.allreduce(mine, result, count, Datatype.DOUBLE, Op.SUM);
                case "bcast" -> () -> world.bcast(mine, count, Datatype.DOUBLE, 0);
                case "gather" -> () -> world.gather(mine, count, Datatype.DOUBLE, result, count, Datatype.DOUBLE, 0);
                case "alltoall" -> () -> world.alltoall(all, per, Datatype.DOUBLE, result, per, Datatype.DOUBLE);
                default -> throw new IllegalArgumentException("unknown operation " + op);
            };
            if (timed) {
                timeEach(world, call, iterations, rounds, op, count * 8L);
                return;
            }
            for (int round = 0; round < rounds; round++) {
                world.barrier();
                final long allocatedBefore = allocatedBytes();
                final long start = System.nanoTime();
                for (int i = 0; i < iterations; i++) {
                    call.run();
                }
                final long nanos = System.nanoTime() - start;
                final long allocated = allocatedBytes() - allocatedBefore;
                if (world.rank() == 0) {
                    System.out.printf(Locale.ROOT, "%s, %d ranks, %d B%s: %.1f us per call, %d bytes allocated per"
                        + " call%n", op, n, count * 8L, direct ? " direct" : "", nanos / 1e3 / iterations,
                        allocated / iterations);
                }
            }
        }
    }

    /**
     * Times each call after a barrier, as {@code pario bench comm} and {@code bench/c/comm_bench.c} do, and prints
     * the largest of the ranks' medians, three times.
     */
    private static void timeEach(final Communicator world, final Runnable call, final int iterations,
        final int rounds, final String op, final long bytes) {
        final int n = world.size();
        final double[] micros = new double[iterations];
        final long[] stamps = new long[2 * iterations];
        final long[] allStamps = new long[2 * iterations * n];
        final double[] median = new double[1];
        final double[] worst = new double[1];
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < iterations; i++) {
                world.barrier();
                final long start = System.nanoTime();
                call.run();
                final long end = System.nanoTime();
                stamps[2 * i] = start;
                stamps[2 * i + 1] = end;
                micros[i] = (end - start) / 1e3;
            }
            Arrays.sort(micros);
            median[0] = micros[iterations / 2];
            world.allreduce(median, worst, 1, Datatype.DOUBLE, Op.MAX);
            world.gather(stamps, 2 * iterations, Datatype.LONG, allStamps, 2 * iterations, Datatype.LONG, 0);
            if (world.rank() == 0) {
                double sum = 0;
                for (final double m : micros) {
                    sum += m;
                }
                System.out.printf(Locale.ROOT, "%s, %d ranks, %d B timed: median %.1f us (rank 0 %.1f; mean %.1f, 90th"
                    + " percentile %.1f, 99th %.1f)%n", op, n, bytes, worst[0], median[0], sum / iterations,
                    micros[iterations * 9 / 10], micros[iterations * 99 / 100]);
                final StringBuilder line = new StringBuilder("  per rank, median us: barrier exit after first /"
                    + " call end after first exit:");
                // when the first rank of each call left the barrier
                final long[] first = new long[iterations];
                Arrays.fill(first, Long.MAX_VALUE);
                for (int q = 0; q < n; q++) {
                    for (int i = 0; i < iterations; i++) {
                        first[i] = Math.min(first[i], allStamps[q * 2 * iterations + 2 * i]);
                    }
                }
                for (int r = 0; r < n; r++) {
                    final double[] exit = new double[iterations];
                    final double[] done = new double[iterations];
                    for (int i = 0; i < iterations; i++) {
                        exit[i] = (allStamps[r * 2 * iterations + 2 * i] - first[i]) / 1e3;
                        done[i] = (allStamps[r * 2 * iterations + 2 * i + 1] - first[i]) / 1e3;
                    }
                    Arrays.sort(exit);
                    Arrays.sort(done);
                    line.append(String.format(Locale.ROOT, "  %d: %.1f / %.1f", r, exit[iterations / 2],
                        done[iterations / 2]));
                }
                System.out.println(line);
            }
        }
    }

    /**
     * @return the bytes all live threads of this JVM have allocated on the heap so far (event-loop threads take part
     *     in every message), or 0 where the JVM does not count them
     */
    private static long allocatedBytes() {
        if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads)
            || !threads.isThreadAllocatedMemoryEnabled()) {
            return 0;
        }
        long sum = 0;
        for (final long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            sum += Math.max(0, bytes);
        }
        return sum;
    }

    private static Object doubles(final int count, final boolean direct) {
        return direct ? ByteBuffer.allocateDirect(count * 8).order(ByteOrder.nativeOrder()) : new double[count];
    }
}
