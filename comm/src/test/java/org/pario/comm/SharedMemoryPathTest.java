package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ParioException;
import org.pario.comm.internal.tcp.TcpFabric;
import org.pario.datatypes.Datatype;

/**
 * Large messages between ranks of one host go through a shared-memory arena; when the receiver cannot map it,
 * the data comes over the connection instead; nothing is left behind.
 */
@Timeout(60)
class SharedMemoryPathTest {
    private static final int COUNT = 1 << 18;

    private static double[] data(final int seed) {
        final double[] a = new double[COUNT];
        for (int k = 0; k < COUNT; k++) {
            a[k] = seed * 1e6 + k;
        }
        return a;
    }

    /** Deletes this rank's arena for messages to {@code peer}, so that a receiver that has not mapped it cannot. */
    private static void deleteArenaFor(final Communicator world, final int peer) {
        try {
            Files.delete(((TcpFabric) world.fabric()).sharedMemoryDirectory().resolve("to-" + peer));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void largeMessagesTravelThroughTheArenaAndTheDirectoryGoesWithTheRank() {
        final List<Path> dirs = Transport.TCP.call(3, world -> {
            final Path dir = ((TcpFabric) world.fabric()).sharedMemoryDirectory();
            assertNotNull(dir, "ranks on one host without TLS stage large messages in shared memory");
            final int me = world.rank();
            final int n = world.size();
            final double[] got = new double[COUNT];
            // 2 MiB each way around the ring, received into a stride-2 view of a larger buffer too
            final Request<Status> r = world.irecv(got, COUNT, Datatype.DOUBLE, (me + n - 1) % n, 5);
            world.send(data(me), COUNT, Datatype.DOUBLE, (me + 1) % n, 5);
            r.join();
            assertArrayEquals(data((me + n - 1) % n), got);
            assertTrue(Files.exists(dir.resolve("to-" + (me + 1) % n)), "the arena for the next rank");
            final double[] strided = new double[2 * COUNT];
            final Datatype everyOther = Datatype.vector(COUNT, 1, 2, Datatype.DOUBLE);
            final Request<Status> s = world.irecv(strided, 1, everyOther, (me + n - 1) % n, 6);
            world.send(data(me + 10), COUNT, Datatype.DOUBLE, (me + 1) % n, 6);
            s.join();
            final double[] expected = data((me + n - 1) % n + 10);
            for (int k = 0; k < COUNT; k++) {
                assertEquals(expected[k], strided[2 * k]);
                assertEquals(0.0, strided[2 * k + 1]);
            }
            world.barrier();
            return dir;
        });
        for (final Path d : dirs) {
            assertFalse(Files.exists(d), d + " is removed when its rank leaves");
        }
    }

    @Test
    void aReceiverThatCannotMapTheArenaGetsTheDataOverTheConnection() {
        Transport.TCP.run(2, world -> {
            if (world.rank() == 0) {
                world.send(data(7), COUNT, Datatype.DOUBLE, 1, 9);
                // the receiver has not mapped the arena yet; without the file it must ask over the connection
                deleteArenaFor(world, 1);
                world.barrier();
            } else {
                world.barrier();
                final double[] got = new double[COUNT];
                world.recv(got, COUNT, Datatype.DOUBLE, 0, 9);
                assertArrayEquals(data(7), got);
            }
        });
    }

    /**
     * A staged message whose receiver cannot map the arena reaches it over the connection while the sender computes
     * and makes no call at all: the sender's background thread answers the request without a wait to drive it, for
     * a message small enough (512 KiB) that its sender owes no progress for it until asked.
     */
    @Test
    void aReceiverThatAsksOverTheConnectionIsAnsweredWhileTheSenderComputes() {
        final long computeNanos = 2_000_000_000L;
        final int count = COUNT / 4;
        Transport.TCP.run(2, world -> {
            if (world.rank() == 0) {
                world.send(data(5), count, Datatype.DOUBLE, 1, 9);
                deleteArenaFor(world, 1);
                world.send(new int[1], 1, Datatype.INT, 1, 8);
                // computing: no Pario call until the receiver has had ample time
                final long start = System.nanoTime();
                double sink = 0;
                while (System.nanoTime() - start < computeNanos) {
                    sink += Math.sqrt(sink + 1);
                }
                assertTrue(sink > 0);
                world.barrier();
            } else {
                world.recv(new int[1], 1, Datatype.INT, 0, 8);
                final long start = System.nanoTime();
                final double[] got = new double[count];
                world.recv(got, count, Datatype.DOUBLE, 0, 9);
                final long took = System.nanoTime() - start;
                assertArrayEquals(java.util.Arrays.copyOf(data(5), count), got);
                assertTrue(took < computeNanos / 2, "the data came " + took / 1_000_000 + " ms after it was asked "
                    + "for, while its sender computed");
                world.barrier();
            }
        });
    }

    /**
     * A staged message is announced before its data is packed, and its receiver unpacks each chunk as it is
     * published: a receive posted first takes 32 MiB sent from a strided type while the sender still packs it, and
     * one posted after the send takes the next message whole; every value lands where it belongs.
     */
    @Test
    void aReceiveUnpacksWhileTheSenderStillPacks() {
        final int n = 1 << 22;
        Transport.TCP.run(2, world -> {
            final Datatype everyOther = Datatype.vector(n, 1, 2, Datatype.DOUBLE);
            if (world.rank() == 0) {
                final double[] spread = new double[2 * n];
                for (int k = 0; k < 2 * n; k++) {
                    spread[k] = k;
                }
                world.recv(new int[1], 1, Datatype.INT, 1, 1);
                world.send(spread, 1, everyOther, 1, 2);
                world.send(spread, 2 * n, Datatype.DOUBLE, 1, 3);
                return;
            }
            final double[] got = new double[n];
            final Request<Status> posted = world.irecv(got, n, Datatype.DOUBLE, 0, 2);
            world.send(new int[1], 1, Datatype.INT, 0, 1);
            assertEquals(8L * n, posted.join().bytes());
            for (int k = 0; k < n; k++) {
                assertEquals(2.0 * k, got[k]);
            }
            final double[] whole = new double[2 * n];
            world.recv(whole, 1, Datatype.contiguous(2 * n, Datatype.DOUBLE), 0, 3);
            for (int k = 0; k < 2 * n; k++) {
                assertEquals(k, whole[k]);
            }
        });
    }

    /**
     * Packing a staged message fails part way (its send buffer ends before its count does): the chunks before the
     * failure were published already, yet the receive fails naming the sender, whether it was posted before or
     * matched after, and the arena's space and the connection serve the messages after it.
     */
    @Test
    void aSendWhosePackingFailsPartWayFailsItsReceive() {
        Transport.TCP.run(2, world -> {
            if (world.rank() == 0) {
                final double[] data = data(3);
                world.recv(new int[1], 1, Datatype.INT, 1, 1);
                // the first chunks pack; a later one runs past the end of the buffer
                assertThrows(ParioException.class, () -> world.send(data, 2 * COUNT, Datatype.DOUBLE, 1, 2));
                assertThrows(ParioException.class, () -> world.send(data, 2 * COUNT, Datatype.DOUBLE, 1, 3));
                world.send(data, COUNT, Datatype.DOUBLE, 1, 4);
                return;
            }
            final Request<Status> posted = world.irecv(new double[2 * COUNT], 2 * COUNT, Datatype.DOUBLE, 0, 2);
            world.send(new int[1], 1, Datatype.INT, 0, 1);
            final ParioException early = assertThrows(ParioException.class, posted::join);
            assertTrue(early.getMessage().contains("rank 0 could not send"), early.getMessage());
            final double[] good = new double[COUNT];
            world.recv(good, COUNT, Datatype.DOUBLE, 0, 4);
            assertArrayEquals(data(3), good);
            final ParioException late = assertThrows(ParioException.class,
                () -> world.recv(new double[2 * COUNT], 2 * COUNT, Datatype.DOUBLE, 0, 3));
            assertTrue(late.getMessage().contains("rank 0 could not send"), late.getMessage());
        });
    }

    @Test
    void thePathCanBeTurnedOff() {
        Transport.TCP.call(2, RendezvousTest.sharedMemory(false), world -> {
            assertEquals(null, ((TcpFabric) world.fabric()).sharedMemoryDirectory());
            final double[] got = new double[COUNT];
            final Request<Status> r = world.irecv(got, COUNT, Datatype.DOUBLE, 1 - world.rank(), 3);
            world.send(data(world.rank()), COUNT, Datatype.DOUBLE, 1 - world.rank(), 3);
            r.join();
            assertArrayEquals(data(1 - world.rank()), got);
            return null;
        });
    }
}
