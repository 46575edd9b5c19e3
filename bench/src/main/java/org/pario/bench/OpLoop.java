package org.pario.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Locale;

import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.comm.Pario;
import org.pario.datatypes.Datatype;

/**
 * Runs one operation back to back, without a barrier between calls, and prints rank 0's mean time per call,
 * three times: at 8 B the figure to set beside {@code bench/c/barrier_floor.c}, which does the same without a library;
 * at larger sizes a steadier figure than the medians of {@code pario bench comm}, from {@code double[]} arrays or
 * direct {@code ByteBuffer}s.
 *
 * <p>Usage: {@code pario launch -n N -- java -Dpario.sharedMemory=false -cp benchmarks.jar
 * org.pario.bench.OpLoop ITERATIONS barrier|allreduce|bcast|gather|alltoall [BYTES [direct]]} (BYTES per rank,
 * default 8)
 */
public final class OpLoop {
    private OpLoop() {
    }

    /**
     * Runs the loop and prints rank 0's figures.
     *
     * @param args {@code ITERATIONS OPERATION [BYTES [direct]]}
     */
    public static void main(final String[] args) {
        if (args.length < 2 || args.length > 4 || args.length == 4 && !"direct".equals(args[3])) {
            System.err.println("usage: OpLoop ITERATIONS barrier|allreduce|bcast|gather|alltoall [BYTES [direct]]");
            System.exit(2);
        }
        final int iterations = Integer.parseInt(args[0]);
        final String op = args[1];
        final int count = args.length > 2 ? Math.max(1, Integer.parseInt(args[2]) / 8) : 1;
        final boolean direct = args.length == 4;
        try (Communicator world = Pario.init()) {
            final int n = world.size();
            final Object mine = doubles(count, direct);
            final Object result = doubles(count * n, direct);
            final Object all = doubles(count * n, direct);
            final int per = Math.max(1, count / n);
            final Runnable call = switch (op) {
                case "barrier" -> world::barrier;
                case "allreduce" -> () -> world.allreduce(mine, result, count, Datatype.DOUBLE, Op.SUM);
                case "bcast" -> () -> world.bcast(mine, count, Datatype.DOUBLE, 0);
                case "gather" -> () -> world.gather(mine, count, Datatype.DOUBLE, result, count, Datatype.DOUBLE, 0);
                case "alltoall" -> () -> world.alltoall(all, per, Datatype.DOUBLE, result, per, Datatype.DOUBLE);
                default -> throw new IllegalArgumentException("unknown operation " + op);
            };
            for (int round = 0; round < 3; round++) {
                world.barrier();
                final long start = System.nanoTime();
                for (int i = 0; i < iterations; i++) {
                    call.run();
                }
                final long nanos = System.nanoTime() - start;
                if (world.rank() == 0) {
                    System.out.printf(Locale.ROOT, "%s, %d ranks, %d B%s: %.1f us per call%n", op, n, count * 8L,
                        direct ? " direct" : "", nanos / 1e3 / iterations);
                }
            }
        }
    }

    private static Object doubles(final int count, final boolean direct) {
        return direct ? ByteBuffer.allocateDirect(count * 8).order(ByteOrder.nativeOrder()) : new double[count];
    }
}
