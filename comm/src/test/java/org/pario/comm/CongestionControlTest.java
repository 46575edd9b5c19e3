package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ParioException;
import org.pario.comm.internal.tcp.TcpFabric;
import org.pario.comm.settings.CommSettings;
import org.pario.datatypes.Datatype;

/**
 * The congestion control of the connections a rank opens ({@code pario.tcpCongestion}), read back from the kernel:
 * cubic between ranks of one host by default, the system's own with {@code system}, any named one the kernel has,
 * the system's own where the kernel refuses the name, and a clear error for a setting that cannot be a name.
 * Messages flow in every case.
 */
@Timeout(120)
class CongestionControlTest {
    private static final Path AVAILABLE = Path.of("/proc/sys/net/ipv4/tcp_available_congestion_control");
    private static final Path SYSTEM = Path.of("/proc/sys/net/ipv4/tcp_congestion_control");

    private static String systemDefault() throws IOException {
        return Files.readString(SYSTEM).trim();
    }

    /** Runs 3 ranks over epoll with the setting and returns what each rank's connections report, peer by peer. */
    private static List<String[]> connectionsWith(final String setting) {
        return Transport.TCP.call(3, CommSettings.fromSystemProperties().with("tcpCongestion", setting),
            world -> {
            // a ring of messages: every connection carries data
            final int n = world.size();
            final int[] got = new int[1];
            final Request<Status> r = world.irecv(got, 1, Datatype.INT, (world.rank() + n - 1) % n, 7);
            world.send(new int[] {world.rank()}, 1, Datatype.INT, (world.rank() + 1) % n, 7);
            r.join();
            assertEquals((world.rank() + n - 1) % n, got[0]);
            final String[] seen = new String[n];
            for (int peer = 0; peer < n; peer++) {
                seen[peer] = peer == world.rank() ? null : ((TcpFabric) world.fabric()).congestionControl(peer);
            }
            world.barrier();
            return seen;
        });
    }

    private static void assertEveryConnection(final String expected, final List<String[]> seen) {
        for (int rank = 0; rank < seen.size(); rank++) {
            for (int peer = 0; peer < seen.size(); peer++) {
                assertEquals(peer == rank ? null : expected, seen.get(rank)[peer], "rank " + rank + " to " + peer);
            }
        }
    }

    @Test
    void ranksOfOneHostTalkOverCubicByDefault() throws IOException {
        // cubic is the kernel's own default algorithm, built into every stock kernel
        assertTrue(Files.readString(AVAILABLE).contains("cubic"), Files.readString(AVAILABLE));
        assertEveryConnection("cubic", connectionsWith("auto"));
    }

    @Test
    void systemLeavesTheSystemsDefault() throws IOException {
        assertEveryConnection(systemDefault(), connectionsWith("system"));
    }

    @Test
    void aNamedAlgorithmGoesOnEveryConnection() {
        // reno is built into every kernel and always allowed
        assertEveryConnection("reno", connectionsWith("reno"));
    }

    @Test
    void anAlgorithmTheKernelRefusesLeavesTheSystemsDefault() throws IOException {
        assertEveryConnection(systemDefault(), connectionsWith("nosuchalgo"));
    }

    @Test
    void aSettingThatCannotBeANameFailsTheStartNamingIt() {
        for (final String bad : new String[] {"cu bic", "a-name-far-too-long", "", "kubík"}) {
            final ParioException e = assertThrows(ParioException.class, () -> connectionsWith(bad));
            assertTrue(String.valueOf(e.getMessage()).contains("pario.tcpCongestion"), e.getMessage());
        }
    }

    @Test
    void nioConnectionsKeepTheSystemsDefaultAndWork() {
        final List<String[]> seen = Transport.TCP_NIO.call(2,
            CommSettings.fromSystemProperties().with("tcpCongestion", "reno"), world -> {
                final double[] got = new double[2];
                if (world.rank() == 0) {
                    world.send(new double[] {1.5, 2.5}, 2, Datatype.DOUBLE, 1, 3);
                } else {
                    world.recv(got, 2, Datatype.DOUBLE, 0, 3);
                    assertArrayEquals(new double[] {1.5, 2.5}, got);
                }
                return new String[] {((TcpFabric) world.fabric()).congestionControl(1 - world.rank())};
            });
        assertNull(seen.get(0)[0]);
        assertNull(seen.get(1)[0]);
    }
}
