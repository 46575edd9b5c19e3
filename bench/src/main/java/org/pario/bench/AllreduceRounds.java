package org.pario.bench;

import java.util.Arrays;
import java.util.Locale;

import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.comm.Pario;
import org.pario.datatypes.Datatype;

/**
 * Times one allreduce (SUM of a {@code double[]} of {@code size} bytes) at a time: every rank enters each round
 * from a barrier, so a round's time is that allreduce alone, not how far ranks run ahead of each other as in
 * {@code pario bench comm}. Rank 0 prints the median, mean and 10th and 90th percentiles of the last half of the
 * rounds, and every rank checks the sums.
 *
 * <p>Usage: {@code pario launch -n N -- java -cp benchmarks.jar org.pario.bench.AllreduceRounds SIZE ROUNDS}
 * (with {@code -Dpario.sharedMemory=false} for the TCP path; {@code -Xlog:gc} shows the collections a run sets
 * off).
 */
public final class AllreduceRounds {
    private AllreduceRounds() {
    }

    /**
     * Runs the rounds and prints rank 0's figures.
     *
     * @param args {@code SIZE ROUNDS}
     */
    public static void main(final String[] args) {
        if (args.length != 2) {
            System.err.println("usage: AllreduceRounds SIZE ROUNDS");
            System.exit(2);
        }
        final int count = Math.toIntExact(Long.parseLong(args[0]) / Double.BYTES);
        final int rounds = Integer.parseInt(args[1]);
        try (Communicator world = Pario.init()) {
            final double[] mine = new double[count];
            Arrays.fill(mine, world.rank() + 1);
            final double[] sum = new double[count];
            final long[] nanos = new long[rounds];
            for (int i = 0; i < rounds; i++) {
                world.barrier();
                final long start = System.nanoTime();
                world.allreduce(mine, sum, count, Datatype.DOUBLE, Op.SUM);
                nanos[i] = System.nanoTime() - start;
            }
            final double expected = world.size() * (world.size() + 1) / 2.0;
            for (int k = 0; k < count; k++) {
                if (sum[k] != expected) {
                    throw new IllegalStateException("element " + k + " is " + sum[k] + ", not " + expected);
                }
            }
            if (world.rank() == 0) {
                final long[] kept = Arrays.copyOfRange(nanos, rounds / 2, rounds);
                Arrays.sort(kept);
                System.out.printf(Locale.ROOT,
                    "allreduce %d B, %d ranks: median %.1f us, mean %.1f, p10 %.1f, p90 %.1f%n",
                    count * (long) Double.BYTES, world.size(), kept[kept.length / 2] / 1e3,
                    Arrays.stream(kept).average().orElse(0) / 1e3, kept[kept.length / 10] / 1e3,
                    kept[kept.length * 9 / 10] / 1e3);
            }
        }
    }
}
