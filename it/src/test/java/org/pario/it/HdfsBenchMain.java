package org.pario.it;

import java.io.File;
import java.io.PrintWriter;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.pario.cli.Main;

/**
 * {@code pario bench io} against HDFS on this machine: starts a 3-datanode MiniDFSCluster (128 MiB blocks) and
 * runs the benchmark with 4 JVM ranks for BLOCK 2x2x1 and CYCLIC(1) on an hdfs:// file. Run by
 * {@code bench/run-hdfs.sh}. Arguments: EDGE (default 256) and a directory for the cluster's data.
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
            for (final String pattern : new String[] {"2x2x1", "cyclic"}) {
                Main.run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), "bench", "io", "-n", "4",
                    "--size", edge, "--pattern", pattern, "--file", file);
            }
        } finally {
            cluster.shutdown(true);
        }
        System.exit(0);
    }
}
