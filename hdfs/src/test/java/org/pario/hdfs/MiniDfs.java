package org.pario.hdfs;

import java.io.File;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * The HDFS of the tests: a 3-datanode MiniDFSCluster with 1 MiB blocks, so that small files span several blocks,
 * and Pario's provider configured for it until {@link #stop}. Shared with the integration tests (the module's
 * test jar).
 */
public final class MiniDfs {
    private MiniDfs() {
    }

    /**
     * @param dir where the cluster keeps its data (under target/)
     * @return the started cluster, Pario's provider pointed at it
     */
    public static MiniDFSCluster start(final String dir) throws Exception {
        final Configuration conf = new HdfsConfiguration();
        conf.setLong("dfs.blocksize", 1 << 20);
        // three datanodes leave no spare to replace one in a pipeline
        conf.set("dfs.client.block.write.replace-datanode-on-failure.policy", "NEVER");
        final MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, new File(dir)).numDataNodes(3).build();
        cluster.waitActive();
        HdfsStorageProvider.configure(conf);
        return cluster;
    }

    /** Stops a cluster {@link #start} started, if it did, and forgets its configuration. */
    public static void stop(final MiniDFSCluster cluster) {
        HdfsStorageProvider.configure(null);
        if (cluster != null) {
            cluster.shutdown(true);
        }
    }
}
