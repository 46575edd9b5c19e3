package org.pario.it;

import java.io.File;
import java.io.PrintWriter;
import java.util.Locale;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.pario.cli.Main;

/**
 * {@code pario bench io} against HDFS on this machine: starts a 3-datanode MiniDFSCluster (128 MiB blocks,
 * replication 3) and runs the benchmark with 4 JVM ranks for BLOCK 2x2x1 with 1, 2 and 4 aggregators and for
 * CYCLIC(1) with 4, on an hdfs:// file, beside one client writing the same number of bytes through a single
 * {@code FSDataOutputStream} (and reading them through one {@code FSDataInputStream}): the limit of one
 * pipeline. Run by {@code bench/run-hdfs.sh}. Arguments: EDGE (default 256) and a directory for the cluster's
 * data.
 */
public final class HdfsBenchMain {
    private HdfsBenchMain() {
    }

    public static void main(final String[] args) throws Exception {
        final String edge = args.length > 0 ? args[0] : "256";
        final File data = new File(args.length > 1 ? args[1] : "target/minidfs-bench");
        final Configuration conf = new HdfsConfiguration();
        conf.setLong("dfs.blocksize", 128L << 20);
        conf.set("dfs.client.block.write.replace-datanode-on-failure.policy", "NEVER");
        final MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, data).numDataNodes(3).build();
        try {
            cluster.waitActive();
            final String file = "hdfs://localhost:" + cluster.getNameNodePort() + "/bench/array.bin";
            final long n = Long.parseLong(edge);
            singleStream(cluster.getFileSystem(), new Path("/bench/single.bin"), n * n * n * 8);
            for (final String aggregators : new String[] {"1", "2", "4"}) {
                System.out.println("# BLOCK 2x2x1 with " + aggregators + " aggregator(s)");
                Main.run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), "bench", "io", "-n", "4",
                    "--size", edge, "--pattern", "2x2x1", "--file", file, "--hint", "cb_config_list=*:*", "--hint",
                    "cb_nodes=" + aggregators);
            }
            System.out.println("# CYCLIC(1) with 4 aggregators");
            Main.run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), "bench", "io", "-n", "4",
                "--size", edge, "--pattern", "cyclic", "--file", file, "--hint", "cb_config_list=*:*");
        } finally {
            cluster.shutdown(true);
        }
        System.exit(0);
    }

    /** One client, one stream: writes {@code bytes} in 4 MiB pieces and closes (data durable on 3 datanodes). */
    private static void singleStream(final FileSystem fs, final Path path, final long bytes) throws Exception {
        final byte[] buf = new byte[4 << 20];
        new java.util.Random(1).nextBytes(buf);
        long t0 = System.nanoTime();
        try (FSDataOutputStream out = fs.create(path, true)) {
            for (long done = 0; done < bytes; done += buf.length) {
                out.write(buf, 0, (int) Math.min(buf.length, bytes - done));
            }
            out.hsync();
        }
        final double write = (System.nanoTime() - t0) / 1e9;
        t0 = System.nanoTime();
        long read = 0;
        try (FSDataInputStream in = fs.open(path)) {
            for (int k; (k = in.read(buf)) > 0; ) {
                read += k;
            }
        }
        final double readSeconds = (System.nanoTime() - t0) / 1e9;
        System.out.println("# one FSDataOutputStream / FSDataInputStream, " + (bytes >> 20) + " MiB");
        System.out.printf(Locale.ROOT, "write single-stream 1 %.1f %.3f%n", bytes / 1048576.0 / write, write);
        System.out.printf(Locale.ROOT, "read single-stream 1 %.1f %.3f%n", read / 1048576.0 / readSeconds, readSeconds);
        fs.delete(path, false);
    }
}
