package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.pario.ParioException;
import org.pario.comm.internal.tcp.TcpFabric;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/**
 * Over TCP (epoll and NIO), data for a receive whose memory is one run of a direct buffer is read by the socket
 * straight into that memory, eager and rendezvous messages alike, from one rank or from several at once (and, when
 * {@code pario.inPlaceMinStreams} asks for two, only from several). Every byte must land where unpacking would have
 * put it, bytes beyond the message and the gaps of other receive types must stay untouched, and frames that follow
 * the data on the same connection must still be decoded.
 */
@Timeout(120)
class InPlaceReceiveTest {
    private static final int GO = 99;
    /**
     * Eager (64 KiB), at the eager limit (1 MiB) and by rendezvous (3 MiB + 8, and 24 MiB: more than the socket
     * buffers hold, so that both senders' data is on its way at once).
     */
    private static final int[] COUNTS = {8192, 131072, 393217, 3 << 20};

    private static long inPlace(final Communicator world) {
        return ((TcpFabric) world.fabric()).counters().bytesReadInPlace();
    }

    private static double[] values(final int count, final int seed) {
        final double[] d = new double[count];
        for (int i = 0; i < count; i++) {
            d[i] = seed * 1e7 + i + 0.25;
        }
        return d;
    }

    private static ByteBuffer direct(final int bytes, final byte fill) {
        final ByteBuffer b = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
        for (int i = 0; i < bytes; i++) {
            b.put(i, fill);
        }
        return b;
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"TCP", "TCP_NIO"})
    void messagesFromTwoRanksAtOnceLandInDirectReceiveMemoryAndTheFramesAfterThemStillArrive(
            final Transport transport) {
        transport.call(3, RendezvousTest.sharedMemory(false), world -> {
            // whether two streams overlap is up to the scheduler: a few rounds make it all but certain that one does
            final int[] go = new int[1];
            if (world.rank() != 1) {
                while (true) {
                    world.recv(go, 1, Datatype.INT, 1, GO);
                    if (go[0] == 0) {
                        return null;
                    }
                    for (int k = 0; k < COUNTS.length; k++) {
                        world.send(values(COUNTS[k], 10 * world.rank() + k), COUNTS[k], Datatype.DOUBLE, 1, k);
                        // right behind the data on the same connection: must not be read into the receive memory
                        world.send(new int[] {k}, 1, Datatype.INT, 1, 50 + k);
                    }
                }
            }
            final long before = inPlace(world);
            final int[] senders = {0, 2};
            for (int round = 0; round < 8 && inPlace(world) == before; round++) {
                receiveFromBoth(world, senders);
            }
            assertTrue(inPlace(world) > before, "some of the data was read in place");
            for (final int from : senders) {
                world.send(new int[] {0}, 1, Datatype.INT, from, GO);
            }
            return null;
        });
    }

    /** Posts every receive, lets both senders go at once (as into a gather's root) and checks every byte. */
    private static void receiveFromBoth(final Communicator world, final int[] senders) {
        final ByteBuffer[][] into = new ByteBuffer[3][COUNTS.length];
        final Request<?>[][] posted = new Request<?>[3][COUNTS.length];
        for (final int from : senders) {
            for (int k = 0; k < COUNTS.length; k++) {
                // room for 3 more doubles than the message, behind a 16-byte offset: both must stay untouched
                into[from][k] = direct(8 * (COUNTS[k] + 5), (byte) 0x5a);
                posted[from][k] = world.irecv(Memory.of(into[from][k]).at(16), COUNTS[k] + 3, Datatype.DOUBLE,
                    from, k);
            }
        }
        for (final int from : senders) {
            world.send(new int[] {1}, 1, Datatype.INT, from, GO);
        }
        for (final int from : senders) {
            for (int k = 0; k < COUNTS.length; k++) {
                final int[] marker = new int[1];
                world.recv(marker, 1, Datatype.INT, from, 50 + k);
                assertEquals(k, marker[0], "the frame after message " + k + " from rank " + from);
                final ByteBuffer got = into[from][k];
                assertEquals(8L * COUNTS[k], ((Status) posted[from][k].join()).bytes());
                final double[] expected = values(COUNTS[k], 10 * from + k);
                for (int i = 0; i < COUNTS[k]; i++) {
                    assertEquals(expected[i], got.getDouble(16 + 8 * i), "message " + k + ", value " + i);
                }
                for (int i = 0; i < 16; i++) {
                    assertEquals((byte) 0x5a, got.get(i), "byte " + i + " before the receive address");
                }
                for (int i = 16 + 8 * COUNTS[k]; i < got.capacity(); i++) {
                    assertEquals((byte) 0x5a, got.get(i), "byte " + i + " beyond the message");
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"TCP", "TCP_NIO"})
    void aLoneStreamIsReadInPlace(final Transport transport) {
        final int n = 400_000;
        transport.call(2, RendezvousTest.sharedMemory(false), world -> {
            if (world.rank() == 0) {
                world.send(values(n, 1), n, Datatype.DOUBLE, 1, 1);
                return null;
            }
            final long before = inPlace(world);
            final ByteBuffer into = direct(8 * n + 64, (byte) 0x5a);
            world.recv(into, n, Datatype.DOUBLE, 0, 1);
            final double[] expected = values(n, 1);
            for (int i = 0; i < n; i++) {
                assertEquals(expected[i], into.getDouble(8 * i));
            }
            for (int i = 8 * n; i < into.capacity(); i++) {
                assertEquals((byte) 0x5a, into.get(i), "byte " + i + " beyond the message");
            }
            assertTrue(inPlace(world) > before, "the message was read in place");
            return null;
        });
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"TCP", "TCP_NIO"})
    void aLoneStreamIsReadThroughTheConnectionsBuffersWhenTwoStreamsAreAskedFor(final Transport transport) {
        final int n = 400_000;
        transport.call(2, RendezvousTest.sharedMemory(false).with("inPlaceMinStreams", "2"), world -> {
            if (world.rank() == 0) {
                world.send(values(n, 1), n, Datatype.DOUBLE, 1, 1);
                return null;
            }
            final long before = inPlace(world);
            final ByteBuffer into = direct(8 * n, (byte) 0);
            world.recv(into, n, Datatype.DOUBLE, 0, 1);
            final double[] expected = values(n, 1);
            for (int i = 0; i < n; i++) {
                assertEquals(expected[i], into.getDouble(8 * i));
            }
            assertEquals(before, inPlace(world));
            return null;
        });
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"TCP", "TCP_NIO"})
    void receivesThatAreNotOneDirectRunAreUnpackedAsBefore(final Transport transport) {
        final int n = 300_000;
        transport.call(2, RendezvousTest.sharedMemory(false), world -> {
            if (world.rank() == 0) {
                world.recv(new int[1], 1, Datatype.INT, 1, GO);
                world.send(values(n, 1), n, Datatype.DOUBLE, 1, 1);
                world.send(values(n, 2), n, Datatype.DOUBLE, 1, 2);
                world.send(values(n, 3), n, Datatype.DOUBLE, 1, 3);
                world.send(new double[0], 0, Datatype.DOUBLE, 1, 4);
                return null;
            }
            final long before = inPlace(world);
            // every other double of a direct buffer: the gaps must keep their bytes
            final ByteBuffer strided = direct(16 * n, (byte) 0x33);
            final Request<?> vector = world.irecv(strided, 1, Datatype.vector(n, 1, 2, Datatype.DOUBLE), 0, 1);
            final ByteBuffer heap = ByteBuffer.allocate(8 * n).order(ByteOrder.nativeOrder());
            final Request<?> onHeap = world.irecv(heap, n, Datatype.DOUBLE, 0, 2);
            final ByteBuffer readOnly = direct(8 * n, (byte) 0).asReadOnlyBuffer();
            final Request<?> refused = world.irecv(readOnly, n, Datatype.DOUBLE, 0, 3);
            final ByteBuffer none = direct(8, (byte) 0x11);
            final Request<?> empty = world.irecv(none, 1, Datatype.DOUBLE, 0, 4);
            world.send(new int[1], 1, Datatype.INT, 0, GO);
            vector.join();
            onHeap.join();
            final double[] one = values(n, 1);
            final double[] two = values(n, 2);
            for (int i = 0; i < n; i++) {
                assertEquals(one[i], strided.getDouble(16 * i));
                assertEquals(0x3333333333333333L, strided.getLong(16 * i + 8), "gap after value " + i);
                assertEquals(two[i], heap.getDouble(8 * i));
            }
            final ParioException e = assertThrows(ParioException.class, refused::join);
            assertTrue(e.getMessage().contains("read-only"), e.getMessage());
            assertEquals(0L, ((Status) empty.join()).bytes());
            assertEquals(0x1111111111111111L, none.getLong(0));
            assertEquals(before, inPlace(world), "nothing read in place");
            return null;
        });
    }
}
