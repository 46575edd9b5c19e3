package org.pario.hdfs;

import java.io.File;
import java.util.HashMap;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.pario.io.Hints;

/**
 * The HDFS of the tests: a 3-datanode MiniDFSCluster, and the client settings its files are written with
 * ({@link #hints}), passed as each file's hints as a user would pass theirs. Shared with the integration tests (the
 * module's test jar).
 */
public final class MiniDfs {
    /**
     * 1 MiB blocks, so that small files span several; and since three datanodes leave no spare to replace one in
     * a pipeline, a writer goes on with the others.
     */
    private static final Map<String, String> CLIENT = Map.of("dfs.blocksize", Integer.toString(1 << 20),
        "dfs.client.block.write.replace-datanode-on-failure.policy", "NEVER");

    private MiniDfs() {
    }

    /**
     * @param dir where the cluster keeps its data (under target/)
     * @return the started cluster
     */
    public static MiniDFSCluster start(final String dir) throws Exception {
        final Configuration conf = new HdfsConfiguration();
        CLIENT.forEach(conf::set);
        final MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, new File(dir)).numDataNodes(3).build();
        cluster.waitActive();
        return cluster;
    }

    /**
     * @param others more hints
     * @return the client settings of the tests' files with {@code others}
     */
    public static Hints hints(final Map<String, String> others) {
        final Map<String, String> all = new HashMap<>(CLIENT);
        all.putAll(others);
        return Hints.of(all);
    }

    /** Stops a cluster {@link #start} started, if it did. */
    public static void stop(final MiniDFSCluster cluster) {
        if (cluster != null) {
            cluster.shutdown(true);
        }
    }
}
