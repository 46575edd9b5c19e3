package org.pario.examples;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.pario.comm.Communicator;
import org.pario.comm.LocalCluster;
import org.pario.comm.Op;
import org.pario.datatypes.Datatype;

/**
 * The MPI standard's MINLOC and MAXLOC examples (Examples 4.17 to 4.19 of MPI-1), written with Pario.
 * Run: {@code MinMaxLocExamples [ranks]} (default 4).
 */
public final class MinMaxLocExamples {
    /** The root of every example. */
    public static final int ROOT = 0;
    /** Values per process in Example 4.19. */
    public static final int LEN = 1000;

    private MinMaxLocExamples() {
    }

    /** A rank's {@code double ain[30]}: deterministic, with ties between ranks in some slots. */
    public static double ain(final int rank, final int i) {
        return (i % 5 == 0) ? 42.0 : Math.floorMod(rank * 37 + i * 11, 17) + i / 100.0;
    }

    /** A rank's {@code float val[LEN]}. */
    public static float val(final int rank, final int i) {
        return (float) (Math.floorMod(rank * 7919 + i * 104729, 100_003) - 50_000) / 7f;
    }

    /** Result of Example 4.17: the maximum of each of 30 slots and the rank holding it. */
    public record MaxLoc(double[] aout, int[] ind) {
    }

    /** Example 4.17 (C): {@code MPI_Reduce} with {@code MPI_MAXLOC} on {@code MPI_DOUBLE_INT} pairs. */
    public static MaxLoc example417(final Communicator comm) {
        final int myrank = comm.rank();
        // struct { double val; int rank; } in[30], out[30]: 16 bytes per element, as in C
        final ByteBuffer in = ByteBuffer.allocate(30 * 16).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 30; i++) {
            in.putDouble(16 * i, ain(myrank, i)).putInt(16 * i + 8, myrank);
        }
        final ByteBuffer out = ByteBuffer.allocate(30 * 16).order(ByteOrder.LITTLE_ENDIAN);
        comm.reduce(in, out, 30, Datatype.DOUBLE_INT, Op.MAXLOC, ROOT);
        if (myrank != ROOT) {
            return null;
        }
        final double[] aout = new double[30];
        final int[] ind = new int[30];
        for (int i = 0; i < 30; i++) {
            aout[i] = out.getDouble(16 * i);
            ind[i] = out.getInt(16 * i + 8);
        }
        return new MaxLoc(aout, ind);
    }

    /** Example 4.18 (Fortran): the same with {@code MPI_2DOUBLE_PRECISION}, the rank stored as a double. */
    public static MaxLoc example418(final Communicator comm) {
        final int myrank = comm.rank();
        final double[] in = new double[60];
        for (int i = 0; i < 30; i++) {
            in[2 * i] = ain(myrank, i);
            in[2 * i + 1] = myrank;
        }
        final double[] out = new double[60];
        comm.reduce(in, out, 30, Datatype.TWO_DOUBLE_PRECISION, Op.MAXLOC, ROOT);
        if (myrank != ROOT) {
            return null;
        }
        final double[] aout = new double[30];
        final int[] ind = new int[30];
        for (int i = 0; i < 30; i++) {
            aout[i] = out[2 * i];
            ind[i] = (int) out[2 * i + 1];
        }
        return new MaxLoc(aout, ind);
    }

    /** Result of Example 4.19: the global minimum, the rank holding it and its index there. */
    public record MinLoc(float minval, int minrank, int minindex) {
    }

    /** Example 4.19: global minimum with its rank and local index, through {@code MPI_FLOAT_INT}. */
    public static MinLoc example419(final Communicator comm) {
        final int myrank = comm.rank();
        // local minloc
        float value = val(myrank, 0);
        int index = 0;
        for (int i = 1; i < LEN; i++) {
            if (value > val(myrank, i)) {
                value = val(myrank, i);
                index = i;
            }
        }
        // struct { float value; int index; } in, out
        final ByteBuffer in = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        in.putFloat(0, value).putInt(4, myrank * LEN + index);
        final ByteBuffer out = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        comm.reduce(in, out, 1, Datatype.FLOAT_INT, Op.MINLOC, ROOT);
        if (myrank != ROOT) {
            return null;
        }
        return new MinLoc(out.getFloat(0), out.getInt(4) / LEN, out.getInt(4) % LEN);
    }

    /**
     * Runs the examples and prints the root's results.
     *
     * @param args optional number of ranks
     */
    public static void main(final String[] args) {
        final int ranks = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        LocalCluster.run(ranks, comm -> {
            final MaxLoc c = example417(comm);
            final MaxLoc f = example418(comm);
            final MinLoc m = example419(comm);
            if (comm.rank() == ROOT) {
                System.out.println("Example 4.17 maxima " + java.util.Arrays.toString(c.aout()));
                System.out.println("             ranks  " + java.util.Arrays.toString(c.ind()));
                System.out.println("Example 4.18 ranks  " + java.util.Arrays.toString(f.ind()));
                System.out.println("Example 4.19 minimum " + m.minval() + " on rank " + m.minrank() + " at index "
                    + m.minindex());
            }
        });
    }
}
