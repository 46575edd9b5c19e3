package org.pario.comm.internal.tcp;

import java.net.InetSocketAddress;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.pario.comm.settings.CommSettings;

/**
 * What a rank needs to join a TCP job.
 *
 * @param rank                 this rank
 * @param size                 number of ranks
 * @param token                the job token every connection must present
 * @param coordinator          where rank 0 listens for the rendezvous (rank 0 binds it; port 0 picks one)
 * @param coordinatorLookup    for ranks other than 0: finds the coordinator's address (it may be published late)
 * @param onCoordinatorBound   rank 0: told the coordinator's actual address (to publish it)
 * @param bindHost             the interface the data port binds to
 * @param advertisedHost       the host name or address the other ranks use to reach this one
 * @param startupTimeoutMillis how long start-up may take before it fails
 * @param maxMessageBytes      the largest message accepted from a peer
 * @param heartbeatMillis      a connection idle this long carries a heartbeat
 * @param failureTimeoutMillis a peer silent this long (no data, no heartbeat) is declared failed
 * @param tls                  TLS for every connection, or null for plain TCP
 * @param settings             how the transport behaves
 */
public record TcpConfig(int rank, int size, byte[] token, InetSocketAddress coordinator,
                        Supplier<InetSocketAddress> coordinatorLookup, Consumer<InetSocketAddress> onCoordinatorBound,
                        String bindHost, String advertisedHost, long startupTimeoutMillis, long maxMessageBytes,
                        long heartbeatMillis, long failureTimeoutMillis, TlsContexts tls,
                        CommSettings settings) {
    InetSocketAddress resolveCoordinator() {
        return coordinatorLookup == null ? coordinator : coordinatorLookup.get();
    }
}
