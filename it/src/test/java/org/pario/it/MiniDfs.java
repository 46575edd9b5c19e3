package org.pario.it;

import java.io.File;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/** A 3-datanode MiniDFSCluster with 1 MiB blocks for the integration tests. */
final class MiniDfs {
    private MiniDfs() {
    }

    /** @return a started cluster keeping its data under {@code dir} */
    static MiniDFSCluster start(final String dir) throws Exception {
        final Configuration conf = new HdfsConfiguration();
        conf.setLong("dfs.blocksize", 1 << 20);
        // three datanodes leave no spare to replace one in a pipeline
        conf.set("dfs.client.block.write.replace-datanode-on-failure.policy", "NEVER");
        final MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, new File(dir)).numDataNodes(3).build();
        cluster.waitActive();
        return cluster;
    }
}
