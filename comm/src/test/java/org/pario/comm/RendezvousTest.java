package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.internal.tcp.TcpFabric;
import org.pario.datatypes.Datatype;

/**
 * Over TCP, large messages wait at their sender until a receive matches them and then land straight in the receive
 * buffer; eager messages are bounded per peer by credit, so a receiver that is slow to receive holds at most the
 * credit in unexpected data, however much is sent to it.
 */
@Timeout(120)
class RendezvousTest {
    @Test
    void largeMessagesLandInStridedReceiveBuffersAfterTheReceiveIsPosted() {
        final List<String> out = Transport.TCP.call(2, world -> {
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
            final long held = ((TcpFabric) world.fabric).endpoint(1).unexpectedBytes();
            assertTrue(held <= (4L << 20) + 16 * ints, "unexpected data held: " + held + " bytes");
            final int[] m = new int[ints];
            for (int k = 0; k < messages; k++) {
                world.recv(m, ints, Datatype.INT, 0, 9);
                assertEquals(k, m[0], "message order");
            }
        });
    }

    @Test
    void aRefusedLargeMessageIsDroppedAtItsSender() {
        Transport.TCP.run(2, world -> {
            if (world.rank() == 0) {
                world.send(new double[1 << 18], 1 << 18, Datatype.DOUBLE, 1, 3);
                world.barrier();
                world.barrier();
                assertEquals(0, ((TcpFabric) world.fabric).parkedMessages(), "the refused message's data is freed");
                return;
            }
            final ParioException e = assertThrows(ParioException.class,
                () -> world.recv(new double[10], 10, Datatype.DOUBLE, 0, 3));
            assertEquals(ErrorCategory.TRUNCATE, e.category());
            world.barrier();
            world.barrier();
        });
    }

    @Test
    void aSenderThatFinishesRightAfterSendingStillDeliversItsParkedData() {
        final java.util.concurrent.CompletableFuture<TcpFabric> sender = new java.util.concurrent.CompletableFuture<>();
        final List<Double> got = Transport.TCP.call(2, world -> {
            if (world.rank() == 0) {
                final double[] d = new double[1 << 18];
                java.util.Arrays.fill(d, 2.5);
                world.send(d, d.length, Datatype.DOUBLE, 1, 1);
                sender.complete((TcpFabric) world.fabric);
                return 0.0;
            }
            // receive only once the sender is leaving the job, its data still parked
            world.probe(0, 1);
            final TcpFabric leaving = sender.join();
            while (!leaving.leaving()) {
                Thread.onSpinWait();
            }
            assertEquals(1, leaving.parkedMessages());
            final double[] d = new double[1 << 18];
            world.recv(d, d.length, Datatype.DOUBLE, 0, 1);
            return d[(1 << 18) - 1];
        });
        assertEquals(2.5, got.get(1));
    }
}
