package org.pario.comm;

import org.pario.datatypes.Datatype;

/**
 * The typed forms of the common collectives ({@link Communicator#allreduce(long, Op)}, ...), each one call of
 * the MPI-shaped form with the count and datatype taken from the Java type. Gathers of arrays of different
 * lengths first gather the lengths, so the root gets every rank's values concatenated in rank order.
 */
final class Shortcuts {
    private Shortcuts() {
    }

    static long allreduce(final Communicator c, final long value, final Op op) {
        final long[] out = new long[1];
        c.allreduce(new long[] {value}, out, 1, Datatype.LONG, op);
        return out[0];
    }

    static int allreduce(final Communicator c, final int value, final Op op) {
        final int[] out = new int[1];
        c.allreduce(new int[] {value}, out, 1, Datatype.INT, op);
        return out[0];
    }

    static double allreduce(final Communicator c, final double value, final Op op) {
        final double[] out = new double[1];
        c.allreduce(new double[] {value}, out, 1, Datatype.DOUBLE, op);
        return out[0];
    }

    static double[] allreduce(final Communicator c, final double[] values, final Op op) {
        final double[] out = new double[values.length];
        c.allreduce(values, out, values.length, Datatype.DOUBLE, op);
        return out;
    }

    static long[] allreduce(final Communicator c, final long[] values, final Op op) {
        final long[] out = new long[values.length];
        c.allreduce(values, out, values.length, Datatype.LONG, op);
        return out;
    }

    static int[] allreduce(final Communicator c, final int[] values, final Op op) {
        final int[] out = new int[values.length];
        c.allreduce(values, out, values.length, Datatype.INT, op);
        return out;
    }

    static long bcast(final Communicator c, final long value, final int root) {
        final long[] b = {value};
        c.bcast(b, 1, Datatype.LONG, root);
        return b[0];
    }

    static double bcast(final Communicator c, final double value, final int root) {
        final double[] b = {value};
        c.bcast(b, 1, Datatype.DOUBLE, root);
        return b[0];
    }

    /** The bytes of a string's first broadcast: its length and as much of it as fits after that. */
    static final int STRING_FIRST_BROADCAST_BYTES = 1024;

    /**
     * One broadcast carries the length and a short string whole, a second the rest of a longer one: a length
     * broadcast before the bytes was a second latency for every short string (a hint, a view's text).
     */
    static String bcast(final Communicator c, final String value, final int root) {
        final byte[] mine = c.rank() == root ? value.getBytes(java.nio.charset.StandardCharsets.UTF_8) : null;
        final java.nio.ByteBuffer first = java.nio.ByteBuffer.allocate(STRING_FIRST_BROADCAST_BYTES)
            .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        if (mine != null) {
            first.putInt(mine.length).put(mine, 0, Math.min(mine.length, first.remaining()));
        }
        c.bcast(first.array(), first.capacity(), Datatype.BYTE, root);
        final int length = first.getInt(0);
        final int inFirst = Math.min(length, first.capacity() - Integer.BYTES);
        final byte[] b = mine != null ? mine : new byte[length];
        if (mine == null) {
            first.get(Integer.BYTES, b, 0, inFirst);
        }
        if (length > inFirst) {
            c.bcast(java.nio.ByteBuffer.wrap(b, inFirst, length - inFirst).slice(), length - inFirst, Datatype.BYTE,
                root);
        }
        return new String(b, java.nio.charset.StandardCharsets.UTF_8);
    }

    static long[] allgather(final Communicator c, final long value) {
        final long[] out = new long[c.size()];
        c.allgather(new long[] {value}, 1, Datatype.LONG, out, 1, Datatype.LONG);
        return out;
    }

    static double[] allgather(final Communicator c, final double value) {
        final double[] out = new double[c.size()];
        c.allgather(new double[] {value}, 1, Datatype.DOUBLE, out, 1, Datatype.DOUBLE);
        return out;
    }

    /** The root's buffer of every rank's {@code length} values, or null on other ranks. */
    static Object gather(final Communicator c, final Object mine, final int length, final Datatype type,
                         final int root, final java.util.function.IntFunction<Object> allocate) {
        final long[] lengths = new long[c.size()];
        c.gather(new long[] {length}, 1, Datatype.LONG, lengths, 1, Datatype.LONG, root);
        if (c.rank() != root) {
            c.gatherv(mine, length, type, null, null, null, type, root);
            return null;
        }
        final long[] displs = new long[lengths.length];
        long total = 0;
        for (int r = 0; r < lengths.length; r++) {
            displs[r] = total;
            total += lengths[r];
        }
        if (total > Integer.MAX_VALUE - 8) {
            throw org.pario.ParioException.argument("gather: the ranks send " + total + " values together, more "
                + "than one Java array holds");
        }
        final Object out = allocate.apply((int) total);
        c.gatherv(mine, length, type, out, lengths, displs, type, root);
        return out;
    }
}
