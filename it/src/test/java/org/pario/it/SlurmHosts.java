package org.pario.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Slurm cluster whose nodes are the hosts of a {@link Netns}: {@code slurmctld} on node0 and one {@code slurmd} on
 * every host, each in its host's namespace under its host name, with a configuration, state and logs of their own
 * in {@code dir} (so they run beside the one-node test cluster, whose daemons live in the machine's own namespace).
 * Clients ({@code srun}, {@code sinfo}) run on node0 through {@link #client}. Needs root, munged running (the one-node
 * cluster's start-up starts it) and Debian's slurm-wlm.
 */
final class SlurmHosts implements AutoCloseable {
    private final Netns hosts;
    private final int count;
    private final Path conf;
    private final Path dir;
    private final List<Process> daemons = new ArrayList<>();

    /** Starts the cluster and waits until every node answers as idle. */
    SlurmHosts(final Netns hosts, final int count, final Path dir) throws IOException, InterruptedException {
        this.hosts = hosts;
        this.count = count;
        this.dir = dir;
        this.conf = dir.resolve("slurm.conf");
        Files.createDirectories(dir.resolve("state"));
        Files.createDirectories(dir.resolve("log"));
        final StringBuilder c = new StringBuilder(String.join("\n",
            "ClusterName=pariohosts",
            "SlurmctldHost=" + Netns.hostName(0) + "(" + hosts.address(0) + ")",
            "SlurmUser=root",
            "AuthType=auth/munge",
            "StateSaveLocation=" + dir.resolve("state"),
            "SlurmdSpoolDir=" + dir.resolve("spool-%n"),
            "SlurmctldPidFile=" + dir.resolve("slurmctld.pid"),
            "SlurmdPidFile=" + dir.resolve("slurmd-%n.pid"),
            "SlurmctldLogFile=" + dir.resolve("log/slurmctld.log"),
            "SlurmdLogFile=" + dir.resolve("log/slurmd-%n.log"),
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU",
            "MpiDefault=none",
            "ReturnToService=2",
            "SlurmdParameters=config_overrides",
            "KillWait=5",
            ""));
        for (int h = 0; h < count; h++) {
            c.append("NodeName=").append(Netns.hostName(h)).append(" NodeAddr=").append(hosts.address(h))
                .append(" CPUs=4 State=UNKNOWN\n");
        }
        c.append("PartitionName=hosts Nodes=node[0-").append(count - 1).append("] Default=YES MaxTime=INFINITE")
            .append(" State=UP\n");
        Files.writeString(conf, c.toString());
        boolean started = false;
        try {
            daemons.add(daemon(0, "slurmctld"));
            for (int h = 0; h < count; h++) {
                Files.createDirectories(dir.resolve("spool-" + Netns.hostName(h)));
                daemons.add(daemon(h, "slurmd"));
            }
            awaitIdle();
            started = true;
        } finally {
            if (!started) {
                close();
            }
        }
    }

    /** @return {@code command} run on node0 as a client of this cluster */
    ProcessBuilder client(final List<String> command) {
        final ProcessBuilder pb = new ProcessBuilder(hosts.on(0, command)).redirectErrorStream(true);
        pb.environment().put("SLURM_CONF", conf.toString());
        return pb;
    }

    /** @return the daemons' logs, for a failure's message */
    String logs() {
        final StringBuilder s = new StringBuilder();
        try (var files = Files.list(dir.resolve("log"))) {
            for (final Path p : files.sorted().toList()) {
                final List<String> lines = Files.readAllLines(p);
                s.append("--- ").append(p.getFileName()).append('\n')
                    .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size())))
                    .append('\n');
            }
        } catch (IOException e) {
            s.append("(logs unreadable: ").append(e).append(")");
        }
        return s.toString();
    }

    /**
     * A daemon in the foreground on host {@code h}. {@code ip netns exec} mounts a sysfs of the namespace's own,
     * without the control groups slurmd looks for, so the machine's cgroup mounts are made again inside first.
     */
    private Process daemon(final int h, final String name) throws IOException {
        final List<String> command = List.of("sh", "-c", cgroupMounts() + " && exec " + name + " -D -f " + conf);
        return new ProcessBuilder(hosts.on(h, command)).redirectErrorStream(true)
            .redirectOutput(dir.resolve("log/" + name + "-" + Netns.hostName(h) + ".out").toFile()).start();
    }

    /** @return shell commands that mount the control groups as this machine has them under /sys/fs/cgroup */
    static String cgroupMounts() throws IOException {
        final List<String> mounts = new ArrayList<>();
        for (final String line : Files.readAllLines(Path.of("/proc/self/mountinfo"), StandardCharsets.UTF_8)) {
            final String[] f = line.split(" ");
            final int dash = List.of(f).indexOf("-");
            final String point = f[4];
            final String type = f[dash + 1];
            final String options = f[dash + 3];
            if (point.equals("/sys/fs/cgroup")) {
                mounts.add(0, type.equals("cgroup2") ? "mount -t cgroup2 cgroup2 /sys/fs/cgroup"
                    : "mount -t tmpfs -o mode=755 tmpfs /sys/fs/cgroup");
            } else if (point.startsWith("/sys/fs/cgroup/") && type.equals("cgroup")) {
                // Slurm refuses a hybrid layout, so the version 2 tree beside the version 1 controllers is left out
                mounts.add("mkdir -p " + point + " && mount -t cgroup -o " + options + " cgroup " + point);
            }
        }
        return mounts.isEmpty() ? "true" : String.join(" && ", mounts);
    }

    private void awaitIdle() throws IOException, InterruptedException {
        final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String last = "";
        while (System.nanoTime() < end) {
            final Process p = client(List.of("sinfo", "-h", "-o", "%t %D", "-p", "hosts")).start();
            last = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            p.waitFor(10, TimeUnit.SECONDS);
            if (last.equals("idle " + count)) {
                return;
            }
            Thread.sleep(500);
        }
        throw new IOException("the cluster of " + count + " hosts did not come up (sinfo: " + last + ")\n" + logs());
    }

    @Override
    public void close() {
        for (final Process p : daemons) {
            p.destroy();
        }
        for (final Process p : daemons) {
            try {
                if (!p.waitFor(15, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
    }
}
