package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

@Timeout(30)
class PointToPointTest {
    @Test
    void messagesFromOneSenderArriveInOrderAndMatchByTag() {
        LocalCluster.run(2, world -> {
            if (world.rank() == 0) {
                for (int i = 0; i < 100; i++) {
                    world.send(new int[] {i}, 1, Datatype.INT, 1, i % 3);
                }
            } else {
                final int[] got = new int[1];
                // tag 2 first: the messages with tags 0 and 1 wait, in order, for their receives
                for (int i = 2; i < 100; i += 3) {
                    final Status s = world.recv(got, 1, Datatype.INT, 0, 2);
                    assertEquals(i, got[0]);
                    assertEquals(2, s.tag());
                }
                int last = -1;
                for (int k = 0; k < 67; k++) {
                    final Status s = world.recv(got, 1, Datatype.INT, Communicator.ANY_SOURCE, Communicator.ANY_TAG);
                    assertTrue(got[0] > last, "non-overtaking: " + got[0] + " after " + last);
                    assertEquals(0, s.source());
                    last = got[0];
                }
            }
        });
    }

    @Test
    void anyTypesOnEitherSideWithMatchingSignatures() {
        LocalCluster.run(2, world -> {
            final int[][] array = new int[100][150];
            if (world.rank() == 0) {
                final int[] flat = new int[100 * 150];
                for (int i = 0; i < flat.length; i++) {
                    flat[i] = i;
                }
                // column 7 of a 100 x 150 C array
                world.send(Memory.of(flat).at(7 * 4), 1, Datatype.vector(100, 1, 150, Datatype.INT), 1, 0);
            } else {
                final int[] column = new int[100];
                final Status s = world.recv(column, 100, Datatype.INT, 0, 0);
                assertEquals(100, s.count(Datatype.INT));
                assertEquals(400, s.bytes());
                for (int i = 0; i < 100; i++) {
                    assertEquals(i * 150 + 7, column[i]);
                }
            }
            assertEquals(100, array.length);
        });
    }

    @Test
    void tooLongMessageIsATruncationErrorNamingBothSizes() {
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(2, world -> {
            if (world.rank() == 0) {
                world.send(new double[4], 4, Datatype.DOUBLE, 1, 5);
            } else {
                world.recv(new double[3], 3, Datatype.DOUBLE, 0, 5);
            }
        }));
        assertEquals(ErrorCategory.TRUNCATE, e.category());
        assertTrue(e.getMessage().contains("32 bytes") && e.getMessage().contains("24 bytes"), e.getMessage());
    }

    @Test
    void mismatchedSignaturesAreRefused() {
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(2, world -> {
            if (world.rank() == 0) {
                world.send(new int[2], 2, Datatype.INT, 1, 0);
            } else {
                world.recv(new float[2], 2, Datatype.FLOAT, 0, 0);
            }
        }));
        assertEquals(ErrorCategory.MISMATCH, e.category());
    }

    @Test
    void nonblockingReceivesProbesAndSendrecv() {
        LocalCluster.run(3, world -> {
            final int me = world.rank();
            final int n = world.size();
            final long[] in = new long[1];
            final Request<Status> r = world.irecv(in, 1, Datatype.LONG, (me - 1 + n) % n, 9);
            world.isend(new long[] {100 + me}, 1, Datatype.LONG, (me + 1) % n, 9).join();
            assertEquals((me - 1 + n) % n, r.join().source());
            assertEquals(100 + (me - 1 + n) % n, in[0]);

            final long[] out = {me};
            final long[] back = new long[1];
            world.sendrecv(out, 1, Datatype.LONG, (me + 1) % n, 3, back, 1, Datatype.LONG, (me - 1 + n) % n, 3);
            assertEquals((me - 1 + n) % n, back[0]);

            if (me == 0) {
                world.send(new short[7], 7, Datatype.SHORT, 1, 42);
            } else if (me == 1) {
                final Status s = world.probe(0, 42);
                assertEquals(14, s.bytes());
                assertTrue(world.iprobe(0, 42).isPresent());
                world.recv(new short[7], 7, Datatype.SHORT, 0, 42);
                assertTrue(world.iprobe(0, 42).isEmpty());
            }
        });
    }

    @Test
    void zeroLengthMessagesAndLargeMessages() {
        final List<Long> sums = LocalCluster.call(2, world -> {
            if (world.rank() == 0) {
                world.send(new byte[0], 0, Datatype.BYTE, 1, 1);
                final double[] big = new double[1 << 20];
                for (int i = 0; i < big.length; i++) {
                    big[i] = i;
                }
                world.send(big, big.length, Datatype.DOUBLE, 1, 2);
                return 0L;
            }
            assertEquals(0, world.recv(new byte[0], 0, Datatype.BYTE, 0, 1).bytes());
            final double[] big = new double[1 << 20];
            world.recv(big, big.length, Datatype.DOUBLE, 0, 2);
            long sum = 0;
            for (final double d : big) {
                sum += (long) d;
            }
            return sum;
        });
        assertEquals((long) (1 << 20) * ((1 << 20) - 1) / 2, sums.get(1));
    }

    @Test
    void badArgumentsNameTheArgument() {
        LocalCluster.run(2, world -> {
            assertTrue(assertThrows(ParioException.class, () -> world.send(new int[1], 1, Datatype.INT, 2, 0))
                .getMessage().contains("dest must be a rank in [0, 2), got 2"));
            assertTrue(assertThrows(ParioException.class, () -> world.send(new int[1], 1, Datatype.INT, 1, -4))
                .getMessage().contains("tag must be >= 0, got -4"));
            assertTrue(assertThrows(ParioException.class, () -> world.send(new int[1], -1, Datatype.INT, 1, 0))
                .getMessage().contains("count must be >= 0, got -1"));
            assertTrue(assertThrows(ParioException.class, () -> world.bcast(new int[1], 1, Datatype.INT, 5))
                .getMessage().contains("root must be a rank in [0, 2), got 5"));
            final long[] two = {0, 0};
            final Datatype[] ints = {Datatype.INT, Datatype.INT};
            assertTrue(assertThrows(ParioException.class, () -> world.alltoallw(new int[2], two, two, ints,
                new int[2], two, two, new Datatype[] {Datatype.INT})).getMessage()
                .contains("recvtypes must have one entry per rank (2), got 1"));
            assertTrue(assertThrows(ParioException.class, () -> world.alltoallw(new int[2], two, two,
                new Datatype[] {Datatype.INT, null}, new int[2], two, two, ints)).getMessage()
                .contains("sendtypes[1] must be a datatype, got null"));
        });
    }
}
