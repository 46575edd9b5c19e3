package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
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

    @Test
    void largeMessagesTravelThroughTheArenaAndTheDirectoryGoesWithTheRank() {
        final List<Path> dirs = Transport.TCP.call(3, world -> {
            final Path dir = ((TcpFabric) world.fabric).sharedMemoryDirectory();
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
                final Path arena = ((TcpFabric) world.fabric).sharedMemoryDirectory().resolve("to-1");
                try {
                    Files.delete(arena);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                world.barrier();
            } else {
                world.barrier();
                final double[] got = new double[COUNT];
                world.recv(got, COUNT, Datatype.DOUBLE, 0, 9);
                assertArrayEquals(data(7), got);
            }
        });
    }

    @Test
    void thePathCanBeTurnedOff() {
        Transport.withProperty("pario.sharedMemory", "false", () -> Transport.TCP.call(2, world -> {
            assertEquals(null, ((TcpFabric) world.fabric).sharedMemoryDirectory());
            final double[] got = new double[COUNT];
            final Request<Status> r = world.irecv(got, COUNT, Datatype.DOUBLE, 1 - world.rank(), 3);
            world.send(data(world.rank()), COUNT, Datatype.DOUBLE, 1 - world.rank(), 3);
            r.join();
            assertArrayEquals(data(1 - world.rank()), got);
            return null;
        }));
    }
}
