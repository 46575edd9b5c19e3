package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.DataOutputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.comm.internal.tcp.TcpFabric;
import org.pario.datatypes.Datatype;

/** Connections that do not belong to the job are refused; the job carries on. */
@Timeout(60)
class TcpSecurityTest {
    /** Connects to a rank's data port, writes bytes, and returns whether the rank closed the connection. */
    private static boolean refused(final InetSocketAddress at, final byte[] bytes) throws Exception {
        try (Socket s = new Socket(at.getAddress(), at.getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
            final InputStream in = s.getInputStream();
            return in.read() == -1;
        }
    }

    private static byte[] hello(final int rank, final String token) throws Exception {
        final java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(b);
        final byte[] t = token.getBytes(StandardCharsets.UTF_8);
        out.writeInt(0x50617231);
        out.writeByte(1);
        out.writeInt(rank);
        out.writeShort(t.length);
        out.write(t);
        return b.toByteArray();
    }

    @Test
    void wrongTokensImpostorsAndGarbageAreRefusedAndTheJobCarriesOn() {
        final java.util.List<Long> sums = Transport.TCP.call(3, world -> {
            if (world.rank() == 0) {
                final InetSocketAddress at = ((TcpFabric) world.fabric()).dataAddress();
                final InetSocketAddress local = new InetSocketAddress("127.0.0.1", at.getPort());
                assertEquals(true, refused(local, hello(1, "not-the-token")), "wrong token");
                assertEquals(true, refused(local, "GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII)),
                    "garbage");
                assertEquals(true, refused(local, new byte[] {0x50, 0x61, 0x72, 0x31, 0x7F}), "unknown frame kind");
            }
            world.barrier();
            final long[] sum = new long[1];
            world.allreduce(new long[] {world.rank() + 1}, sum, 1, Datatype.LONG, Op.SUM);
            return sum[0];
        });
        assertEquals(java.util.List.of(6L, 6L, 6L), sums);
    }

    /** With PARIO_BIND (here 127.0.0.1) a rank listens on that interface only: another address finds no port. */
    @Test
    void dataPortsListenOnTheChosenInterfaceOnly() {
        Transport.TCP.call(2, world -> {
            final InetSocketAddress at = ((TcpFabric) world.fabric()).dataAddress();
            assertEquals("127.0.0.1", at.getAddress().getHostAddress());
            // 127.0.0.2 reaches this machine too (the whole 127/8 is loopback), but not a socket bound to 127.0.0.1
            org.junit.jupiter.api.Assertions.assertThrows(java.net.ConnectException.class,
                () -> new Socket("127.0.0.2", at.getPort()).close());
            world.barrier();
            return null;
        });
    }

    /** The rendezvous port binds to PARIO_BIND too: while rank 0 waits for the others, 127.0.0.2 finds nothing. */
    @Test
    void theRendezvousListensOnTheChosenInterfaceOnly() throws Exception {
        final int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            port = free.getLocalPort();
        }
        final String job = "bind-" + java.util.UUID.randomUUID();
        final java.util.concurrent.ConcurrentHashMap<Integer, Object> results = new java.util.concurrent.ConcurrentHashMap<>();
        final Thread[] ranks = new Thread[2];
        for (int r = 0; r < 2; r++) {
            final int rank = r;
            ranks[r] = new Thread(() -> {
                try (Communicator world = Pario.init(new Bootstrap(rank, 2, "127.0.0.1:" + port, null, job, "t-" + job,
                    "127.0.0.1", "127.0.0.1", java.time.Duration.ofSeconds(30)))) {
                    final long[] sum = new long[1];
                    world.allreduce(new long[] {1}, sum, 1, Datatype.LONG, Op.SUM);
                    results.put(rank, sum[0]);
                } catch (RuntimeException e) {
                    results.put(rank, e);
                }
            });
        }
        ranks[0].start();
        // rank 0 alone: its rendezvous listens (on 127.0.0.1) until rank 1 arrives
        final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        boolean listening = false;
        while (!listening && System.nanoTime() < deadline) {
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                listening = true;
            } catch (java.io.IOException e) {
                Thread.sleep(20);
            }
        }
        assertEquals(true, listening, "rank 0's rendezvous listens on 127.0.0.1:" + port);
        org.junit.jupiter.api.Assertions.assertThrows(java.net.ConnectException.class,
            () -> new Socket("127.0.0.2", port).close());
        ranks[1].start();
        ranks[0].join();
        ranks[1].join();
        assertEquals(2L, results.get(0), "rank 0: " + results.get(0));
        assertEquals(2L, results.get(1), "rank 1: " + results.get(1));
    }
}
