package org.pario.it;

import java.util.Arrays;

import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.comm.Pario;
import org.pario.datatypes.Datatype;

/**
 * A rank of a multi-JVM test job. Modes: {@code collectives} runs and checks a set of collectives and
 * point-to-point messages; {@code die} makes rank size-2 halt its JVM while the others are in an allreduce;
 * {@code stop} has rank 1 print its pid for the test to freeze it; {@code stream} has rank 1 print {@code asked}
 * once it has asked for the data of an 8 GiB message from rank 0, for the test to freeze it while the data streams;
 * {@code nomemory} has rank 0 send a message larger than its direct memory before rank 1 posts a receive for it.
 * Prints one line per rank: {@code rank R ok ...} or {@code rank R failed after MS ms: MESSAGE}.
 */
public final class JobMain {
    private JobMain() {
    }

    public static void main(final String[] args) {
        final String mode = args.length > 0 ? args[0] : "collectives";
        final long start = System.nanoTime();
        int rank = -1;
        boolean gaveUp = false;
        try (Communicator world = Pario.init()) {
            rank = world.rank();
            final int n = world.size();
            if (mode.equals("stop") || mode.equals("die")) {
                gaveUp = untilFailure(world, mode.equals("die"));
                return;
            }
            if (mode.equals("stream")) {
                gaveUp = streamUntilFailure(world);
                return;
            }
            if (mode.equals("nomemory")) {
                sendBeyondDirectMemory(world);
                return;
            }
            final double[] b = new double[1000];
            if (rank == 0) {
                Arrays.setAll(b, i -> i * 0.5);
            }
            world.bcast(b, b.length, Datatype.DOUBLE, 0);
            check(b[999] == 499.5, "bcast");
            final long[] sum = new long[4];
            world.allreduce(new long[] {rank, 1, rank * rank, -rank}, sum, 4, Datatype.LONG, Op.SUM);
            long sq = 0;
            for (int r = 0; r < n; r++) {
                sq += (long) r * r;
            }
            check(sum[0] == (long) n * (n - 1) / 2 && sum[1] == n && sum[2] == sq, "allreduce");
            final int[] send = new int[n];
            final int me = rank;
            Arrays.setAll(send, j -> me * 100 + j);
            final int[] recv = new int[n];
            world.alltoall(send, 1, Datatype.INT, recv, 1, Datatype.INT);
            for (int i = 0; i < n; i++) {
                check(recv[i] == i * 100 + rank, "alltoall");
            }
            // a large message around the ring (8 MiB)
            final double[] big = new double[1 << 20];
            Arrays.fill(big, rank);
            final double[] got = new double[1 << 20];
            world.sendrecv(big, big.length, Datatype.DOUBLE, (rank + 1) % n, 7, got, got.length, Datatype.DOUBLE,
                (rank - 1 + n) % n, 7);
            check(got[12345] == (rank - 1 + n) % n, "sendrecv");
            final int[] gathered = new int[n];
            world.gather(new int[] {rank * 3}, 1, Datatype.INT, gathered, 1, Datatype.INT, 0);
            if (rank == 0) {
                for (int i = 0; i < n; i++) {
                    check(gathered[i] == 3 * i, "gather");
                }
            }
            world.barrier();
            System.out.println("rank " + rank + " ok of " + n);
        } catch (RuntimeException e) {
            System.out.println("rank " + rank + " failed after " + (System.nanoTime() - start) / 1_000_000 + " ms: "
                + e);
            System.exit(1);
        } finally {
            if (gaveUp) {
                // only once the world is closed: leaving that way tells the other ranks the loss this one saw, so
                // a rank still waiting to notice it itself hears the lost rank named, not this one
                System.exit(3);
            }
        }
    }

    /**
     * Runs allreduces until one fails, then prints how long that took; the caller then leaves the job and exits with
     * status 3. In {@code die} mode rank size-2 halts its JVM after the first barrier; in {@code stop} mode rank 1
     * prints its pid so the test can freeze it. The dying rank's last barrier messages may still be queued in its
     * transport when it dies, so the others may notice the loss in the barrier already: equally correct.
     *
     * @return whether an operation failed
     */
    private static boolean untilFailure(final Communicator world, final boolean die) {
        final int rank = world.rank();
        final long t0 = System.nanoTime();
        try {
            world.barrier();
            if (die && rank == world.size() - 2) {
                Runtime.getRuntime().halt(9);
            }
            if (!die && rank == 1) {
                System.out.println("pid " + ProcessHandle.current().pid());
                System.out.flush();
            }
            for (int i = 0; i < 1_000_000; i++) {
                final long[] out = new long[1];
                world.allreduce(new long[] {rank}, out, 1, Datatype.LONG, Op.SUM);
            }
            System.out.println("rank " + rank + " ok: no failure seen");
            return false;
        } catch (ParioException e) {
            System.out.println("rank " + rank + " failed after " + (System.nanoTime() - t0) / 1_000_000 + " ms: "
                + e.getMessage());
            System.out.flush();
            return true;
        }
    }

    /**
     * Rank 0 sends rank 1 one message of 8 GiB (a 64 MiB block 128 times over, an {@code hvector} of stride 0, which
     * rank 1 receives into one block the same way), then waits for rank 1's answer. Rank 1 probes for the message,
     * posts its receive, which asks for the data at once, and prints {@code asked} for the test to freeze it while
     * the data streams. Rank 0 prints {@code rank 0 failed after MS ms: MESSAGE}, counted from the send, when the
     * send or the wait for the answer fails.
     *
     * @return whether an operation failed
     */
    private static boolean streamUntilFailure(final Communicator world) {
        final int block = 1 << 23;
        final Datatype message = Datatype.hvector(128, block, 0, Datatype.DOUBLE);
        final double[] data = new double[block];
        long t0 = System.nanoTime();
        try {
            if (world.rank() == 0) {
                Arrays.fill(data, 1.5);
                world.barrier();
                t0 = System.nanoTime();
                world.send(data, 1, message, 1, 5);
                world.recv(new int[1], 1, Datatype.INT, 1, 6);
            } else {
                world.barrier();
                world.probe(0, 5);
                final org.pario.comm.Request<?> receive = world.irecv(data, 1, message, 0, 5);
                System.out.println("asked");
                System.out.flush();
                receive.join();
                world.send(new int[1], 1, Datatype.INT, 0, 6);
            }
            System.out.println("rank " + world.rank() + " ok: no failure seen");
            return false;
        } catch (ParioException e) {
            System.out.println("rank " + world.rank() + " failed after " + (System.nanoTime() - t0) / 1_000_000
                + " ms: " + e.getMessage());
            System.out.flush();
            return true;
        }
    }

    /**
     * Rank 0 sends rank 1 256 MiB before rank 1 has posted a receive for it (rank 1 posts it only after a barrier
     * that rank 0 enters once its send has returned), so the send must hold the data whole, more than the direct
     * memory the test gives it. Rank 0 prints {@code rank 0 send failed: CATEGORY MESSAGE}, rank 1 {@code rank 1
     * receive failed: MESSAGE}; then both check that the job carries on with an allreduce and print {@code rank R
     * then ok}.
     */
    private static void sendBeyondDirectMemory(final Communicator world) {
        final double[] data = new double[1 << 25];
        if (world.rank() == 0) {
            try {
                world.send(data, data.length, Datatype.DOUBLE, 1, 5);
                System.out.println("rank 0 sent");
            } catch (ParioException e) {
                System.out.println("rank 0 send failed: " + e.category() + " " + e.getMessage());
            }
            world.barrier();
        } else {
            world.barrier();
            try {
                world.recv(data, data.length, Datatype.DOUBLE, 0, 5);
                System.out.println("rank 1 received");
            } catch (ParioException e) {
                System.out.println("rank 1 receive failed: " + e.getMessage());
            }
        }
        final long[] sum = new long[1];
        world.allreduce(new long[] {world.rank() + 1}, sum, 1, Datatype.LONG, Op.SUM);
        check(sum[0] == 3, "allreduce");
        System.out.println("rank " + world.rank() + " then ok");
    }

    private static void check(final boolean ok, final String what) {
        if (!ok) {
            throw new IllegalStateException(what + " returned wrong data");
        }
    }
}
