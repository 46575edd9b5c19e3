package org.pario.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Several hosts on one machine: each "host" is a network namespace with its own interface, address and host
 * name ({@code node0}, {@code node1}, ...), all joined by a bridge in a namespace of their own, so ranks talk over
 * real interfaces and see each other by name. A host's link can be cut (its bridge port goes down): its
 * traffic is then dropped, not refused. Needs root and {@code ip}; {@link #unavailable()} says why not.
 */
final class Netns implements AutoCloseable {
    private final String id;
    private final int hosts;
    private final int subnet;
    private final List<String> created = new ArrayList<>();

    /** Creates {@code hosts} hosts on a fresh bridge. */
    Netns(final int hosts) throws IOException {
        this.id = Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);
        this.hosts = hosts;
        this.subnet = 16 + ThreadLocalRandom.current().nextInt(200);
        boolean done = false;
        try {
            create(name("sw"));
            ip(name("sw"), "link", "add", "br0", "type", "bridge");
            ip(name("sw"), "link", "set", "br0", "up");
            final StringBuilder table = new StringBuilder("127.0.0.1 localhost\n");
            for (int h = 0; h < hosts; h++) {
                table.append(address(h)).append(' ').append(hostName(h)).append('\n');
            }
            for (int h = 0; h < hosts; h++) {
                final String ns = name("h" + h);
                create(ns);
                Processes.run("ip", "link", "add", port(h, 'a'), "type", "veth", "peer", "name", port(h, 'b'));
                Processes.run("ip", "link", "set", port(h, 'a'), "netns", ns);
                Processes.run("ip", "link", "set", port(h, 'b'), "netns", name("sw"));
                ip(ns, "link", "set", port(h, 'a'), "name", "eth0");
                ip(ns, "addr", "add", address(h) + "/24", "dev", "eth0");
                ip(ns, "link", "set", "eth0", "up");
                ip(ns, "link", "set", "lo", "up");
                ip(name("sw"), "link", "set", port(h, 'b'), "master", "br0");
                ip(name("sw"), "link", "set", port(h, 'b'), "up");
                // "ip netns exec" shows /etc/netns/NAME/hosts as /etc/hosts: every host resolves every name
                final Path etc = Path.of("/etc/netns", ns);
                Files.createDirectories(etc);
                Files.writeString(etc.resolve("hosts"), table);
            }
            done = true;
        } finally {
            if (!done) {
                close();
            }
        }
    }

    /** @return null if this machine can run namespaces, otherwise why not */
    static String unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "network namespaces need root (running as " + System.getProperty("user.name") + ")";
        }
        final String probe = "pario-probe-" + ProcessHandle.current().pid();
        try {
            Processes.run("ip", "netns", "add", probe);
            Processes.run("ip", "netns", "del", probe);
            return null;
        } catch (IOException e) {
            return "cannot create a network namespace: " + e.getMessage();
        }
    }

    /** @return the host name of host {@code h} */
    static String hostName(final int h) {
        return "node" + h;
    }

    /** @return the address of host {@code h} */
    String address(final int h) {
        return "10.231." + subnet + "." + (h + 1);
    }

    /** @return {@code command} run on host {@code h}: in its namespace, under its host name */
    List<String> on(final int h, final List<String> command) {
        final List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", name("h" + h), "unshare", "--uts", "sh",
            "-c", "hostname " + hostName(h) + " && exec \"$@\"", "sh"));
        c.addAll(command);
        return c;
    }

    /** Cuts host {@code h} off: its bridge port goes down, so everything it sends or is sent is dropped. */
    void cut(final int h) throws IOException {
        ip(name("sw"), "link", "set", port(h, 'b'), "down");
    }

    @Override
    public void close() {
        for (final String ns : created) {
            try {
                Processes.run("ip", "netns", "del", ns);
            } catch (IOException e) {
                // best effort: a namespace that is already gone is what we want
            }
            try {
                Files.deleteIfExists(Path.of("/etc/netns", ns, "hosts"));
                Files.deleteIfExists(Path.of("/etc/netns", ns));
            } catch (IOException e) {
                // best effort
            }
        }
        created.clear();
    }

    private String name(final String what) {
        return "pario-" + id + "-" + what;
    }

    /** Interface names are limited to 15 characters. */
    private String port(final int h, final char end) {
        return "pv" + id + "x" + h + end;
    }

    private void create(final String ns) throws IOException {
        Processes.run("ip", "netns", "add", ns);
        created.add(ns);
    }

    private static void ip(final String ns, final String... args) throws IOException {
        final List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", ns, "ip"));
        c.addAll(List.of(args));
        Processes.run(c.toArray(new String[0]));
    }
}
