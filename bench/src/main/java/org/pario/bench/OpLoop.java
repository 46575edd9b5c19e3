package org.pario.bench;

import java.util.Locale;

import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.comm.Pario;
import org.pario.datatypes.Datatype;

/**
 * Runs one 8 B operation back to back, without a barrier between calls, and prints rank 0's mean time per call,
 * three times: the figure to set beside {@code bench/c/barrier_floor.c}, which does the same without a library.
 *
 * <p>Usage: {@code pario launch -n N -- java -Dpario.sharedMemory=false -cp benchmarks.jar
 * org.pario.bench.OpLoop ITERATIONS barrier|allreduce|bcast|gather}
 */
public final class OpLoop {
    private OpLoop() {
    }

    /**
     * Runs the loop and prints rank 0's figures.
     *
     * @param args {@code ITERATIONS OPERATION}
     */
    public static void main(final String[] args) {
        if (args.length != 2) {
            System.err.println("usage: OpLoop ITERATIONS barrier|allreduce|bcast|gather");
            System.exit(2);
        }
        final int iterations = Integer.parseInt(args[0]);
        final String op = args[1];
        try (Communicator world = Pario.init()) {
            final double[] mine = {world.rank()};
            final double[] result = new double[world.size()];
            final Runnable call = switch (op) {
                case "barrier" -> world::barrier;
                case "allreduce" -> () -> world.allreduce(mine, result, 1, Datatype.DOUBLE, Op.SUM);
                case "bcast" -> () -> world.bcast(mine, 1, Datatype.DOUBLE, 0);
                case "gather" -> () -> world.gather(mine, 1, Datatype.DOUBLE, result, 1, Datatype.DOUBLE, 0);
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
                    System.out.printf(Locale.ROOT, "%s, %d ranks: %.1f us per call%n", op, world.size(),
                        nanos / 1e3 / iterations);
                }
            }
        }
    }
}
