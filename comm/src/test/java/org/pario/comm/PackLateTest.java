package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.pario.comm.InPlaceSendTest.assertValues;
import static org.pario.comm.InPlaceSendTest.value;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.pario.ParioException;
import org.pario.comm.internal.tcp.TcpFabric;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.comm.settings.CommSettings;

/**
 * Over TCP (epoll and NIO), collectives send large blocks of heap arrays by rendezvous packed piece by piece as the
 * socket takes them, once the receiver asks (here from 2 MiB in 64 KiB pieces, so that messages of a few MiB go in
 * many pieces; by default from 16 MiB in 1 MiB pieces). Every receiver must get exactly the blocks it would have got
 * from sends packed up front, whatever memory it receives into; the send arrays must keep their values; and a
 * receiver that leaves before it asks for the data must fail the sender, not leave it waiting.
 */
@Timeout(180)
class PackLateTest {
    private static CommSettings lateFrom2MiB() {
        return RendezvousTest.sharedMemory(false).with("packLateMinBytes", 2 << 20).with("packLatePieceBytes", 64 << 10);
    }

    private static long packedLate(final Communicator world) {
        return ((TcpFabric) world.fabric()).counters().bytesPackedLate();
    }

    static List<Object[]> transportsAndRanks() {
        return List.of(new Object[] {Transport.TCP, 2}, new Object[] {Transport.TCP, 3},
            new Object[] {Transport.TCP_NIO, 4}, new Object[] {Transport.TCP, 5});
    }

    private static double[] values(final int rank, final int count) {
        final double[] a = new double[count];
        for (int i = 0; i < count; i++) {
            a[i] = value(rank, i);
        }
        return a;
    }

    @ParameterizedTest
    @MethodSource("transportsAndRanks")
    void collectivesPackHeapBlocksAsTheyLeaveAndEveryReceiverGetsThem(final Transport transport, final int n) {
        transport.call(n, lateFrom2MiB(), world -> {
            final int me = world.rank();
            final long before = packedLate(world);
            // bcast: binomial, eager (1 MiB: packed up front) and by rendezvous (3 MiB + 8: packed late);
            // pipelined in 1 MiB segments (9 MiB: packed up front)
            for (final int count : new int[] {131072, 393217, 9 << 17}) {
                final int root = n - 1;
                final double[] data = me == root ? values(root, count) : new double[count];
                world.bcast(data, count, Datatype.DOUBLE, root);
                assertValues(root, data, 0, count, 0, "bcast of " + count + " at rank " + me);
            }
            // gather: 3 MiB + 8 from each rank, its block 16 bytes into its array, into a direct buffer at the root
            final int block = 393217;
            final double[] mine = new double[block + 2];
            System.arraycopy(values(me, block), 0, mine, 2, block);
            final double[] mineBefore = mine.clone();
            final ByteBuffer all = me == 0
                ? ByteBuffer.allocateDirect(8 * block * n).order(ByteOrder.nativeOrder()) : null;
            world.gather(Memory.of(mine).at(16), block, Datatype.DOUBLE, all, block, Datatype.DOUBLE, 0);
            assertArrayEquals(mineBefore, mine, "the gathered array keeps its values");
            if (me == 0) {
                for (int r = 0; r < n; r++) {
                    for (int i = 0; i < block; i++) {
                        if (value(r, i) != all.getDouble(8 * (r * block + i))) {
                            assertEquals(value(r, i), all.getDouble(8 * (r * block + i)), "gather from " + r);
                        }
                    }
                }
            }
            // scatter: 2.4 MiB to each rank
            final int part = 300000;
            final double[] source = me == 0 ? values(0, part * n) : null;
            final double[] got = new double[part];
            world.scatter(source, part, Datatype.DOUBLE, got, part, Datatype.DOUBLE, 0);
            assertValues(0, got, 0, part, (long) me * part, "scatter to rank " + me);
            // allgather (ring): each block forwarded from the receive array
            final int share = 300001;
            final double[] gathered = new double[share * n];
            world.allgather(values(me, share), share, Datatype.DOUBLE, gathered, share, Datatype.DOUBLE);
            for (int r = 0; r < n; r++) {
                assertValues(r, gathered, r * share, share, 0, "allgather block " + r);
            }
            // alltoall (pairwise): 2 MiB + 8 blocks of ints (ints are 4 bytes: 524290 of them)
            final int each = 524290;
            final int[] out = new int[each * n];
            for (int i = 0; i < out.length; i++) {
                out[i] = me * 10_000_000 + i;
            }
            final int[] in = new int[each * n];
            world.alltoall(out, each, Datatype.INT, in, each, Datatype.INT);
            for (int s = 0; s < n; s++) {
                for (int i = 0; i < each; i++) {
                    if (in[s * each + i] != s * 10_000_000 + me * each + i) {
                        assertEquals(s * 10_000_000 + me * each + i, in[s * each + i], "alltoall from " + s);
                    }
                }
            }
            // alltoallv: blocks of 0, 64 KiB and 2 MiB + 8 bytes (only the last packed late) by the pair's ranks
            final long[] counts = new long[n];
            final long[] displs = new long[n];
            final long[] rcounts = new long[n];
            final long[] rdispls = new long[n];
            int total = 0;
            int rtotal = 0;
            for (int r = 0; r < n; r++) {
                counts[r] = new int[] {0, 8192, 262145}[(me + r) % 3];
                rcounts[r] = counts[r];
                displs[r] = total;
                rdispls[r] = rtotal;
                total += (int) counts[r];
                rtotal += (int) rcounts[r];
            }
            final double[] vout = values(me, total);
            final double[] vin = new double[rtotal];
            world.alltoallv(vout, counts, displs, Datatype.DOUBLE, vin, rcounts, rdispls, Datatype.DOUBLE);
            for (int s = 0; s < n; s++) {
                // rank s sent this rank the block at its own displacement for this rank
                int sdispl = 0;
                for (int r = 0; r < me; r++) {
                    sdispl += new int[] {0, 8192, 262145}[(s + r) % 3];
                }
                assertValues(s, vin, (int) rdispls[s], (int) rcounts[s], sdispl, "alltoallv block from rank " + s);
            }
            assertTrue(packedLate(world) > before, "rank " + me + " packed some blocks late");
            return null;
        });
    }

    /** By default a heap message of 8 MiB is packed up front, one of 16 MiB piece by piece as it leaves. */
    @Test
    void byDefaultOnlyMessagesFrom16MiBArePackedLate() {
        Transport.TCP.call(2, RendezvousTest.sharedMemory(false), world -> {
            final int me = world.rank();
            final long[] sent = new long[2];
            int k = 0;
            for (final int count : new int[] {1 << 20, 2 << 20}) {
                final long before = packedLate(world);
                final double[] mine = values(me, count);
                final double[] all = me == 0 ? new double[count * 2] : null;
                world.gather(mine, count, Datatype.DOUBLE, all, count, Datatype.DOUBLE, 0);
                if (me == 0) {
                    assertValues(1, all, count, count, 0, "gather of " + count + " from rank 1");
                }
                sent[k++] = packedLate(world) - before;
            }
            if (me == 1) {
                assertEquals(0, sent[0], "8 MiB: packed up front");
                assertEquals(16L << 20, sent[1], "16 MiB: packed late");
            }
            return null;
        });
    }

    @Test
    void stridedTypesArePackedUpFrontAndArriveIntact() {
        Transport.TCP.call(3, lateFrom2MiB(), world -> {
            final int me = world.rank();
            final long before = packedLate(world);
            final int count = 300000;
            // every other double: not one run, so packed up front
            final double[] strided = new double[2 * count];
            for (int i = 0; i < count; i++) {
                strided[2 * i] = value(me, i);
            }
            final double[] all = me == 0 ? new double[count * 3] : null;
            world.gather(strided, 1, Datatype.vector(count, 1, 2, Datatype.DOUBLE), all, count, Datatype.DOUBLE, 0);
            if (me == 0) {
                for (int r = 0; r < 3; r++) {
                    assertValues(r, all, r * count, count, 0, "strided gather from rank " + r);
                }
            }
            assertEquals(before, packedLate(world), "nothing was packed late");
            return null;
        });
    }

    /**
     * A send array too short for its count: checked before the message is announced, so the sender fails with the
     * reason at once, as when it packs up front, and its root fails too instead of waiting.
     */
    @Test
    void aSendArrayTooShortForItsCountFailsTheSenderAtOnce() {
        final List<String> outcomes = Transport.TCP.call(2, lateFrom2MiB(), world -> {
            final double[] mine = new double[300000];
            final double[] all = world.rank() == 0 ? new double[800000] : null;
            try {
                world.gather(mine, world.rank() == 1 ? 400000 : 300000, Datatype.DOUBLE, all, 400000,
                    Datatype.DOUBLE, 0);
                return "completed";
            } catch (ParioException e) {
                return e.getMessage();
            }
        });
        assertTrue(outcomes.get(1).contains("3200000"), outcomes.get(1));
        assertTrue(!outcomes.get(0).equals("completed"), outcomes.get(0));
    }

    /**
     * A root that leaves instead of gathering: the others' sends, waiting for it to ask, fail naming it (their
     * arrays are theirs again) instead of waiting forever.
     */
    @Test
    void aRootThatLeavesBeforeAskingFailsTheSendsWaitingToBePacked() {
        final List<String> outcomes = Transport.TCP.call(3, lateFrom2MiB(), world -> {
            if (world.rank() == 2) {
                world.close();
                return "left";
            }
            try {
                world.gather(values(world.rank(), 393217), 393217, Datatype.DOUBLE, null, 0, Datatype.DOUBLE, 2);
                return "completed";
            } catch (ParioException e) {
                return e.getMessage();
            }
        });
        for (int r = 0; r < 2; r++) {
            assertTrue(outcomes.get(r).contains("rank 2"), r + ": " + outcomes.get(r));
        }
    }
}
