package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * Over TCP (epoll and NIO), collectives send large blocks of direct buffers by rendezvous straight from the
 * caller's memory (here from 2 MiB, so that messages of a few MiB test it; by default from 32 MiB, or 2 MiB where
 * ranks outnumber cores), with no packing. Every receiver must get exactly the blocks it would have got from packed
 * sends, whatever memory it receives into; the send buffers must keep their bytes; and a receiver that leaves before
 * it asks for the data must fail the sender, not leave it waiting.
 */
@Timeout(180)
class InPlaceSendTest {
    private static CommSettings inPlaceFrom2MiB() {
        return RendezvousTest.sharedMemory(false).with("sendInPlaceMinBytes", 2 << 20);
    }

    private static long sentInPlace(final Communicator world) {
        return ((TcpFabric) world.fabric()).counters().bytesSentInPlace();
    }

    static List<Object[]> transportsAndRanks() {
        return List.of(new Object[] {Transport.TCP, 2}, new Object[] {Transport.TCP, 3},
            new Object[] {Transport.TCP_NIO, 4});
    }

    /** Value {@code i} of a rank's operand, distinct across ranks and positions (also used by {@link PackLateTest}). */
    static double value(final int rank, final long i) {
        return rank * 1e8 + i + 0.5;
    }

    /** A direct buffer of {@code count} doubles of a rank's values, behind {@code offset} bytes of 0x5a. */
    private static ByteBuffer direct(final int rank, final int count, final int offset) {
        final ByteBuffer b = ByteBuffer.allocateDirect(offset + 8 * count + 24).order(ByteOrder.nativeOrder());
        for (int i = 0; i < b.capacity(); i++) {
            b.put(i, (byte) 0x5a);
        }
        for (int i = 0; i < count; i++) {
            b.putDouble(offset + 8 * i, value(rank, i));
        }
        return b;
    }

    /** {@code got[from, from + count)} holds a rank's values {@code first, first + 1, ...}. */
    static void assertValues(final int rank, final double[] got, final int from, final int count, final long first,
                             final String what) {
        for (int i = 0; i < count; i++) {
            // the message is built only for a mismatch: millions of values are checked
            if (value(rank, first + i) != got[from + i]) {
                assertEquals(value(rank, first + i), got[from + i], what + ", value " + i);
            }
        }
    }

    /** The buffer still holds what {@link #direct} put there: sending read it and nothing else. */
    private static void assertUnchanged(final ByteBuffer b, final int rank, final int count, final int offset) {
        assertEquals(direct(rank, count, offset), b.duplicate().clear());
    }

    /**
     * Eager messages from 64 KiB whose data is one run of a direct buffer are written from it: a send returns only
     * once the socket has taken the bytes, so the sender may overwrite them at once; two ranks that both send before
     * they receive still get through; smaller messages and other layouts are packed as before.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(value = Transport.class, names = {"TCP", "TCP_NIO"})
    void eagerMessagesLeaveFromDirectMemoryWhichIsFreeOnceTheSendReturns(final Transport transport) {
        final int big = 131072;
        final int small = 2048;
        transport.call(2, RendezvousTest.sharedMemory(false), world -> {
            final int me = world.rank();
            final int other = 1 - me;
            final long before = ((TcpFabric) world.fabric()).counters().bytesSentEagerInPlace();
            // at an odd offset, so the run starts inside the buffer
            final ByteBuffer b = direct(me, big, 12);
            final Memory m = Memory.of(b).at(12);
            world.send(m, big, Datatype.DOUBLE, other, 1);
            for (int i = 0; i < big; i++) {
                b.putDouble(12 + 8 * i, value(me + 2, i));
            }
            world.send(m, big, Datatype.DOUBLE, other, 2);
            world.send(m, 8192, Datatype.DOUBLE, other, 3);
            world.send(m, small, Datatype.DOUBLE, other, 4);
            // every other double of the first 2 * 8192: one type, but not one run
            world.send(m, 1, Datatype.vector(8192, 1, 2, Datatype.DOUBLE), other, 5);
            final double[] first = new double[big];
            final double[] second = new double[big];
            final double[] exact = new double[8192];
            final double[] below = new double[small];
            final double[] strided = new double[8192];
            world.recv(first, big, Datatype.DOUBLE, other, 1);
            world.recv(second, big, Datatype.DOUBLE, other, 2);
            world.recv(exact, 8192, Datatype.DOUBLE, other, 3);
            world.recv(below, small, Datatype.DOUBLE, other, 4);
            world.recv(strided, 8192, Datatype.DOUBLE, other, 5);
            assertValues(other, first, 0, big, 0, "the bytes as they were when the first send returned");
            assertValues(other + 2, second, 0, big, 0, "the overwritten bytes");
            assertValues(other + 2, exact, 0, 8192, 0, "64 KiB");
            assertValues(other + 2, below, 0, small, 0, "16 KiB, packed");
            for (int i = 0; i < 8192; i++) {
                assertEquals(value(other + 2, 2L * i), strided[i], "strided value " + i);
            }
            assertEquals(2L * 8 * big + 8 * 8192, ((TcpFabric) world.fabric()).counters().bytesSentEagerInPlace() - before,
                "the two 1 MiB and the 64 KiB messages left from the buffer, the others packed");
            return null;
        });
    }

    @ParameterizedTest
    @MethodSource("transportsAndRanks")
    void collectivesSendDirectBlocksUnpackedAndEveryReceiverGetsThem(final Transport transport, final int n) {
        transport.call(n, inPlaceFrom2MiB(), world -> {
            final int me = world.rank();
            final long before = sentInPlace(world);
            // bcast: binomial, eager (1 MiB: packed) and by rendezvous (3 MiB + 8: in place); pipelined in 1 MiB
            // segments (9 MiB: packed)
            for (final int count : new int[] {131072, 393217, 9 << 17}) {
                final int root = n - 1;
                if (me == root) {
                    final ByteBuffer data = direct(root, count, 0);
                    world.bcast(data, count, Datatype.DOUBLE, root);
                    assertUnchanged(data, root, count, 0);
                } else {
                    final double[] got = new double[count];
                    world.bcast(got, count, Datatype.DOUBLE, root);
                    assertValues(root, got, 0, count, 0, "bcast of " + count);
                }
            }
            // gather: 3 MiB + 8 from each rank, its block 16 bytes into its buffer
            final int block = 393217;
            final ByteBuffer mine = direct(me, block, 16);
            final double[] all = me == 0 ? new double[block * n] : null;
            world.gather(Memory.of(mine).at(16), block, Datatype.DOUBLE, all, block, Datatype.DOUBLE, 0);
            assertUnchanged(mine, me, block, 16);
            if (me == 0) {
                for (int r = 0; r < n; r++) {
                    assertValues(r, all, r * block, block, 0, "gather from rank " + r);
                }
            }
            // scatter: 2.4 MiB to each rank from a read-only view of the root's buffer
            final int part = 300000;
            final ByteBuffer source = me == 0 ? direct(0, part * n, 0) : null;
            final double[] got = new double[part];
            world.scatter(me == 0 ? source.asReadOnlyBuffer() : null, part, Datatype.DOUBLE, got, part,
                Datatype.DOUBLE, 0);
            assertValues(0, got, 0, part, (long) me * part, "scatter to rank " + me);
            // allgather (ring): each block forwarded from the receive buffer, a direct one
            final int share = 300001;
            final ByteBuffer gathered = ByteBuffer.allocateDirect(8 * share * n).order(ByteOrder.nativeOrder());
            final double[] own = new double[share];
            for (int i = 0; i < share; i++) {
                own[i] = value(me, i);
            }
            world.allgather(own, share, Datatype.DOUBLE, gathered, share, Datatype.DOUBLE);
            for (int r = 0; r < n; r++) {
                for (int i = 0; i < share; i++) {
                    assertEquals(value(r, i), gathered.getDouble(8 * (r * share + i)), "allgather block " + r);
                }
            }
            // alltoall (pairwise): 2 MiB + 8 blocks, into heap arrays
            final int each = 262145;
            final ByteBuffer out = ByteBuffer.allocateDirect(8 * each * n).order(ByteOrder.nativeOrder());
            for (int d = 0; d < n; d++) {
                for (int i = 0; i < each; i++) {
                    out.putDouble(8 * (d * each + i), value(me, (long) d * each + i));
                }
            }
            final double[] in = new double[each * n];
            world.alltoall(out, each, Datatype.DOUBLE, in, each, Datatype.DOUBLE);
            for (int s = 0; s < n; s++) {
                assertValues(s, in, s * each, each, (long) me * each, "alltoall block from rank " + s);
            }
            assertTrue(sentInPlace(world) > before, "rank " + me + " sent some blocks in place");
            return null;
        });
    }

    /**
     * Rabenseifner's allreduce of direct buffers on 4 ranks sends the half it gives away from the send buffer and the
     * allgather's blocks from the receive buffer in place (8 and 4 MiB here); the half it keeps goes on packed from
     * the heap. Every rank gets every exact sum, the send buffer keeps its bytes, and {@code IN_PLACE}, where the
     * blocks sent from the buffer are the ones later overwritten by the allgather, gives the same.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(value = Transport.class, names = {"TCP", "TCP_NIO"})
    void aLargeAllreduceOfDirectBuffersSendsItsBlocksInPlace(final Transport transport) {
        final int n = 4;
        // 2 MiB + 8 per block: the blocks differ by one element
        final int count = 4 * 262144 + 3;
        transport.call(n, inPlaceFrom2MiB(), world -> {
            final int me = world.rank();
            final long before = sentInPlace(world);
            final ByteBuffer operand = direct(me, count, 8);
            final ByteBuffer sums = ByteBuffer.allocateDirect(8 * count).order(ByteOrder.nativeOrder());
            world.allreduce(Memory.of(operand).at(8), Memory.of(sums), count, Datatype.DOUBLE, Op.SUM);
            assertUnchanged(operand, me, count, 8);
            final ByteBuffer both = direct(me, count, 0);
            world.allreduce(Communicator.IN_PLACE, both, count, Datatype.DOUBLE, Op.SUM);
            for (int i = 0; i < count; i++) {
                double expected = 0;
                for (int r = 0; r < n; r++) {
                    expected += value(r, i);
                }
                // the message is built only for a mismatch
                if (expected != sums.getDouble(8 * i) || expected != both.getDouble(8 * i)) {
                    assertEquals(expected, sums.getDouble(8 * i), "sum " + i);
                    assertEquals(expected, both.getDouble(8 * i), "sum " + i + " in place");
                }
            }
            assertTrue(sentInPlace(world) > before, "rank " + me + " sent its blocks in place");
            return null;
        });
    }

    /**
     * By default, where ranks do not outnumber cores, a message of a few MiB is packed (its sender's call then need
     * not wait), one of 32 MiB is not. (The crowded threshold is set to the same here, so that a host of one core
     * gives the same answer.)
     */
    @Test
    void byDefaultOnlyVeryLargeMessagesGoInPlace() {
        Transport.TCP.call(2, RendezvousTest.sharedMemory(false).with("crowdedSendInPlaceMinBytes", Integer.toString(32 << 20)), world -> {
            final int me = world.rank();
            final long[] sent = new long[4];
            int k = 0;
            for (final int count : new int[] {65536, 393217, 4 << 20}) {
                final long before = sentInPlace(world);
                final ByteBuffer mine = direct(me, count, 0);
                final double[] all = me == 0 ? new double[count * 2] : null;
                world.gather(mine, count, Datatype.DOUBLE, all, count, Datatype.DOUBLE, 0);
                if (me == 0) {
                    assertValues(1, all, count, count, 0, "gather of " + count + " from rank 1");
                }
                sent[k++] = sentInPlace(world) - before;
            }
            if (me == 1) {
                assertEquals(0, sent[0], "512 KiB, eager: packed");
                assertEquals(0, sent[1], "3 MiB + 8, rendezvous: packed");
                assertEquals(32L << 20, sent[2], "32 MiB, rendezvous: in place");
            }
            return null;
        });
    }

    /**
     * Where ranks outnumber cores (one rank more than this host has), a message of 2 MiB or more goes in place by
     * default, one below stays packed.
     */
    @Test
    void whereRanksOutnumberCoresMessagesFrom2MiBGoInPlace() {
        final int n = Runtime.getRuntime().availableProcessors() + 1;
        org.junit.jupiter.api.Assumptions.assumeTrue(n <= 9, "a test host of at most 8 cores");
        Transport.TCP.call(n, RendezvousTest.sharedMemory(false), world -> {
            final int me = world.rank();
            final long[] sent = new long[2];
            int k = 0;
            for (final int count : new int[] {262143, 262144}) {
                final long before = sentInPlace(world);
                final ByteBuffer mine = direct(me, count, 0);
                final double[] all = me == 0 ? new double[count * n] : null;
                world.gather(mine, count, Datatype.DOUBLE, all, count, Datatype.DOUBLE, 0);
                if (me == 0) {
                    for (int r = 0; r < n; r++) {
                        assertValues(r, all, r * count, count, 0, "gather of " + count + " from rank " + r);
                    }
                }
                sent[k++] = sentInPlace(world) - before;
            }
            if (me != 0) {
                assertEquals(0, sent[0], "2 MiB - 8, rendezvous: packed");
                assertEquals(2L << 20, sent[1], "2 MiB: in place");
            }
            return null;
        });
    }

    @Test
    void blocksOfHeapArraysAndStridedTypesAreStillPackedAndArriveIntact() {
        Transport.TCP.call(3, inPlaceFrom2MiB(), world -> {
            final int me = world.rank();
            final long before = sentInPlace(world);
            final int count = 200000;
            // every other double of a direct buffer: not one run, so packed
            final ByteBuffer strided = ByteBuffer.allocateDirect(16 * count).order(ByteOrder.nativeOrder());
            for (int i = 0; i < count; i++) {
                strided.putDouble(16 * i, value(me, i));
            }
            final double[] all = me == 0 ? new double[count * 3] : null;
            world.gather(strided, 1, Datatype.vector(count, 1, 2, Datatype.DOUBLE), all, count, Datatype.DOUBLE, 0);
            final double[] heap = new double[count];
            for (int i = 0; i < count; i++) {
                heap[i] = value(me, i);
            }
            final double[] fromHeap = me == 1 ? new double[count * 3] : null;
            world.gather(heap, count, Datatype.DOUBLE, fromHeap, count, Datatype.DOUBLE, 1);
            for (int r = 0; r < 3; r++) {
                if (me == 0) {
                    assertValues(r, all, r * count, count, 0, "strided gather from rank " + r);
                }
                if (me == 1) {
                    assertValues(r, fromHeap, r * count, count, 0, "heap gather from rank " + r);
                }
            }
            assertEquals(before, sentInPlace(world), "nothing went in place");
            return null;
        });
    }

    /**
     * A root that leaves instead of gathering: the others' sends, waiting in place for it to ask, fail naming it
     * (its memory is theirs again) instead of waiting forever.
     */
    @Test
    void aRootThatLeavesBeforeAskingFailsTheSendsWaitingInPlace() {
        final List<String> outcomes = Transport.TCP.call(3, inPlaceFrom2MiB(), world -> {
            if (world.rank() == 2) {
                world.close();
                return "left";
            }
            final ByteBuffer mine = direct(world.rank(), 393217, 0);
            try {
                world.gather(mine, 393217, Datatype.DOUBLE, null, 0, Datatype.DOUBLE, 2);
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
