package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.datatypes.Datatype;

@Timeout(30)
class OpsTest {
    /** Packs (double value, int index) pairs as MPI_DOUBLE_INT lays them out: 16-byte extent. */
    static ByteBuffer doubleInts(final double[] values, final int[] indices) {
        final ByteBuffer b = ByteBuffer.allocate(16 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < values.length; i++) {
            b.putDouble(16 * i, values[i]).putInt(16 * i + 8, indices[i]);
        }
        return b;
    }

    @Test
    void maxlocTiesGoToLowestRank() {
        LocalCluster.run(5, world -> {
            final int me = world.rank();
            // element 0: ranks 1 and 3 share the maximum; element 1: everyone equal; element 2: rank 4 alone
            final double[] values = {me == 1 || me == 3 ? 9.5 : me, 2.0, me};
            final ByteBuffer in = doubleInts(values, new int[] {me, me, me});
            final ByteBuffer out = ByteBuffer.allocate(48).order(ByteOrder.LITTLE_ENDIAN);
            world.allreduce(in, out, 3, Datatype.DOUBLE_INT, Op.MAXLOC);
            assertEquals(9.5, out.getDouble(0));
            assertEquals(1, out.getInt(8));
            assertEquals(2.0, out.getDouble(16));
            assertEquals(0, out.getInt(24));
            assertEquals(4.0, out.getDouble(32));
            assertEquals(4, out.getInt(40));
            world.allreduce(in, out, 3, Datatype.DOUBLE_INT, Op.MINLOC);
            assertEquals(0.0, out.getDouble(0));
            assertEquals(0, out.getInt(8));
            assertEquals(0, out.getInt(24));
        });
    }

    @Test
    void minlocOnTwoIntAndFloatIntAndDerivedPairTypes() {
        LocalCluster.run(4, world -> {
            final int me = world.rank();
            final int[] pairs = {10 - me, me, me == 2 ? -5 : 7, me};
            final int[] out = new int[4];
            world.allreduce(pairs, out, 2, Datatype.TWO_INT, Op.MINLOC);
            assertArrayEquals(new int[] {7, 3, -5, 2}, out);
            // a contiguous type of float_int pairs is a pair type too
            final ByteBuffer f = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            f.putFloat(0, me % 2).putInt(4, me).putFloat(8, -me).putInt(12, me);
            final ByteBuffer fo = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            world.allreduce(f, fo, 1, Datatype.contiguous(2, Datatype.FLOAT_INT), Op.MAXLOC);
            assertEquals(1.0f, fo.getFloat(0));
            assertEquals(1, fo.getInt(4));
            assertEquals(0.0f, fo.getFloat(8));
            assertEquals(0, fo.getInt(12));
        });
    }

    @Test
    void nonCommutativeUserOpsCombineInRankOrder() {
        // 2x2 integer matrix product: not commutative
        final Op matmul = Op.create("MATMUL", false, (in, inout, count, type) -> {
            for (long e = 0; e < count; e++) {
                final int at = (int) (e * 16);
                final int a = in.getInt(at);
                final int b = in.getInt(at + 4);
                final int c = in.getInt(at + 8);
                final int d = in.getInt(at + 12);
                final int p = inout.getInt(at);
                final int q = inout.getInt(at + 4);
                final int r = inout.getInt(at + 8);
                final int s = inout.getInt(at + 12);
                inout.putInt(at, a * p + b * r).putInt(at + 4, a * q + b * s)
                    .putInt(at + 8, c * p + d * r).putInt(at + 12, c * q + d * s);
            }
        });
        final Datatype matrix = Datatype.contiguous(4, Datatype.INT);
        final List<int[]> results = LocalCluster.call(5, world -> {
            final int me = world.rank();
            final int[] m = {1, me + 1, 0, 1};
            final int[] prod = new int[4];
            world.reduce(m, prod, 1, matrix, matmul, 2);
            final int[] all = new int[4];
            world.allreduce(m, all, 1, matrix, matmul);
            final int[] scan = new int[4];
            world.scan(m, scan, 1, matrix, matmul);
            if (me == 2) {
                assertArrayEquals(all, prod);
            }
            assertArrayEquals(new int[] {1, (me + 1) * (me + 2) / 2, 0, 1}, scan);
            return all;
        });
        // [[1,a],[0,1]] matrices multiply to [[1, sum a],[0,1]] in any order, so check a truly order-sensitive case too
        assertArrayEquals(new int[] {1, 15, 0, 1}, results.get(0));
        final Op leftmost = Op.create("FIRST", false, (in, inout, count, type) -> inout.put(0, in, 0, (int) (count * 4)));
        LocalCluster.run(6, world -> {
            final int[] out = new int[1];
            world.allreduce(new int[] {world.rank() + 10}, out, 1, Datatype.INT, leftmost);
            assertEquals(10, out[0], "x0 op x1 op ... keeps the leftmost operand");
            world.scan(new int[] {world.rank() + 10}, out, 1, Datatype.INT, leftmost);
            assertEquals(10, out[0]);
        });
    }

    @Test
    void predefinedOpsOnEveryCategory() {
        LocalCluster.run(3, world -> {
            final int me = world.rank();
            final int[] bits = new int[3];
            world.allreduce(new int[] {1 << me, me == 1 ? 0 : 5, me}, bits, 3, Datatype.INT, Op.BOR);
            assertArrayEquals(new int[] {7, 5, 3}, bits);
            world.allreduce(new int[] {me, me == 1 ? 0 : 5, 1}, bits, 3, Datatype.INT, Op.LAND);
            assertArrayEquals(new int[] {0, 0, 1}, bits);
            world.allreduce(new int[] {me == 2 ? 1 : 0, 1, 0}, bits, 3, Datatype.INT, Op.LXOR);
            assertArrayEquals(new int[] {1, 1, 0}, bits);
            final long[] unsigned = new long[1];
            world.allreduce(new long[] {me == 0 ? -1L : 5}, unsigned, 1, Datatype.UNSIGNED_LONG, Op.MAX);
            assertEquals(-1L, unsigned[0], "as unsigned, 2^64 - 1 is the largest");
            final float[] z = new float[2];
            world.allreduce(new float[] {1, 1}, z, 1, Datatype.C_FLOAT_COMPLEX, Op.PROD);
            assertArrayEquals(new float[] {-2, 2}, z, 1e-6f, "(1 + i)^3 = -2 + 2i");
            final byte[] bytes = new byte[1];
            world.allreduce(new byte[] {(byte) (0x11 << me)}, bytes, 1, Datatype.BYTE, Op.BXOR);
            assertEquals((byte) (0x11 ^ 0x22 ^ 0x44), bytes[0]);
        });
    }

    @Test
    void opsOnTypesTheyDoNotApplyToAreRefused() {
        LocalCluster.run(1, world -> {
            final ParioException e = assertThrows(ParioException.class,
                () -> world.allreduce(new double[1], new double[1], 1, Datatype.DOUBLE, Op.BAND));
            assertEquals(ErrorCategory.ARGUMENT, e.category());
            assertTrue(e.getMessage().contains("op BAND cannot be applied to datatype double"), e.getMessage());
            assertThrows(ParioException.class,
                () -> world.allreduce(new double[2], new double[2], 1, Datatype.DOUBLE_INT, Op.SUM));
            assertThrows(ParioException.class,
                () -> world.allreduce(new int[2], new int[2], 2, Datatype.INT, Op.MAXLOC));
            assertThrows(ParioException.class,
                () -> world.allreduce(new byte[1], new byte[1], 1, Datatype.CHAR, Op.SUM));
            assertThrows(ParioException.class, () -> world.allreduce(new byte[12], new byte[12], 1,
                Datatype.parse("struct([1,1],[0,8],[double,int])"), Op.MAX));
        });
    }
}
