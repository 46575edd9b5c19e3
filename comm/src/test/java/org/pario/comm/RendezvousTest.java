package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.internal.tcp.TcpFabric;
import org.pario.datatypes.Datatype;
import org.pario.comm.settings.CommSettings;

/**
 * Over TCP, large messages wait at their sender until a receive matches them and then land straight in the receive
 * buffer; eager messages are bounded per peer by credit, so a receiver that is slow to receive holds at most the
 * credit in unexpected data, however much is sent to it. Ranks in one JVM are on one host, so large messages go
 * through shared memory unless that is turned off: the tests run both ways.
 */
@Timeout(120)
class RendezvousTest {
    /** The size of the pieces rendezvous data travels in, as the run's settings have it. */
    private static final int PIECE = CommSettings.fromSystemProperties().rendezvousPieceBytes();

    /** @return the settings of the run with the shared-memory path on or off */
    static CommSettings sharedMemory(final boolean on) {
        return CommSettings.fromSystemProperties().with("sharedMemory", on);
    }

    @ParameterizedTest(name = "shared memory {0}")
    @ValueSource(booleans = {true, false})
    void largeMessagesLandInStridedReceiveBuffersAfterTheReceiveIsPosted(final boolean sharedMemory) {
        final List<String> out = Transport.TCP.call(2, sharedMemory(sharedMemory), world -> {
            final int n = 1 << 20;
            if (world.rank() == 0) {
                final int[] data = new int[n];
                for (int i = 0; i < n; i++) {
                    data[i] = i;
                }
                world.send(data, n, Datatype.INT, 1, 5);
                // and a second one, overtaking nothing: the receive order is the send order
                world.send(data, n / 2, Datatype.INT, 1, 5);
                world.send(new int[1], 1, Datatype.INT, 1, 6);
                return "sent";
            }
            // rank 1 receives late: the small message sent after both large ones is here, so both are announced
            // and wait at their sender before any receive is posted for them
            world.recv(new int[1], 1, Datatype.INT, 0, 6);
            // into every other int of a buffer twice the size (a vector type)
            final int[] every2 = new int[2 * n];
            final Datatype stride2 = Datatype.vector(n, 1, 2, Datatype.INT);
            final Status s = world.recv(every2, 1, stride2, 0, 5);
            assertEquals(4L * n, s.bytes());
            for (int i = 0; i < n; i++) {
                assertEquals(i, every2[2 * i]);
                assertEquals(0, every2[2 * i + 1]);
            }
            final int[] half = new int[n];
            assertEquals(2L * n, world.recv(half, n, Datatype.INT, 0, 5).bytes());
            assertEquals(n / 2 - 1, half[n / 2 - 1]);
            return "received";
        });
        assertEquals(List.of("sent", "received"), out);
    }

    @Test
    void aSlowReceiverHoldsAtMostTheEagerCreditInUnexpectedData() {
        Transport.TCP.run(2, world -> {
            final int messages = 1000;
            final int ints = 4096;
            if (world.rank() == 0) {
                final int[] m = new int[ints];
                for (int k = 0; k < messages; k++) {
                    m[0] = k;
                    world.send(m, ints, Datatype.INT, 1, 9);
                }
                world.send(new int[1], 1, Datatype.INT, 1, 10);
                return;
            }
            // all 16 MiB are sent before rank 1 receives any
            world.recv(new int[1], 1, Datatype.INT, 0, 10);
            final long held = ((TcpFabric) world.fabric()).endpoint(1).unexpectedBytes();
            assertTrue(held <= (4L << 20) + 16 * ints, "unexpected data held: " + held + " bytes");
            final int[] m = new int[ints];
            for (int k = 0; k < messages; k++) {
                world.recv(m, ints, Datatype.INT, 0, 9);
                assertEquals(k, m[0], "message order");
            }
        });
    }

    /**
     * Eager sends whose packing fails (a buffer shorter than the count) give back the credit they reserved: after
     * more failed megabytes than the whole credit, a small message still goes eagerly instead of waiting at its
     * sender for a request.
     */
    @Test
    void eagerSendsThatFailToPackGiveTheirCreditBack() {
        Transport.TCP.call(2, sharedMemory(false), world -> {
            if (world.rank() == 0) {
                // 5 MiB in 8 KiB messages, eager in every configuration the tests run
                final double[] short10 = new double[10];
                for (int k = 0; k < 640; k++) {
                    assertThrows(ParioException.class, () -> world.send(short10, 1024, Datatype.DOUBLE, 1, 3));
                }
                world.send(new int[] {42}, 1, Datatype.INT, 1, 4);
                assertEquals(0, ((TcpFabric) world.fabric()).counters().parkedMessages(), "the small message waits at its sender");
                world.barrier();
                return null;
            }
            world.barrier();
            final int[] got = new int[1];
            world.recv(got, 1, Datatype.INT, 0, 4);
            assertEquals(42, got[0]);
            return null;
        });
    }

    /**
     * Eager messages that arrive before their receives are held in arrays that go back to the rank once received, and
     * are filled again by later messages: every message keeps its own bytes however the arrays change hands (received
     * in another order than sent, one probed first, some refused, several rounds).
     */
    @Test
    void messagesHeldWholeKeepTheirBytesWhileTheirArraysAreReused() {
        Transport.TCP.call(2, sharedMemory(false), world -> {
            // 8 KiB messages: eager in every configuration the tests run
            final int messages = 24;
            final int count = 1024;
            for (int round = 0; round < 4; round++) {
                if (world.rank() == 0) {
                    for (int k = 0; k < messages; k++) {
                        final long[] data = new long[count];
                        java.util.Arrays.fill(data, 1000L * round + k);
                        world.send(data, count, Datatype.LONG, 1, k);
                    }
                    world.barrier();
                    world.barrier();
                    continue;
                }
                // the messages are in: rank 0 sent them before its part of the barrier, on the same connection
                world.barrier();
                assertEquals(count, world.probe(0, messages - 1).count(Datatype.LONG));
                for (int k = messages - 1; k >= 0; k--) {
                    if (k % 5 == 3) {
                        final int tag = k;
                        assertThrows(ParioException.class, () -> world.recv(new int[2 * count], 2 * count,
                            Datatype.INT, 0, tag), "long data refused by an int receive");
                        continue;
                    }
                    final long[] got = new long[count];
                    world.recv(got, count, Datatype.LONG, 0, k);
                    for (final long v : got) {
                        assertEquals(1000L * round + k, v, "message " + k + " of round " + round);
                    }
                }
                assertTrue(((TcpFabric) world.fabric()).counters().arraysKeptForMessages() > 0, "the arrays came back");
                world.barrier();
            }
            return null;
        });
    }

    /**
     * Eager messages that were in before their receives, which then fail to unpack them (the receive type reaches
     * past the end of the array): each gives its sender's credit back all the same, so a later small message still
     * goes eagerly.
     */
    @Test
    void receivesThatFailToUnpackGiveTheSendersCreditBack() {
        Transport.TCP.call(2, sharedMemory(false), world -> {
            // 3 MiB in 8 KiB messages: eager in every configuration the tests run, within the credit of 4 MiB
            final int messages = 384;
            if (world.rank() == 0) {
                for (int k = 0; k < messages; k++) {
                    world.send(new double[1024], 1024, Datatype.DOUBLE, 1, 3);
                }
                world.barrier();
                world.barrier();
                // another 3 MiB: without the credit of the first back, these would wait at the sender
                for (int k = 0; k < messages; k++) {
                    world.send(new double[1024], 1024, Datatype.DOUBLE, 1, 5);
                }
                assertEquals(0, ((TcpFabric) world.fabric()).counters().parkedMessages(), "the messages wait at their receiver");
                world.barrier();
                return null;
            }
            // the messages are in: rank 0 sent them before its part of the barrier, on the same connection
            world.barrier();
            final double[] short10 = new double[10];
            for (int k = 0; k < messages; k++) {
                assertThrows(ParioException.class, () -> world.recv(short10, 1024, Datatype.DOUBLE, 0, 3));
            }
            world.barrier();
            world.barrier();
            final double[] whole = new double[1024];
            for (int k = 0; k < messages; k++) {
                world.recv(whole, 1024, Datatype.DOUBLE, 0, 5);
            }
            return null;
        });
    }

    @ParameterizedTest(name = "shared memory {0}")
    @ValueSource(booleans = {true, false})
    void aRefusedLargeMessageIsDroppedAtItsSender(final boolean sharedMemory) {
        Transport.TCP.call(2, sharedMemory(sharedMemory), world -> {
            if (world.rank() == 0) {
                world.send(new double[1 << 18], 1 << 18, Datatype.DOUBLE, 1, 3);
                world.barrier();
                world.barrier();
                assertEquals(0, ((TcpFabric) world.fabric()).counters().parkedMessages(), "the refused message's data is freed");
                return null;
            }
            final ParioException e = assertThrows(ParioException.class,
                () -> world.recv(new double[10], 10, Datatype.DOUBLE, 0, 3));
            assertEquals(ErrorCategory.TRUNCATE, e.category());
            world.barrier();
            world.barrier();
            return null;
        });
    }

    @ParameterizedTest(name = "shared memory {0}")
    @ValueSource(booleans = {true, false})
    void aSenderThatFinishesRightAfterSendingStillDeliversItsParkedData(final boolean sharedMemory) {
        final java.util.concurrent.CompletableFuture<TcpFabric> sender = new java.util.concurrent.CompletableFuture<>();
        final List<Double> got = Transport.TCP.call(2, sharedMemory(sharedMemory), world -> {
            if (world.rank() == 0) {
                final double[] d = new double[1 << 18];
                java.util.Arrays.fill(d, 2.5);
                world.send(d, d.length, Datatype.DOUBLE, 1, 1);
                sender.complete((TcpFabric) world.fabric());
                return 0.0;
            }
            // receive only once the sender is leaving the job, its data still parked
            world.probe(0, 1);
            final TcpFabric leaving = sender.join();
            while (!leaving.leaving()) {
                Thread.onSpinWait();
            }
            assertEquals(1, leaving.counters().parkedMessages());
            final double[] d = new double[1 << 18];
            world.recv(d, d.length, Datatype.DOUBLE, 0, 1);
            return d[(1 << 18) - 1];
        });
        assertEquals(2.5, got.get(1));
    }

    /**
     * A large message is announced before its data is packed. When packing then fails (here: a send buffer
     * shorter than its count), the sender's call fails and the receive that asks for the data fails too, naming
     * the sender, whether it was posted before the data was due or matched it later; the connection carries on.
     */
    @Test
    void aSendWhosePackingFailsAfterItsAnnouncementFailsItsReceiveAndNothingHangs() {
        final int n = 1 << 18;
        Transport.TCP.call(2, sharedMemory(false), world -> {
            if (world.rank() == 0) {
                world.recv(new int[1], 1, Datatype.INT, 1, 1);
                final ParioException early = assertThrows(ParioException.class,
                    () -> world.send(new double[10], n, Datatype.DOUBLE, 1, 2));
                assertEquals(ErrorCategory.ARGUMENT, early.category(), early.getMessage());
                assertThrows(ParioException.class, () -> world.send(new double[10], n, Datatype.DOUBLE, 1, 3));
                final double[] good = new double[n];
                java.util.Arrays.fill(good, 4.5);
                world.send(good, n, Datatype.DOUBLE, 1, 4);
                return null;
            }
            // posted before the data is due: its CTS may come while the data is still being packed
            final Request<Status> posted = world.irecv(new double[n], n, Datatype.DOUBLE, 0, 2);
            world.send(new int[1], 1, Datatype.INT, 0, 1);
            final ParioException e = assertThrows(ParioException.class, posted::join);
            assertTrue(e.getMessage().contains("rank 0 could not send"), e.getMessage());
            final double[] good = new double[n];
            assertEquals(8L * n, world.recv(good, n, Datatype.DOUBLE, 0, 4).bytes());
            assertEquals(4.5, good[n - 1]);
            // matched only after the failure: told at once when it asks
            final ParioException late = assertThrows(ParioException.class,
                () -> world.recv(new double[n], n, Datatype.DOUBLE, 0, 3));
            assertTrue(late.getMessage().contains("rank 0 could not send"), late.getMessage());
            assertEquals(0, ((TcpFabric) world.fabric()).endpoint(1).unexpectedBytes());
            return null;
        });
    }

    /**
     * Rendezvous data travels in pieces ({@link #PIECE} bytes each, the last shorter), sent as they are
     * packed once the receive has asked: every piece lands where it belongs in strided and contiguous receives,
     * whether the receive was posted before the data was packed or matched it afterwards. A send whose packing
     * fails after some pieces have gone fails its receive, and the connection carries on.
     */
    @Test
    void dataInPiecesLandsInPlaceAndAFailureAfterSomePiecesStillFailsTheReceive() {
        final int n = (int) ((2L * PIECE + 24) / 8);
        Transport.TCP.call(2, sharedMemory(false), world -> {
            if (world.rank() == 0) {
                final double[] data = new double[n];
                for (int i = 0; i < n; i++) {
                    data[i] = i * 0.5;
                }
                world.recv(new int[1], 1, Datatype.INT, 1, 1);
                world.send(data, n, Datatype.DOUBLE, 1, 2);
                // the first two pieces pack; the third runs past the end of the buffer
                assertThrows(ParioException.class, () -> world.send(data, n + PIECE, Datatype.DOUBLE, 1,
                    3));
                world.send(data, n, Datatype.DOUBLE, 1, 4);
                world.send(new int[1], 1, Datatype.INT, 1, 5);
                world.send(data, n, Datatype.DOUBLE, 1, 6);
                return null;
            }
            // posted before the data is packed: pieces come while later ones are being packed
            final double[] every2 = new double[2 * n];
            final Request<Status> early = world.irecv(every2, 1, Datatype.vector(n, 1, 2, Datatype.DOUBLE), 0, 2);
            final Request<Status> failing = world.irecv(new double[n + PIECE], n + PIECE,
                Datatype.DOUBLE, 0, 3);
            world.send(new int[1], 1, Datatype.INT, 0, 1);
            assertEquals(8L * n, early.join().bytes());
            for (int i = 0; i < n; i++) {
                assertEquals(i * 0.5, every2[2 * i], "value " + i);
                assertEquals(0.0, every2[2 * i + 1], "the gap after value " + i);
            }
            final ParioException e = assertThrows(ParioException.class, failing::join);
            assertTrue(e.getMessage().contains("rank 0 could not send"), e.getMessage());
            final double[] after = new double[n];
            assertEquals(8L * n, world.recv(after, n, Datatype.DOUBLE, 0, 4).bytes());
            assertEquals((n - 1) * 0.5, after[n - 1]);
            // matched only once every piece waits packed at the sender
            world.recv(new int[1], 1, Datatype.INT, 0, 5);
            final double[] late = new double[n + 7];
            assertEquals(8L * n, world.recv(late, n + 7, Datatype.DOUBLE, 0, 6).bytes());
            for (int i = 0; i < n; i++) {
                assertEquals(i * 0.5, late[i], "value " + i);
            }
            assertEquals(0, ((TcpFabric) world.fabric()).endpoint(1).unexpectedBytes());
            return null;
        });
    }

    /**
     * A receive that fails while its data streams in (the first piece cannot be unpacked into a read-only buffer)
     * fails once the rest of the message has been skipped; the pieces still coming for it must not be taken for data
     * nobody asked for, which would close the connection and fail both ranks. Three pieces of 4 MiB.
     */
    @Test
    void aReceiveThatFailsOnItsFirstPieceSkipsTheOthersAndTheConnectionCarriesOn() {
        final int n = (int) ((2L * PIECE + 4096) / 8);
        Transport.TCP.call(2, sharedMemory(false), world -> {
            if (world.rank() == 0) {
                final double[] data = new double[n];
                for (int i = 0; i < n; i++) {
                    data[i] = i + 0.25;
                }
                world.send(data, n, Datatype.DOUBLE, 1, 1);
                world.send(data, n, Datatype.DOUBLE, 1, 2);
                return null;
            }
            final java.nio.ByteBuffer readOnly = java.nio.ByteBuffer.allocateDirect(8 * n).asReadOnlyBuffer();
            final ParioException e = assertThrows(ParioException.class,
                () -> world.recv(readOnly, n, Datatype.DOUBLE, 0, 1));
            assertTrue(e.getMessage().contains("read-only"), e.getMessage());
            final double[] after = new double[n];
            assertEquals(8L * n, world.recv(after, n, Datatype.DOUBLE, 0, 2).bytes());
            for (int i = 0; i < n; i++) {
                assertEquals(i + 0.25, after[i], "value " + i);
            }
            return null;
        });
    }

    /**
     * Large messages both ways at once: a frame the socket takes only part of is finished through the event loop,
     * and a frame the loop's own thread writes meanwhile (the data a CTS asks for) must not overtake that rest, or
     * the peer reads garbage. Exchanges of 16 MiB fill the socket buffers every time.
     */
    @Test
    void largeExchangesBothWaysArriveIntact() {
        final int n = 2 << 20;
        Transport.TCP.call(2, sharedMemory(false), world -> {
            final int other = 1 - world.rank();
            final double[] mine = new double[n];
            final double[] theirs = new double[n];
            final double[] sum = new double[n];
            for (int i = 0; i < n; i++) {
                mine[i] = i + world.rank();
            }
            for (int round = 0; round < 30; round++) {
                world.allreduce(mine, sum, n, Datatype.DOUBLE, Op.SUM);
                world.sendrecv(mine, n, Datatype.DOUBLE, other, round, theirs, n, Datatype.DOUBLE, other, round);
                for (int i = 0; i < n; i++) {
                    if (sum[i] != 2.0 * i + 1 || theirs[i] != i + other) {
                        throw new AssertionError("round " + round + ", element " + i + ": sum " + sum[i]
                            + ", received " + theirs[i]);
                    }
                }
            }
            return null;
        });
    }
}
