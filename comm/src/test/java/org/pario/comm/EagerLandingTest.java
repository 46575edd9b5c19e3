package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.internal.tcp.TcpFabric;
import org.pario.datatypes.Datatype;

/**
 * Over TCP (epoll and NIO), an eager message whose receive is already posted is unpacked into the receive buffer as its bytes
 * arrive. It must take the receive MPI's matching gives it, leave the buffer's gaps alone, and fall back to the
 * ordinary path (and its errors) whenever the receive cannot take it.
 */
@Timeout(120)
class EagerLandingTest {
    private static final int GO = 99;

    private static long landed(final Communicator world) {
        return ((TcpFabric) world.fabric()).counters().messagesLandedInPlace();
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"TCP", "TCP_NIO"})
    void messagesForPostedReceivesLandInPlaceInMatchingOrderAndLeaveGapsAlone(final Transport transport) {
        final int n = 8192;
        transport.run(2, world -> {
            if (world.rank() == 0) {
                world.recv(new int[1], 1, Datatype.INT, 1, GO);
                // back to back, so several frames arrive in one read: each must take the receive posted for it
                for (int k = 0; k < 4; k++) {
                    final double[] d = new double[n];
                    Arrays.fill(d, k + 1);
                    world.send(d, n, Datatype.DOUBLE, 1, 7);
                }
                world.send(new double[0], 0, Datatype.DOUBLE, 1, 7);
                return;
            }
            final Datatype stride2 = Datatype.vector(n, 1, 2, Datatype.DOUBLE);
            final double[][] into = new double[4][2 * n];
            final Request<?>[] posted = new Request<?>[5];
            for (int k = 0; k < 4; k++) {
                Arrays.fill(into[k], -1);
                posted[k] = world.irecv(into[k], 1, stride2, 0, 7);
            }
            final double[] empty = new double[3];
            posted[4] = world.irecv(empty, 3, Datatype.DOUBLE, 0, 7);
            world.send(new int[1], 1, Datatype.INT, 0, GO);
            for (int k = 0; k < 4; k++) {
                assertEquals(8L * n, ((Status) posted[k].join()).bytes());
                for (int i = 0; i < n; i++) {
                    assertEquals(k + 1, into[k][2 * i], "message " + k + " in receive " + k);
                    assertEquals(-1, into[k][2 * i + 1], "a gap of the receive type is left alone");
                }
            }
            assertEquals(0L, ((Status) posted[4].join()).bytes());
            assertArrayEquals(new double[3], empty);
            assertEquals(5, landed(world), "every message landed in its posted receive");
            assertEquals(0, ((TcpFabric) world.fabric()).endpoint(1).unexpectedBytes());
        });
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"TCP", "TCP_NIO"})
    void aPostedReceiveThatCannotTakeTheMessageFailsAsWithoutLandingAndLaterMessagesStillLand(
            final Transport transport) {
        transport.run(2, world -> {
            if (world.rank() == 0) {
                world.recv(new int[1], 1, Datatype.INT, 1, GO);
                world.send(new double[100], 100, Datatype.DOUBLE, 1, 1);
                world.send(new int[4], 4, Datatype.INT, 1, 2);
                final double[] ok = {1, 2, 3};
                world.send(ok, 3, Datatype.DOUBLE, 1, 3);
                return;
            }
            final Request<Status> tooSmall = world.irecv(new double[10], 10, Datatype.DOUBLE, 0, 1);
            final Request<Status> wrongType = world.irecv(new float[4], 4, Datatype.FLOAT, 0, 2);
            final double[] ok = new double[3];
            final Request<Status> fine = world.irecv(ok, 3, Datatype.DOUBLE, 0, 3);
            world.send(new int[1], 1, Datatype.INT, 0, GO);
            assertEquals(ErrorCategory.TRUNCATE,
                assertThrows(ParioException.class, tooSmall::join).category());
            assertEquals(ErrorCategory.MISMATCH,
                assertThrows(ParioException.class, wrongType::join).category());
            assertEquals(24L, fine.join().bytes());
            assertArrayEquals(new double[] {1, 2, 3}, ok);
            assertEquals(1, landed(world), "only the message its receive could take landed in place");
        });
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"TCP", "TCP_NIO"})
    void anySourceReceivesTakeMessagesInArrivalOrderFromEverySender(final Transport transport) {
        final List<Integer> sums = transport.call(4, world -> {
            final int me = world.rank();
            if (me != 0) {
                world.recv(new int[1], 1, Datatype.INT, 0, GO);
                final long[] mine = new long[1000];
                Arrays.fill(mine, me);
                world.send(mine, mine.length, Datatype.LONG, 0, 5);
                world.send(mine, mine.length, Datatype.LONG, 0, 5);
                return 0;
            }
            final long[][] got = new long[6][1000];
            final Request<?>[] posted = new Request<?>[6];
            for (int k = 0; k < 6; k++) {
                posted[k] = world.irecv(got[k], 1000, Datatype.LONG, Communicator.ANY_SOURCE, 5);
            }
            for (int r = 1; r < 4; r++) {
                world.send(new int[1], 1, Datatype.INT, r, GO);
            }
            int sum = 0;
            final int[] fromEach = new int[4];
            for (int k = 0; k < 6; k++) {
                final Status s = (Status) posted[k].join();
                final long first = got[k][0];
                assertEquals(s.source(), (int) first, "the data came from the rank the status names");
                assertTrue(Arrays.stream(got[k]).allMatch(v -> v == first), "one message per receive, whole");
                fromEach[s.source()]++;
                sum += (int) first;
            }
            assertArrayEquals(new int[] {0, 2, 2, 2}, fromEach);
            return sum;
        });
        assertEquals(12, sums.get(0));
    }
}
