package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.pario.comm.internal.tcp.TcpFabric;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/**
 * Over TCP (epoll, which writes from the calling thread, and NIO, which always goes through Netty), an eager message
 * of more than 512 KiB whose data is one run of a heap array is packed a piece at a time as it is written, when the
 * receiver has consumed every earlier eager message from the sender. Every receiver must get exactly the bytes the
 * array held when the send returned, whether the socket took every piece at once or filled up part way (both ranks
 * send before either receives), for lengths that are no multiple of a piece and runs that start inside the array;
 * messages behind unconsumed ones, smaller messages and other layouts are packed whole as before. These are the paths
 * of the base classes (Java 17, and the build directory on any JVM); on Java 22+ the multi-release jar writes such
 * messages straight from the arrays ({@link ArraySocketsTest}).
 */
@Timeout(180)
class EagerPiecesTest {
    private static long sentInPieces(final Communicator world) {
        return ((TcpFabric) world.fabric()).counters().bytesSentEagerInPieces();
    }

    /** @return {@code count} doubles of a rank's values, {@link InPlaceSendTest#value} */
    static double[] values(final int rank, final int count) {
        final double[] d = new double[count];
        for (int i = 0; i < count; i++) {
            d[i] = InPlaceSendTest.value(rank, i);
        }
        return d;
    }

    /** @return a rank's byte {@code i} of a byte message */
    static byte byteAt(final int rank, final int i) {
        return (byte) (i * 31 + rank);
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"TCP", "TCP_NIO"})
    void heapMessagesLeaveInPiecesAndTheArrayIsFreeOnceTheSendReturns(final Transport transport) {
        final int whole = 131072;
        // from 3 doubles into the array to its end
        final int odd = whole - 3;
        final int below = 16384;
        // 600001 bytes from 5 bytes in: three pieces, the last one short
        final int bytes = 600_001;
        transport.call(2, RendezvousTest.sharedMemory(false), world -> {
            final long before = sentInPieces(world);
            if (world.rank() == 0) {
                final double[] a = values(0, whole);
                world.send(a, whole, Datatype.DOUBLE, 1, 1);
                // overwritten at once: the receiver must see the values of the first send
                System.arraycopy(values(2, whole), 0, a, 0, whole);
                // rank 1 takes tag 9 first, so the first message is still unconsumed: this one goes whole
                world.send(Memory.of(a).at(24), odd, Datatype.DOUBLE, 1, 2);
                world.send(a, below, Datatype.DOUBLE, 1, 3);
                // every other double: one type, but not one run
                world.send(a, 1, Datatype.vector(below, 1, 2, Datatype.DOUBLE), 1, 4);
                world.send(new int[1], 1, Datatype.INT, 1, 9);
                final byte[] got = new byte[bytes];
                world.recv(got, bytes, Datatype.BYTE, 1, 5);
                for (int i = 0; i < bytes; i++) {
                    if (byteAt(1, i + 5) != got[i]) {
                        assertEquals(byteAt(1, i + 5), got[i], "byte " + i);
                    }
                }
                assertEquals(8L * whole, sentInPieces(world) - before, "only the first message left in pieces");
            } else {
                world.recv(new int[1], 1, Datatype.INT, 0, 9);
                final double[] first = new double[whole];
                final double[] shifted = new double[odd];
                final double[] small = new double[below];
                final double[] strided = new double[below];
                world.recv(first, whole, Datatype.DOUBLE, 0, 1);
                world.recv(shifted, odd, Datatype.DOUBLE, 0, 2);
                world.recv(small, below, Datatype.DOUBLE, 0, 3);
                world.recv(strided, below, Datatype.DOUBLE, 0, 4);
                InPlaceSendTest.assertValues(0, first, 0, whole, 0, "the values when the first send returned");
                InPlaceSendTest.assertValues(2, shifted, 0, odd, 3, "from 3 doubles in");
                InPlaceSendTest.assertValues(2, small, 0, below, 0, "128 KiB, packed whole");
                for (int i = 0; i < below; i++) {
                    assertEquals(InPlaceSendTest.value(2, 2L * i), strided[i], "strided value " + i);
                }
                final byte[] out = new byte[bytes + 7];
                for (int i = 0; i < out.length; i++) {
                    out[i] = byteAt(1, i);
                }
                world.send(Memory.of(out).at(5), bytes, Datatype.BYTE, 0, 5);
                assertEquals(bytes, sentInPieces(world) - before, "the bytes left in pieces");
            }
            return null;
        });
    }

    /**
     * Both ranks send sixteen 1 MiB messages before either receives, over sockets of 64 KiB buffers: the sockets
     * fill, so the rest of a message goes through Netty after part of it went straight into the socket, and the
     * credit runs out, so later messages wait by rendezvous. Each message has its own values; all arrive in order.
     * A receiver that reads on another core while a piece is written can keep a socket from filling, so the
     * exchange is repeated, up to 20 rounds, until a socket has filled on one rank or the other.
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"TCP", "TCP_NIO"})
    void piecesFollowedByWhatTheSocketCouldNotTakeArriveWhole(final Transport transport) {
        final int count = 131072;
        final int messages = 16;
        transport.call(2, RendezvousTest.sharedMemory(false).with("socketBufferBytes", "65536"), world -> {
            final int me = world.rank();
            final int other = 1 - me;
            final long[] filled = new long[1];
            for (int round = 0; round < 20 && filled[0] == 0; round++) {
                final long before = sentInPieces(world);
                final Request<?>[] sends = new Request<?>[messages];
                final double[][] out = new double[messages][];
                for (int k = 0; k < messages; k++) {
                    out[k] = values(me + 10 * k + round, count);
                    sends[k] = world.isend(out[k], count, Datatype.DOUBLE, other, k);
                }
                final double[] got = new double[count];
                for (int k = 0; k < messages; k++) {
                    world.recv(got, count, Datatype.DOUBLE, other, k);
                    InPlaceSendTest.assertValues(other + 10 * k + round, got, 0, count, 0, "message " + k);
                }
                Request.joinAll(sends);
                assertTrue(sentInPieces(world) - before >= 8L * count, "at least the first message left in pieces");
                if (transport != Transport.TCP) {
                    // NIO sockets are never written from the calling thread, so never fill part way through a frame
                    break;
                }
                world.allreduce(new long[] {((TcpFabric) world.fabric()).counters().eagerMessagesThatFilledTheSocket()}, filled,
                    1, Datatype.LONG, Op.SUM);
            }
            if (transport == Transport.TCP) {
                assertTrue(filled[0] > 0, "a socket filled after a message's first piece");
            }
            return null;
        });
    }
}
