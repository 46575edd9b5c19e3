package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLSocket;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ParioException;
import org.pario.comm.internal.tcp.TcpFabric;
import org.pario.comm.internal.tcp.TlsContexts;
import org.pario.datatypes.Datatype;

/**
 * TLS between ranks: a job whose ranks share a key store runs over TLS 1.3; a plain connection, or a TLS one
 * with another job's key, is refused while the job carries on; a rank with the wrong key cannot join.
 */
@Timeout(120)
class TlsTest {
    private static final String PASSWORD = "pario-test";

    @TempDir
    static Path keys;

    private static Tls job;
    private static Tls other;

    /** Makes a key store the way docs/comm.md tells users to, with the JDK's keytool. */
    private static Tls keyStore(final String name) throws Exception {
        final Path store = keys.resolve(name + ".p12");
        final Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
            "-genkeypair", "-alias", "pario", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
            "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", PASSWORD)
            .redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "keytool: " + out);
        return new Tls(store, PASSWORD);
    }

    @BeforeAll
    static void makeKeys() throws Exception {
        job = keyStore("job");
        other = keyStore("other");
    }

    /** Runs one rank per thread with its own TLS settings; returns each rank's result or its error. */
    private static List<Object> run(final Tls[] tls, final int startupSeconds, final LocalCluster.RankFunction<?> body)
        throws Exception {
        final int n = tls.length;
        final Path dir = keys.resolve("rendezvous-" + UUID.randomUUID());
        final String jobName = "tls-" + UUID.randomUUID();
        final Object[] results = new Object[n];
        final Thread[] threads = new Thread[n];
        for (int r = 0; r < n; r++) {
            final int rank = r;
            threads[r] = new Thread(() -> {
                try (Communicator world = Pario.init(new Bootstrap(rank, n, null, dir, jobName, "token-" + jobName,
                    "127.0.0.1", "127.0.0.1", Duration.ofSeconds(startupSeconds), Duration.ofSeconds(10), tls[rank]))) {
                    results[rank] = body.call(world);
                } catch (Throwable t) {
                    results[rank] = t;
                }
            });
            threads[r].start();
        }
        for (final Thread t : threads) {
            t.join();
        }
        return Arrays.asList(results);
    }

    /** Connects with plain TCP, writes a valid-looking hello, and returns whether the rank closed the connection. */
    private static boolean plainRefused(final InetSocketAddress at) throws Exception {
        try (Socket s = new Socket(at.getAddress(), at.getPort())) {
            s.setSoTimeout(10_000);
            final OutputStream out = s.getOutputStream();
            out.write(new byte[] {0x50, 0x61, 0x72, 0x31, 1, 0, 0, 0, 1, 0, 0});
            out.flush();
            final InputStream in = s.getInputStream();
            // the TLS layer may answer with an alert before it closes; what matters is that it closes
            while (in.read() != -1) {
                continue;
            }
            return true;
        }
    }

    /** Connects with TLS and another job's key: the handshake (or the first read after it) must fail. */
    private static boolean otherKeyRefused(final InetSocketAddress at) throws Exception {
        final TlsContexts theirs = TlsContexts.load(other.keyStore(), PASSWORD.toCharArray());
        try (SSLSocket s = (SSLSocket) theirs.jdk().getSocketFactory().createSocket(at.getAddress(), at.getPort())) {
            s.setSoTimeout(10_000);
            try {
                s.startHandshake();
                s.getOutputStream().write(1);
                s.getOutputStream().flush();
                return s.getInputStream().read() == -1;
            } catch (java.io.IOException e) {
                return true;
            }
        }
    }

    @Test
    void aJobRunsOverTlsAndRefusesPlainAndForeignConnections() throws Exception {
        final List<Object> results = run(new Tls[] {job, job, job}, 30, world -> {
            if (world.rank() == 0) {
                final InetSocketAddress at = ((TcpFabric) world.fabric()).dataAddress();
                assertTrue(plainRefused(at), "a plain TCP connection is refused");
                assertTrue(otherKeyRefused(at), "a TLS connection with another job's key is refused");
            }
            final int n = world.size();
            final long[] sum = new long[1];
            world.allreduce(new long[] {world.rank() + 1}, sum, 1, Datatype.LONG, Op.SUM);
            // 8 MiB around the ring: the large-message path under TLS
            final double[] big = new double[1 << 20];
            Arrays.fill(big, world.rank());
            final double[] got = new double[1 << 20];
            world.sendrecv(big, big.length, Datatype.DOUBLE, (world.rank() + 1) % n, 3, got, got.length,
                Datatype.DOUBLE, (world.rank() + n - 1) % n, 3);
            assertEquals((world.rank() + n - 1) % n, got[777_777]);
            return sum[0];
        });
        assertEquals(List.of(6L, 6L, 6L), results);
    }

    @Test
    void aRankWithoutTheJobsKeyCannotJoin() throws Exception {
        final List<Object> results = run(new Tls[] {job, other}, 3, world -> "joined");
        for (final Object r : results) {
            assertTrue(r instanceof ParioException, "every rank fails to start: " + r);
        }
        assertTrue(((Throwable) results.get(0)).getMessage().contains("ranks [1] did not arrive"),
            ((Throwable) results.get(0)).getMessage());
    }

    @Test
    void aMissingKeyStoreIsAClearError() {
        final ParioException e = assertThrows(ParioException.class, () -> TlsContexts.load(keys.resolve("none.p12"),
            PASSWORD.toCharArray()));
        assertTrue(e.getMessage().contains("none.p12"), e.getMessage());
        final ParioException noPassword = assertThrows(ParioException.class, () -> Tls.fromEnvironment(
            java.util.Map.of("PARIO_TLS_KEYSTORE", "job.p12")));
        assertTrue(noPassword.getMessage().contains("PARIO_TLS_PASSWORD"), noPassword.getMessage());
    }
}
