package org.pario.hdfs;

import java.util.UUID;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.pario.io.storage.StorageContract;

/** The storage contract on HDFS: a 3-datanode MiniDFSCluster with 1 MiB blocks, one folder per test. */
@Timeout(300)
class HdfsStorageContractTest extends StorageContract {
    private static MiniDFSCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = MiniDfs.start("target/minidfs-contract");
    }

    @AfterAll
    static void stop() {
        MiniDfs.stop(cluster);
    }

    private String folder;

    @Override
    protected String location(final String name) throws Exception {
        if (folder == null) {
            folder = "/contract-" + UUID.randomUUID();
            cluster.getFileSystem().mkdirs(new Path(folder));
        }
        return "hdfs://localhost:" + cluster.getNameNodePort() + folder + "/" + name;
    }
}
