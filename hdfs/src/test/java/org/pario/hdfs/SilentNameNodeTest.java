package org.pario.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.io.storage.StorageProvider;
import org.pario.io.storage.Storages;

/**
 * A NameNode address whose port takes connections and never answers fails within a bound, saying so: 20 s unless
 * the configuration files or a hint set {@code ipc.client.rpc-timeout.ms} (2 s here, so the test does not wait the
 * default out).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SilentNameNodeTest {
    @Test
    void aNameNodeThatNeverAnswersFailsWithinTheBoundNamingIt() throws Exception {
        final List<Socket> held = new ArrayList<>();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            final Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        held.add(server.accept());
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            final long start = System.nanoTime();
            final IOException e = assertThrows(IOException.class, () -> Storages.open("hdfs://127.0.0.1:"
                + server.getLocalPort() + "/pario/x.bin", new StorageProvider.Request(true, false, false, false,
                Map.of("ipc.client.rpc-timeout.ms", "2000"))));
            final long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            System.out.println("silent NameNode: failed after " + seconds + " s: " + e.getMessage());
            assertTrue(e.getMessage().contains("the NameNode at 127.0.0.1:" + server.getLocalPort()
                + " did not answer within 2 s"), e.getMessage());
            assertTrue(seconds < 30, "failed after " + seconds + " s");
        } finally {
            for (final Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    void withoutConfigurationFilesACallWaitsTwentySecondsAndConnectsTwice() {
        final org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration();
        HdfsStorageProvider.boundWaits(conf);
        assertEquals(20_000, conf.getInt("ipc.client.rpc-timeout.ms", 0));
        assertEquals(1, conf.getInt("ipc.client.connect.max.retries", -1));
        assertEquals(1, conf.getInt("ipc.client.connect.max.retries.on.timeouts", -1));
    }
}
