package org.pario.examples;

import java.util.List;

import org.pario.comm.Communicator;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/**
 * The MPI standard's gather examples (MPI-2.2 section 5.5, Examples 5.2 to 5.10), written with Pario. Each method is
 * one example as the standard writes it in C and returns what the root received ({@code null} elsewhere).
 *
 * <p>Every rank's {@code sendarray[100][150]} holds {@code rank * 100000 + row * 1000 + column}, so each
 * received value says where it came from. Run: {@code GatherExamples [ranks]} (default 4).
 */
public final class GatherExamples {
    /** The root of every example. */
    public static final int ROOT = 0;
    /** Stride, in ints, between the blocks the root receives (Examples 5.5 to 5.7). */
    public static final int STRIDE = 120;

    private GatherExamples() {
    }

    /** @return the value at {@code sendarray[row][column]} of {@code rank} */
    public static int value(final int rank, final int row, final int column) {
        return rank * 100_000 + row * 1000 + column;
    }

    /** @return this rank's {@code int sendarray[100][150]}, flattened in C order */
    static int[] sendarray(final int rank) {
        final int[] a = new int[100 * 150];
        for (int i = 0; i < 100; i++) {
            for (int j = 0; j < 150; j++) {
                a[i * 150 + j] = value(rank, i, j);
            }
        }
        return a;
    }

    /** @return the first 100 ints of a rank's data, the {@code int sendarray[100]} of Examples 5.2 to 5.5 */
    static int[] hundred(final int rank) {
        final int[] a = new int[100];
        for (int i = 0; i < 100; i++) {
            a[i] = value(rank, 0, i);
        }
        return a;
    }

    /** Example 5.2: gather 100 ints from every process. */
    public static int[] example52(final Communicator comm) {
        final int gsize = comm.size();
        final int[] rbuf = new int[gsize * 100];
        comm.gather(hundred(comm.rank()), 100, Datatype.INT, rbuf, 100, Datatype.INT, ROOT);
        return comm.rank() == ROOT ? rbuf : null;
    }

    /** Example 5.3: as 5.2, but only the root allocates the receive buffer. */
    public static int[] example53(final Communicator comm) {
        int[] rbuf = null;
        if (comm.rank() == ROOT) {
            rbuf = new int[comm.size() * 100];
        }
        comm.gather(hundred(comm.rank()), 100, Datatype.INT, rbuf, 100, Datatype.INT, ROOT);
        return rbuf;
    }

    /** Example 5.4: the root receives one {@code contiguous(100, int)} per process. */
    public static int[] example54(final Communicator comm) {
        final Datatype rtype = Datatype.contiguous(100, Datatype.INT);
        final int[] rbuf = comm.rank() == ROOT ? new int[comm.size() * 100] : null;
        comm.gather(hundred(comm.rank()), 100, Datatype.INT, rbuf, 1, rtype, ROOT);
        return rbuf;
    }

    /** Example 5.5: 100 ints from each process, placed {@code STRIDE} ints apart at the root. */
    public static int[] example55(final Communicator comm) {
        final int gsize = comm.size();
        final int[] rbuf = new int[gsize * STRIDE];
        final long[] displs = new long[gsize];
        final long[] rcounts = new long[gsize];
        for (int i = 0; i < gsize; i++) {
            displs[i] = (long) i * STRIDE;
            rcounts[i] = 100;
        }
        comm.gatherv(hundred(comm.rank()), 100, Datatype.INT, rbuf, rcounts, displs, Datatype.INT, ROOT);
        return comm.rank() == ROOT ? rbuf : null;
    }

    /** Example 5.6: as 5.5, sending column 0 of the 100 x 150 array with a vector type. */
    public static int[] example56(final Communicator comm) {
        final int gsize = comm.size();
        final int[] rbuf = new int[gsize * STRIDE];
        final long[] displs = new long[gsize];
        final long[] rcounts = new long[gsize];
        for (int i = 0; i < gsize; i++) {
            displs[i] = (long) i * STRIDE;
            rcounts[i] = 100;
        }
        final Datatype stype = Datatype.vector(100, 1, 150, Datatype.INT);
        comm.gatherv(sendarray(comm.rank()), 1, stype, rbuf, rcounts, displs, Datatype.INT, ROOT);
        return comm.rank() == ROOT ? rbuf : null;
    }

    /** Example 5.7: process i sends {@code 100 - i} ints of column i; the root places them {@code STRIDE} apart. */
    public static int[] example57(final Communicator comm) {
        final int gsize = comm.size();
        final int myrank = comm.rank();
        final int[] rbuf = new int[gsize * STRIDE];
        final long[] displs = new long[gsize];
        final long[] rcounts = new long[gsize];
        for (int i = 0; i < gsize; i++) {
            displs[i] = (long) i * STRIDE;
            rcounts[i] = 100 - i;
        }
        final Datatype stype = Datatype.vector(100 - myrank, 1, 150, Datatype.INT);
        final Memory sptr = Memory.of(sendarray(myrank)).at(4L * myrank);
        comm.gatherv(sptr, 1, stype, rbuf, rcounts, displs, Datatype.INT, ROOT);
        return myrank == ROOT ? rbuf : null;
    }

    /** Example 5.8: as 5.7, striding with a struct of one int whose extent is a whole row (an {@code ub} marker). */
    public static int[] example58(final Communicator comm) {
        final int gsize = comm.size();
        final int myrank = comm.rank();
        final int[] rbuf = new int[gsize * STRIDE];
        final long[] displs = new long[gsize];
        final long[] rcounts = new long[gsize];
        for (int i = 0; i < gsize; i++) {
            displs[i] = (long) i * STRIDE;
            rcounts[i] = 100 - i;
        }
        final Datatype stype = Datatype.struct(new long[] {1, 1}, new long[] {0, 150 * 4},
            List.of(Datatype.INT, Datatype.UB));
        final Memory sptr = Memory.of(sendarray(myrank)).at(4L * myrank);
        comm.gatherv(sptr, 100 - myrank, stype, rbuf, rcounts, displs, Datatype.INT, ROOT);
        return myrank == ROOT ? rbuf : null;
    }

    /** The varying strides of Example 5.9: block i starts {@code stride(i)} ints after block i - 1. */
    public static int stride(final int i) {
        return 100 + 7 * i;
    }

    /** Example 5.9: as 5.7, with a stride that varies from block to block. */
    public static int[] example59(final Communicator comm) {
        final int gsize = comm.size();
        final int myrank = comm.rank();
        final long[] displs = new long[gsize];
        final long[] rcounts = new long[gsize];
        long offset = 0;
        for (int i = 0; i < gsize; i++) {
            displs[i] = offset;
            offset += stride(i);
            rcounts[i] = 100 - i;
        }
        final int bufsize = (int) (displs[gsize - 1] + rcounts[gsize - 1]);
        final int[] rbuf = new int[bufsize];
        final Datatype stype = Datatype.vector(100 - myrank, 1, 150, Datatype.INT);
        comm.gatherv(Memory.of(sendarray(myrank)).at(4L * myrank), 1, stype, rbuf, rcounts, displs, Datatype.INT,
            ROOT);
        return myrank == ROOT ? rbuf : null;
    }

    /** How many ints of its column process i sends in Example 5.10 (not known to the root beforehand). */
    public static int num(final int rank) {
        return 10 + 13 * rank % 90;
    }

    /** Example 5.10: the root first gathers how much each process sends, then gathers the data contiguously. */
    public static int[] example510(final Communicator comm) {
        final int gsize = comm.size();
        final int myrank = comm.rank();
        final int num = num(myrank);
        final int[] rcounts = new int[gsize];
        comm.gather(new int[] {num}, 1, Datatype.INT, rcounts, 1, Datatype.INT, ROOT);
        long[] displs = null;
        long[] counts = null;
        int[] rbuf = null;
        if (myrank == ROOT) {
            displs = new long[gsize];
            counts = new long[gsize];
            for (int i = 0; i < gsize; i++) {
                counts[i] = rcounts[i];
                displs[i] = i == 0 ? 0 : displs[i - 1] + rcounts[i - 1];
            }
            rbuf = new int[(int) (displs[gsize - 1] + rcounts[gsize - 1])];
        }
        final Datatype stype = Datatype.struct(new long[] {1, 1}, new long[] {0, 150 * 4},
            List.of(Datatype.INT, Datatype.UB));
        comm.gatherv(Memory.of(sendarray(myrank)).at(4L * myrank), num, stype, rbuf, counts, displs, Datatype.INT,
            ROOT);
        return rbuf;
    }

    /**
     * Runs every example and prints what the root received, in short.
     *
     * @param args optional number of ranks
     */
    public static void main(final String[] args) {
        final int ranks = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        LocalCluster.run(ranks, comm -> {
            final String[] names = {"5.2", "5.3", "5.4", "5.5", "5.6", "5.7", "5.8", "5.9", "5.10"};
            final int[][] results = {example52(comm), example53(comm), example54(comm), example55(comm),
                example56(comm), example57(comm), example58(comm), example59(comm), example510(comm)};
            if (comm.rank() == ROOT) {
                for (int e = 0; e < names.length; e++) {
                    final int[] r = results[e];
                    System.out.printf("Example %-4s root received %d ints: %d %d %d ... %d%n", names[e], r.length,
                        r[0], r[1], r[2], r[r.length - 1]);
                }
            }
        });
    }
}
