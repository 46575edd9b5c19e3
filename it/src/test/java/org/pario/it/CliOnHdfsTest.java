package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.cli.Main;
import org.pario.hdfs.MiniDfs;

/** The {@code pario} command with hdfs:// locations, against a MiniDFSCluster in this JVM. */
@Timeout(300)
class CliOnHdfsTest {
    private static MiniDFSCluster cluster;
    private static String base;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        cluster = MiniDfs.start("target/minidfs");
        base = "hdfs://localhost:" + cluster.getNameNodePort();
    }

    @AfterAll
    static void stop() {
        MiniDfs.stop(cluster);
    }

    private static String[] run(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = Main.run(new PrintWriter(out), new PrintWriter(err), args);
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    @Test
    void checkpointCommandsWorkOnHdfs() {
        final String file = base + "/ck/data.ckpt";
        final String[] w = run("checkpoint", "write", file, "-n", "3", "--shape", "60x50x20", "--dist",
            "block,cyclic(2),none");
        assertEquals("0", w[0], w[2]);
        final String[] info = run("checkpoint", "info", file);
        assertTrue(info[1].contains("60x50x20"), info[1]);
        assertEquals("0", run("checkpoint", "verify", file)[0]);
        final String[] r = run("checkpoint", "restore", file, "-n", "4", "--dist", "cyclic,block,block");
        assertEquals("0", r[0], r[2]);
        assertTrue(r[1].contains("every value checked"), r[1]);
    }

    @Test
    void viewWriteAndReadWorkOnHdfs() throws Exception {
        final Path spec = dir.resolve("spec.json");
        Files.writeString(spec, "{\"ranks\": 2, \"disps\": [0, 4], \"etype\": \"int\","
            + " \"filetypes\": [\"resized(int, 0, 8)\"], \"counts\": [3, 3]}");
        final String file = base + "/views/v.bin";
        assertEquals("0", run("view", "write", spec.toString(), file)[0]);
        final Path out = dir.resolve("out.bin");
        final String[] r = run("view", "read", spec.toString(), file, out.toString());
        assertEquals("0", r[0], r[2]);
        final java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(Files.readAllBytes(out))
            .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        final int[] got = new int[6];
        b.asIntBuffer().get(got);
        assertArrayEquals(new int[] {1_000_000, 1_000_001, 1_000_002, 2_000_000, 2_000_001, 2_000_002}, got);
        // written again: the old file is replaced
        assertEquals("0", run("view", "write", spec.toString(), file)[0]);
    }
}
