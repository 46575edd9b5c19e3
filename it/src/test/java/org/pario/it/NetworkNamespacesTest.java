package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ranks on several hosts: 4 JVM ranks on 3 network namespaces (ranks 0 and 1 on node0, rank 2 on node1, rank 3
 * on node2), each with its own interface, address and host name, joined by a bridge. Traffic crosses real
 * interfaces, ranks find each other by name, and {@code cb_config_list} groups ranks by the host names they
 * report. Skipped, saying why, where the machine cannot create namespaces (not root, no {@code ip}).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class NetworkNamespacesTest {
    @TempDir
    Path dir;

    @Test
    void ranksOnThreeHostsWriteAndReadCollectivelyWithAggregatorsChosenByHostName() throws Exception {
        final String why = Netns.unavailable();
        Assumptions.assumeTrue(why == null, "several hosts need network namespaces: " + why);
        final int[] hostOf = {0, 0, 1, 2};
        final String[] lists = {"*:1", "*:*", "node0:2", "node1:1,node2:1", "node0:*,*:0"};
        try (Netns hosts = new Netns(3)) {
            final List<Process> ranks = new ArrayList<>();
            for (int r = 0; r < hostOf.length; r++) {
                final List<String> command = new ArrayList<>(Processes.java(HostsJobMain.class,
                    dir.resolve("array").toString()));
                command.addAll(List.of(lists));
                final ProcessBuilder pb = Processes.rank(r, hostOf.length, hosts.on(hostOf[r], command));
                pb.environment().put("PARIO_TOKEN", "several-hosts");
                pb.environment().put("PARIO_COORDINATOR", Netns.hostName(0) + ":7077");
                ranks.add(pb.start());
            }
            final int[] expectedNodes = {3, 4, 2, 2, 2};
            for (int r = 0; r < ranks.size(); r++) {
                final Process p = ranks.get(r);
                final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "rank " + r + " ended");
                assertEquals(0, p.exitValue(), "rank " + r + ":\n" + out);
                assertTrue(out.contains("rank " + r + " host " + Netns.hostName(hostOf[r])), out);
                for (int i = 0; i < lists.length; i++) {
                    assertTrue(out.contains("rank " + r + " list " + lists[i] + " cb_nodes " + expectedNodes[i] + " ok"),
                        "cb_config_list " + lists[i] + " on rank " + r + ":\n" + out);
                }
            }
        }
    }
}
