package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.pario.comm.internal.tcp.TcpFabric;
import org.pario.comm.settings.CommSettings;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/**
 * Over TCP, on a JVM that can hand a Java array to the kernel (Java 22+ with native access, the multi-release jar's
 * classes: the build's {@code multi-release-jar} run sets {@code pario.expectArraySockets=true}), an eager message of
 * 64 KiB or more and a collective's block packed as it leaves go into the socket straight from the array, packed only
 * where the socket fills, and data bound for a receive that is one run of an array is read into it straight; elsewhere
 * (Java 17, the build directory's classes, NIO, {@code arraySockets=false}) nothing is written from or read into
 * arrays that way and the same messages are packed and copied. Either way every receiver gets exactly the values the
 * array held when the send returned, for runs that start inside the array, every kind of array, messages the socket
 * takes only part of, and types that are not one run.
 */
@Timeout(180)
class ArraySocketsTest {
    private static final boolean EXPECTED = Boolean.getBoolean("pario.expectArraySockets");

    private static long fromArrays(final Communicator world) {
        return ((TcpFabric) world.fabric()).counters().bytesSentFromArrays();
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"TCP", "TCP_NIO"})
    void eagerMessagesLeaveFromTheArrayAndTheArrayIsFreeOnceTheSendReturns(final Transport transport) {
        final int whole = 131072;
        final int odd = whole - 3;
        final int below = 4096;
        final int bytes = 600_001;
        transport.call(2, RendezvousTest.sharedMemory(false), world -> {
            final long before = fromArrays(world);
            if (world.rank() == 0) {
                final double[] a = EagerPiecesTest.values(0, whole);
                world.send(a, whole, Datatype.DOUBLE, 1, 1);
                // overwritten at once: the receiver must see the values of the first send
                System.arraycopy(EagerPiecesTest.values(2, whole), 0, a, 0, whole);
                world.send(Memory.of(a).at(24), odd, Datatype.DOUBLE, 1, 2);
                // 32 KiB, below the eager in-place minimum: packed whole
                world.send(a, below, Datatype.DOUBLE, 1, 3);
                // every other double: not one run, packed
                world.send(a, 1, Datatype.vector(below, 1, 2, Datatype.DOUBLE), 1, 4);
                final float[] f = new float[whole];
                for (int i = 0; i < whole; i++) {
                    f[i] = i * 0.25f;
                }
                world.send(f, whole, Datatype.FLOAT, 1, 5);
                final byte[] got = new byte[bytes];
                world.recv(got, bytes, Datatype.BYTE, 1, 6);
                for (int i = 0; i < bytes; i++) {
                    if (EagerPiecesTest.byteAt(1, i + 5) != got[i]) {
                        assertEquals(EagerPiecesTest.byteAt(1, i + 5), got[i], "byte " + i);
                    }
                }
                final long sent = fromArrays(world) - before;
                if (EXPECTED && transport == Transport.TCP) {
                    // a socket that filled part way took less of a message straight from its array
                    assertTrue(sent > 0 && sent <= 8L * whole + 8L * odd + 4L * whole, "bytes from arrays: " + sent);
                } else {
                    assertEquals(0, sent, "nothing written from arrays");
                }
            } else {
                final double[] first = new double[whole];
                final double[] shifted = new double[odd];
                final double[] small = new double[below];
                final double[] strided = new double[below];
                final float[] f = new float[whole];
                world.recv(first, whole, Datatype.DOUBLE, 0, 1);
                world.recv(shifted, odd, Datatype.DOUBLE, 0, 2);
                world.recv(small, below, Datatype.DOUBLE, 0, 3);
                world.recv(strided, below, Datatype.DOUBLE, 0, 4);
                world.recv(f, whole, Datatype.FLOAT, 0, 5);
                InPlaceSendTest.assertValues(0, first, 0, whole, 0, "the values when the first send returned");
                InPlaceSendTest.assertValues(2, shifted, 0, odd, 3, "from 3 doubles in");
                InPlaceSendTest.assertValues(2, small, 0, below, 0, "32 KiB, packed whole");
                for (int i = 0; i < below; i++) {
                    assertEquals(InPlaceSendTest.value(2, 2L * i), strided[i], "strided value " + i);
                }
                for (int i = 0; i < whole; i++) {
                    if (f[i] != i * 0.25f) {
                        assertEquals(i * 0.25f, f[i], "float " + i);
                    }
                }
                final byte[] out = new byte[bytes + 7];
                for (int i = 0; i < out.length; i++) {
                    out[i] = EagerPiecesTest.byteAt(1, i);
                }
                // a byte[] from 5 bytes in: the memory's array is the byte[] itself
                world.send(Memory.of(out).at(5), bytes, Datatype.BYTE, 0, 6);
                final long sent = fromArrays(world) - before;
                if (EXPECTED && transport == Transport.TCP) {
                    assertTrue(sent > 0 && sent <= bytes, "bytes from arrays: " + sent);
                } else {
                    assertEquals(0, sent, "nothing written from arrays");
                }
            }
            return null;
        });
    }

    private static long intoArrays(final Communicator world) {
        return ((TcpFabric) world.fabric()).counters().bytesReadIntoArrays();
    }

    /**
     * Receives posted before their messages come, into arrays: a 4 MiB message by rendezvous into a {@code double[]}
     * from one element in, and a 512 KiB eager one into a {@code float[]}. The socket reads their data straight into
     * the arrays where the JVM can; every value arrives, and nothing around the run is touched.
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"TCP", "TCP_NIO"})
    void receivesPostedAheadAreReadStraightIntoTheirArrays(final Transport transport) {
        final int count = (4 << 20) / 8 + 3;
        final int floats = (512 << 10) / 4;
        transport.call(2, RendezvousTest.sharedMemory(false), world -> {
            final long before = intoArrays(world);
            if (world.rank() == 1) {
                final double[] got = new double[count + 2];
                final float[] f = new float[floats];
                final Request<?> big = world.irecv(Memory.of(got).at(8), count, Datatype.DOUBLE, 0, 7);
                final Request<?> eager = world.irecv(f, floats, Datatype.FLOAT, 0, 8);
                world.barrier();
                Request.joinAll(big, eager);
                InPlaceSendTest.assertValues(0, got, 1, count, 0, "the rendezvous message");
                assertEquals(0.0, got[0], "the double before the run");
                assertEquals(0.0, got[count + 1], "the double after the run");
                for (int i = 0; i < floats; i++) {
                    if (f[i] != i * 0.5f) {
                        assertEquals(i * 0.5f, f[i], "float " + i);
                    }
                }
                final long read = intoArrays(world) - before;
                if (EXPECTED && transport == Transport.TCP) {
                    assertTrue(read > 0 && read <= 8L * count + 4L * floats, "bytes read into arrays: " + read);
                } else {
                    assertEquals(0, read, "nothing read into arrays");
                }
            } else {
                world.barrier();
                world.send(EagerPiecesTest.values(0, count), count, Datatype.DOUBLE, 1, 7);
                final float[] f = new float[floats];
                for (int i = 0; i < floats; i++) {
                    f[i] = i * 0.5f;
                }
                world.send(f, floats, Datatype.FLOAT, 1, 8);
            }
            return null;
        });
    }

    /**
     * Both ranks send sixteen 1 MiB messages before either receives, over sockets of 64 KiB buffers: the sockets
     * fill, so the rest of a message is packed and goes through Netty after part of it went straight from the
     * array, and the credit runs out, so later messages wait by rendezvous. All arrive in order with their values.
     */
    @Test
    void messagesTheSocketTakesOnlyPartOfArriveWhole() {
        final int count = 131072;
        final int messages = 16;
        Transport.TCP.call(2, RendezvousTest.sharedMemory(false).with("socketBufferBytes", "65536"), world -> {
            final int me = world.rank();
            final int other = 1 - me;
            for (int round = 0; round < 3; round++) {
                final Request<?>[] sends = new Request<?>[messages];
                for (int k = 0; k < messages; k++) {
                    sends[k] = world.isend(EagerPiecesTest.values(me + 10 * k + round, count), count, Datatype.DOUBLE, other, k);
                }
                final double[] got = new double[count];
                for (int k = 0; k < messages; k++) {
                    world.recv(got, count, Datatype.DOUBLE, other, k);
                    InPlaceSendTest.assertValues(other + 10 * k + round, got, 0, count, 0, "message " + k);
                }
                Request.joinAll(sends);
            }
            return null;
        });
    }

    /**
     * A gather and an alltoall of heap blocks of 2 MiB and more (packed as they leave from 2 MiB here, in pieces of
     * 64 KiB, so a block goes in many pieces), on 3 ranks: every block arrives whole, and the send arrays keep their
     * values.
     */
    @Test
    void collectivesBlocksLeaveFromTheArrays() {
        final int n = 3;
        final int count = (2 << 20) / 8 + 5;
        final CommSettings settings = RendezvousTest.sharedMemory(false).with("packLateMinBytes", 2 << 20)
            .with("packLatePieceBytes", 64 << 10);
        Transport.TCP.call(n, settings, world -> {
            final int me = world.rank();
            final long before = fromArrays(world);
            final double[] mine = EagerPiecesTest.values(me, count);
            final double[] all = new double[n * count];
            world.gather(mine, count, Datatype.DOUBLE, all, count, Datatype.DOUBLE, 0);
            if (me == 0) {
                for (int r = 0; r < n; r++) {
                    InPlaceSendTest.assertValues(r, all, r * count, count, 0, "rank " + r + "'s block");
                }
            }
            InPlaceSendTest.assertValues(me, mine, 0, count, 0, "the send array");
            final double[] out = new double[n * count];
            for (int r = 0; r < n; r++) {
                for (int i = 0; i < count; i++) {
                    out[r * count + i] = InPlaceSendTest.value(10 * me + r, i);
                }
            }
            final double[] in = new double[n * count];
            world.alltoall(out, count, Datatype.DOUBLE, in, count, Datatype.DOUBLE);
            for (int r = 0; r < n; r++) {
                InPlaceSendTest.assertValues(10 * r + me, in, r * count, count, 0, "from rank " + r);
            }
            final long[] sent = new long[1];
            world.allreduce(new long[] {fromArrays(world) - before}, sent, 1, Datatype.LONG, Op.SUM);
            if (EXPECTED) {
                assertTrue(sent[0] > 0, "blocks went from the arrays");
            } else {
                assertEquals(0, sent[0], "nothing written from arrays");
            }
            return null;
        });
    }

    @Test
    void turnedOffNothingIsWrittenFromArrays() {
        final int count = 131072;
        Transport.TCP.call(2, RendezvousTest.sharedMemory(false).with("arraySockets", false), world -> {
            final long before = fromArrays(world);
            final double[] a = EagerPiecesTest.values(world.rank(), count);
            final double[] got = new double[count];
            world.sendrecv(a, count, Datatype.DOUBLE, 1 - world.rank(), 0, got, count, Datatype.DOUBLE,
                1 - world.rank(), 0);
            InPlaceSendTest.assertValues(1 - world.rank(), got, 0, count, 0, "the other rank's values");
            assertEquals(0, fromArrays(world) - before, "arraySockets=false: nothing written from arrays");
            assertEquals(0, intoArrays(world), "arraySockets=false: nothing read into arrays");
            return null;
        });
    }
}
