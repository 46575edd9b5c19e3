package org.pario.it;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;

import org.pario.comm.Communicator;
import org.pario.comm.LocalCluster;
import org.pario.comm.Op;
import org.pario.comm.Pario;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
import org.pario.datatypes.Order;
import org.pario.io.Hints;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;

/**
 * A soak: every rank runs barrier, bcast, allreduce, alltoall, gather and a two-phase collective write and read
 * of a CYCLIC(1) darray, checking every result, over and over for a given time. Rank 0 prints the iterations and
 * its heap in use (after a full GC) at the start and at the end: {@code soak RANKS ITERATIONS HEAP_START_MIB
 * HEAP_END_MIB}. Modes: {@code threads N SECONDS DIR} (ranks as threads of this JVM) or {@code jvm SECONDS DIR}
 * (one rank of a job of JVMs).
 */
public final class SoakMain {
    private SoakMain() {
    }

    public static void main(final String[] args) {
        if (args[0].equals("threads")) {
            final int n = Integer.parseInt(args[1]);
            final long seconds = Long.parseLong(args[2]);
            LocalCluster.run(n, comm -> soak(comm, seconds, Path.of(args[3])));
        } else {
            try (Communicator world = Pario.init()) {
                soak(world, Long.parseLong(args[1]), Path.of(args[2]));
            }
        }
    }

    private static long heapMiB() {
        System.gc();
        final Runtime rt = Runtime.getRuntime();
        return (rt.totalMemory() - rt.freeMemory()) >> 20;
    }

    private static void check(final boolean ok, final String what, final long iteration) {
        if (!ok) {
            throw new IllegalStateException(what + " wrong in iteration " + iteration);
        }
    }

    static void soak(final Communicator comm, final long seconds, final Path dir) {
        final int r = comm.rank();
        final int n = comm.size();
        final long start = comm.rank() == 0 ? heapMiB() : 0;
        final long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        final String file = dir.resolve("soak.bin").toString();
        final Datatype cyclic = Datatype.darray(n, r, new long[] {n * 4096L}, new Distribution[] {Distribution.CYCLIC},
            new long[] {1}, new long[] {n}, Order.C, Datatype.DOUBLE);
        final double[] mine = new double[4096];
        final double[] back = new double[4096];
        long iterations = 0;
        boolean more = true;
        while (more) {
            comm.barrier();
            final long[] b = {iterations};
            comm.bcast(b, 1, Datatype.LONG, 0);
            check(b[0] == iterations, "bcast", iterations);
            final long[] sum = new long[1];
            comm.allreduce(new long[] {r + iterations}, sum, 1, Datatype.LONG, Op.SUM);
            check(sum[0] == (long) n * (n - 1) / 2 + n * iterations, "allreduce", iterations);
            final int[] send = new int[n];
            Arrays.setAll(send, j -> r * 1000 + j);
            final int[] recv = new int[n];
            comm.alltoall(send, 1, Datatype.INT, recv, 1, Datatype.INT);
            for (int j = 0; j < n; j++) {
                check(recv[j] == j * 1000 + r, "alltoall", iterations);
            }
            final int[] gathered = new int[n];
            comm.gather(new int[] {r}, 1, Datatype.INT, gathered, 1, Datatype.INT, 0);
            if (r == 0) {
                for (int j = 0; j < n; j++) {
                    check(gathered[j] == j, "gather", iterations);
                }
            }
            if (iterations % 10 == 0) {
                final long it = iterations;
                Arrays.setAll(mine, k -> it + (double) k * n + r);
                try (ParallelFile f = ParallelFile.open(comm, file, EnumSet.of(Mode.CREATE, Mode.RDWR),
                    Hints.of(Map.of("cb_config_list", "*:*", "cb_nodes", "4", "cb_buffer_size", "65536")))) {
                    f.setView(0, Datatype.DOUBLE, cyclic, DataRepresentation.NATIVE);
                    f.writeAll(mine, mine.length, Datatype.DOUBLE);
                    f.seek(0);
                    f.readAll(back, back.length, Datatype.DOUBLE);
                    check(Arrays.equals(mine, back), "collective write and read", iterations);
                }
            }
            iterations++;
            // every rank stops after the same iteration: rank 0 decides
            final int[] go = {System.nanoTime() < deadline ? 1 : 0};
            comm.bcast(go, 1, Datatype.INT, 0);
            more = go[0] == 1;
        }
        if (r == 0) {
            System.out.printf(Locale.ROOT, "soak %d %d %d %d%n", n, iterations, start, heapMiB());
        }
    }
}
