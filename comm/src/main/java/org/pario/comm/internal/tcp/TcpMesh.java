package org.pario.comm.internal.tcp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

import javax.net.SocketFactory;
import javax.net.ssl.SSLServerSocket;

/**
 * How the ranks of a job find each other at start-up: rank 0 hosts a {@link Rendezvous} on the coordinator's
 * address, every rank sends it the address it receives on and gets the table of all of them back; ranks of one host
 * are told apart from the others by their addresses; a host's CPUs are what the launcher says they are.
 */
final class TcpMesh {
    private TcpMesh() {
    }

    /**
     * @param config the job's start-up parameters
     * @param mine   the address this rank receives on
     * @return every rank's address, by rank
     */
    static InetSocketAddress[] exchange(final TcpConfig config, final InetSocketAddress mine) throws IOException {
        if (config.size() == 1) {
            return new InetSocketAddress[] {mine};
        }
        if (config.rank() == 0) {
            try (ServerSocket coordinator = serverSocket(config)) {
                coordinator.setReuseAddress(true);
                coordinator.bind(config.coordinator());
                config.onCoordinatorBound().accept(
                    new InetSocketAddress(config.advertisedHost(), coordinator.getLocalPort()));
                return Rendezvous.host(coordinator, config.size(), config.token(), mine,
                    config.startupTimeoutMillis());
            }
        }
        return Rendezvous.join(config.resolveCoordinator(), config.rank(), config.size(), config.token(), mine,
            config.startupTimeoutMillis(), config.tls() == null ? SocketFactory.getDefault()
                : config.tls().jdk().getSocketFactory());
    }

    /** The rendezvous socket: TLS with client authentication when the job uses TLS. */
    private static ServerSocket serverSocket(final TcpConfig config) throws IOException {
        if (config.tls() == null) {
            return new ServerSocket();
        }
        final SSLServerSocket s = (SSLServerSocket) config.tls().jdk().getServerSocketFactory().createServerSocket();
        s.setNeedClientAuth(true);
        return s;
    }

    /** @return whether two ranks' advertised addresses are on one host: the same address, or both loopback */
    static boolean sameHost(final InetSocketAddress a, final InetSocketAddress b) {
        final InetAddress x = a.getAddress();
        final InetAddress y = b.getAddress();
        return x != null && y != null && (x.equals(y) || x.isLoopbackAddress() && y.isLoopbackAddress());
    }

    /**
     * @param launcherSays what the launcher says of the CPUs the job's ranks on this host share ({@code
     *                     PARIO_HOST_CPUS}, set by {@code pario launch}), or null
     * @param jvmSees      the CPUs this JVM may use
     * @return the CPUs this host's ranks share: the launcher's count where it gives a valid one, since a rank bound
     *         to a core of its own sees only that core and would take a host with a core per rank for crowded
     */
    static int hostCpus(final String launcherSays, final int jvmSees) {
        if (launcherSays != null) {
            try {
                final int cpus = Integer.parseInt(launcherSays.trim());
                if (cpus > 0) {
                    return cpus;
                }
            } catch (NumberFormatException e) {
                // not a count: what the JVM sees
            }
        }
        return jvmSees;
    }
}
