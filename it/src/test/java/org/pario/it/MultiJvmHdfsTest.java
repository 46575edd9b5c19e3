package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.hdfs.MiniDfs;

/** Ranks in separate JVMs writing collectively to HDFS (a MiniDFSCluster in the test JVM); one killed. */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class MultiJvmHdfsTest {
    private static MiniDFSCluster cluster;
    private static DistributedFileSystem fs;
    private static String base;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        cluster = MiniDfs.start("target/minidfs-jvms");
        fs = cluster.getFileSystem();
        base = "hdfs://localhost:" + cluster.getNameNodePort();
    }

    @AfterAll
    static void stop() {
        MiniDfs.stop(cluster);
    }

    private List<String> run(final int n, final String mode, final String location) throws Exception {
        final String job = "hdfs-" + UUID.randomUUID();
        final List<Process> ranks = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            ranks.add(Processes.jobRank(r, n, job, dir, 5, Processes.java(IoJobMain.class, mode, location)).start());
        }
        final List<String> out = new ArrayList<>();
        for (final Process p : ranks) {
            out.add(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            assertTrue(p.waitFor(90, TimeUnit.SECONDS));
        }
        return out;
    }

    private static void assertNoParts(final String dirName) throws Exception {
        for (final FileStatus s : fs.listStatus(new org.apache.hadoop.fs.Path(dirName))) {
            assertTrue(!s.getPath().getName().contains(".pario-part-"), "left behind: " + s.getPath());
        }
    }

    @Test
    void fourJvmsWriteOneHdfsFileCollectively() throws Exception {
        final List<String> out = run(4, "hdfs-write", base + "/jvms/cyclic.bin");
        for (int r = 0; r < 4; r++) {
            assertTrue(out.get(r).contains("rank " + r + " ok"), "rank " + r + ":\n" + out.get(r));
        }
        final org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path("/jvms/cyclic.bin");
        final byte[] b = new byte[(int) fs.getFileStatus(p).getLen()];
        try (FSDataInputStream in = fs.open(p)) {
            in.readFully(0, b);
        }
        final ByteBuffer d = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(16 << 20, b.length);
        for (int i = 0; i < 2 << 20; i++) {
            assertEquals(i, d.getDouble(8 * i), 0.0, "element " + i);
        }
        assertNoParts("/jvms");
    }

    @Test
    void aRankKilledInAnHdfsWriteFailsTheOthersAndLeavesNoParts() throws Exception {
        final List<String> out = run(4, "hdfs-killed", base + "/killed/cyclic.bin");
        assertTrue(out.get(2).contains("rank 2 halting"), out.get(2));
        for (final int r : new int[] {0, 1, 3}) {
            assertTrue(out.get(r).contains("rank " + r + " failed after") && out.get(r).contains("rank 2"),
                "rank " + r + ":\n" + out.get(r));
        }
        final long length = fs.getFileStatus(new org.apache.hadoop.fs.Path("/killed/cyclic.bin")).getLen();
        assertEquals(0, length % (16 << 20), "only whole collective writes reached the file: " + length);
        assertNoParts("/killed");
    }
}
