package org.pario.hdfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;
import org.pario.io.array.Dist;
import org.pario.io.array.Checkpoint;
import org.pario.io.array.Region;
import org.pario.io.array.CheckpointHeader;
import org.pario.io.array.DistributedArray;
import org.pario.io.array.Element;
import org.pario.io.array.StoredArray;

/** hdfs:// files against a 3-datanode MiniDFSCluster with 1 MiB blocks. */
@Timeout(300)
class HdfsStorageTest {
    private static MiniDFSCluster cluster;
    private static DistributedFileSystem fs;
    private static String base;

    @BeforeAll
    static void start() throws Exception {
        cluster = MiniDfs.start("target/minidfs");
        fs = cluster.getFileSystem();
        base = "hdfs://localhost:" + cluster.getNameNodePort() + "/pario";
        fs.mkdirs(new Path("/pario"));
    }

    @AfterAll
    static void stop() {
        MiniDfs.stop(cluster);
    }

    private static DistributedArray<double[]> array(final Communicator comm, final Dist... dists) {
        return DistributedArray.of(comm, Element.DOUBLE, new long[] {300, 700}, dists);
    }

    private static double[] values(final DistributedArray<double[]>.Local part) {
        final double[] v = new double[part.intCount()];
        for (int i = 0; i < v.length; i++) {
            v[i] = part.globalLinear(i);
        }
        return v;
    }

    private static byte[] raw(final String name) throws Exception {
        final Path p = new Path("/pario/" + name);
        final byte[] b = new byte[(int) fs.getFileStatus(p).getLen()];
        try (FSDataInputStream in = fs.open(p)) {
            in.readFully(0, b);
        }
        return b;
    }

    private static void assertNoParts() throws Exception {
        for (final FileStatus s : fs.listStatus(new Path("/pario"))) {
            assertTrue(!s.getPath().getName().contains(".pario-part-"), "left behind: " + s.getPath());
        }
    }

    @Test
    void aCollectiveWriteGoesToHdfsAsBlockAlignedPartsAndReadsBackOnOtherDistributions() throws Exception {
        final String file = base + "/field.bin";
        // 1.6 MiB over 4 ranks and 3 aggregators, 64 KiB rounds
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]>.Local part = array(comm, Dist.block(), Dist.cyclic(3)).local();
            try (ParallelFile f = ParallelFile.open(comm, file, EnumSet.of(Mode.CREATE, Mode.WRONLY), MiniDfs.hints(Map.of(
                "cb_config_list", "*:*", "cb_nodes", "3", "cb_buffer_size", "65536")))) {
                f.setView(0, Datatype.DOUBLE, part.filetype(), DataRepresentation.NATIVE);
                f.writeAll(values(part), part.count(), Datatype.DOUBLE);
            }
        });
        final ByteBuffer b = ByteBuffer.wrap(raw("field.bin")).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(300 * 700 * 8, b.capacity());
        for (int i = 0; i < 300 * 700; i++) {
            assertEquals(i, b.getDouble(8 * i), 0.0, "element " + i);
        }
        assertNoParts();
        final long[] blocks = Arrays.stream(fs.getFileBlockLocations(new Path("/pario/field.bin"), 0, b.capacity()))
            .mapToLong(l -> l.getLength()).toArray();
        for (int i = 0; i + 1 < blocks.length; i++) {
            assertEquals(1 << 20, blocks[i], "every block but the last is whole: " + Arrays.toString(blocks));
        }
        for (final int ranks : new int[] {3, 5}) {
            LocalCluster.run(ranks, comm -> {
                final DistributedArray<double[]>.Local part = array(comm, Dist.cyclic(), Dist.none()).local();
                try (ParallelFile f = ParallelFile.open(comm, file, EnumSet.of(Mode.RDONLY))) {
                    f.setView(0, Datatype.DOUBLE, part.filetype(), DataRepresentation.NATIVE);
                    final double[] back = new double[(int) part.count()];
                    f.readAll(back, back.length, Datatype.DOUBLE);
                    assertArrayEquals(values(part), back);
                    final double[] again = new double[(int) part.count()];
                    f.readAt(0, again, again.length, Datatype.DOUBLE);
                    assertArrayEquals(values(part), again, "independent reads too");
                }
            });
        }
    }

    /**
     * Collective writes that append to a file whose last block is partial fill that block first (by append), then
     * join whole blocks (by concat): every block of the file but the last stays whole, write after write.
     */
    @Test
    void appendingCollectiveWritesFillThePartialLastBlockFirst() throws Exception {
        final String file = base + "/grows.bin";
        // three writes of 1.5, 2.25 and 0.3 MiB of ints, interleaved over 3 ranks, 2 aggregators, 256 KiB rounds
        final long[] ints = {3 * 131072, 3 * 196608, 3 * 26214};
        LocalCluster.run(3, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file, EnumSet.of(Mode.CREATE, Mode.WRONLY), MiniDfs.hints(Map.of(
                "cb_config_list", "*:*", "cb_nodes", "2", "cb_buffer_size", "262144")))) {
                long at = 0;
                for (int w = 0; w < ints.length; w++) {
                    f.setView(at + 4L * comm.rank(), Datatype.INT, Datatype.resized(Datatype.INT, 0, 12),
                        DataRepresentation.NATIVE);
                    final int[] mine = new int[(int) (ints[w] / 3)];
                    for (int k = 0; k < mine.length; k++) {
                        mine[k] = (int) (at / 4) + 3 * k + comm.rank();
                    }
                    f.writeAll(mine, mine.length, Datatype.INT);
                    at += 4 * ints[w];
                }
            }
        });
        final long total = 4 * (ints[0] + ints[1] + ints[2]);
        final ByteBuffer b = ByteBuffer.wrap(raw("grows.bin")).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(total, b.capacity());
        for (int i = 0; i < total / 4; i++) {
            assertEquals(i, b.getInt(4 * i), "int " + i);
        }
        final long[] blocks = Arrays.stream(fs.getFileBlockLocations(new Path("/pario/grows.bin"), 0, total))
            .mapToLong(l -> l.getLength()).toArray();
        assertEquals((total + (1 << 20) - 1) >> 20, blocks.length, Arrays.toString(blocks));
        for (int i = 0; i + 1 < blocks.length; i++) {
            assertEquals(1 << 20, blocks[i], "every block but the last is whole: " + Arrays.toString(blocks));
        }
        assertNoParts();
    }

    /** Hints with Hadoop keys configure the file: here its replication and block size. */
    @Test
    void hadoopKeysInHintsConfigureTheFile() throws Exception {
        final String file = base + "/configured.bin";
        LocalCluster.run(2, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file, EnumSet.of(Mode.CREATE, Mode.WRONLY), MiniDfs.hints(Map.of(
                "dfs.replication", "2", "dfs.blocksize", "2097152", "cb_config_list", "*:*")))) {
                f.setView(4L * comm.rank(), Datatype.INT, Datatype.resized(Datatype.INT, 0, 8),
                    DataRepresentation.NATIVE);
                final int[] mine = new int[1 << 20];
                Arrays.fill(mine, comm.rank() + 1);
                f.writeAll(mine, mine.length, Datatype.INT);
            }
        });
        final FileStatus st = fs.getFileStatus(new Path("/pario/configured.bin"));
        assertEquals(2, st.getReplication());
        assertEquals(2 << 20, st.getBlockSize());
        assertEquals(8L << 20, st.getLen());
        final long[] blocks = Arrays.stream(fs.getFileBlockLocations(new Path("/pario/configured.bin"), 0, st.getLen()))
            .mapToLong(l -> l.getLength()).toArray();
        assertEquals(4, blocks.length, Arrays.toString(blocks));
        assertNoParts();
    }

    @Test
    void writesThatHdfsCannotDoFailOnEveryRankAndSayWhy() throws Exception {
        final String file = base + "/appends.bin";
        LocalCluster.run(2, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file, EnumSet.of(Mode.CREATE, Mode.WRONLY),
                MiniDfs.hints(Map.of("cb_config_list", "*:*")))) {
                f.setView(0, Datatype.INT, Datatype.resized(Datatype.INT, 0, 8), DataRepresentation.NATIVE);
                f.setView(4L * comm.rank(), Datatype.INT, Datatype.resized(Datatype.INT, 0, 8),
                    DataRepresentation.NATIVE);
                final int[] mine = new int[1000];
                Arrays.fill(mine, comm.rank() + 1);
                f.writeAll(mine, 1000, Datatype.INT);
                // a second collective write past the end appends
                f.writeAll(mine, 1000, Datatype.INT);
                assertEquals(16000, f.size());
                final ParioException back = assertThrows(ParioException.class, () -> f.writeAtAll(0, mine, 10,
                    Datatype.INT));
                assertTrue(back.getMessage().contains("can only grow at its end (byte 16000)"), back.getMessage());
                final ParioException one = assertThrows(ParioException.class, () -> f.writeAt(5000, mine, 1,
                    Datatype.INT));
                assertTrue(one.getMessage().contains("append-only"), one.getMessage());
                assertTrue(assertThrows(ParioException.class, () -> f.setSize(10)).getMessage().contains("HDFS"));
            }
        });
        final ByteBuffer b = ByteBuffer.wrap(raw("appends.bin")).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(16000, b.capacity());
        for (int i = 0; i < 4000; i++) {
            assertEquals(i % 2 + 1, b.getInt(4 * i), "int " + i);
        }
        assertNoParts();
        // a failed write (one rank's buffer is no buffer) leaves the file as it was and no parts
        assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            try (ParallelFile f = ParallelFile.open(comm, file, EnumSet.of(Mode.WRONLY),
                MiniDfs.hints(Map.of("cb_config_list", "*:*")))) {
                f.writeAtAll(16000, comm.rank() == 1 ? "no buffer" : new byte[100], 100, Datatype.BYTE);
            }
        }));
        assertEquals(16000, raw("appends.bin").length);
        assertNoParts();
        assertTrue(assertThrows(ParioException.class, () -> LocalCluster.run(1, comm -> ParallelFile.open(comm,
            base + "/missing.bin", EnumSet.of(Mode.RDONLY)))).getMessage().contains("no such file"));
    }

    @Test
    void checkpointsOnHdfsAreWrittenAtomicallyAndRestoreOnOtherDistributions() throws Exception {
        final String file = base + "/state.ckpt";
        for (final double sign : new double[] {1, -1}) {
            LocalCluster.run(4, comm -> {
                final DistributedArray<double[]> a = array(comm, Dist.block(), Dist.cyclic(3));
                final double[] v = values(a.local());
                for (int i = 0; i < v.length; i++) {
                    v[i] *= sign;
                }
                Checkpoint.at(file).hints(MiniDfs.hints(Map.of("cb_config_list", "*:*"))).writer()
                    .attribute("sign", sign).array("field", a, v).write();
            });
        }
        final CheckpointHeader h = Checkpoint.at(file).header();
        assertEquals(-1.0, h.attributes().getDouble("sign"), "the second checkpoint replaced the first");
        assertEquals(h.array("field").offset() + h.array("field").bytes(),
            fs.getFileStatus(new Path("/pario/state.ckpt")).getLen(), "the file ends where its last array does");
        assertEquals(4096, h.array("field").offset());
        LocalCluster.run(3, comm -> {
            Checkpoint.at(file).verify(comm);
            final DistributedArray<double[]> a = array(comm, Dist.cyclic(), Dist.none());
            final double[] back = Checkpoint.at(file).restore("field", a);
            final double[] want = values(a.local());
            for (int i = 0; i < want.length; i++) {
                want[i] = -want[i];
            }
            assertArrayEquals(want, back);
            // a region, strided in its rows, onto the three ranks as CYCLIC(2) rows
            final Region r = Region.parse("250:300, 1:700:9", new long[] {300, 700});
            final DistributedArray<double[]> box = DistributedArray.of(comm, Element.DOUBLE, r.count(),
                Dist.cyclic(2), Dist.none());
            final double[] part = Checkpoint.at(file).hints(MiniDfs.hints(Map.of())).restore("field", r, box);
            for (int i = 0; i < part.length; i++) {
                final long[] at = box.local().globalIndex(i);
                assertEquals(-((250 + at[0]) * 700 + 1 + 9 * at[1]), part[i]);
            }
        });
        final double[] corner = Checkpoint.at(file).hints(MiniDfs.hints(Map.of())).read("field",
            Region.parse("299, 690:700", new long[] {300, 700}), Element.DOUBLE);
        for (int i = 0; i < 10; i++) {
            assertEquals(-(299 * 700 + 690 + i), corner[i], "read in one process");
        }
        final org.pario.io.array.CheckpointEntry listed = Checkpoint.list(base).stream()
            .filter(e -> e.location().endsWith("/state.ckpt")).findFirst().orElseThrow();
        assertTrue(listed.whole(), listed.toString());
        assertEquals(-1.0, listed.attributes().getDouble("sign"));
        assertTrue(Checkpoint.latest(base).newest().isPresent(), "the catalog reads HDFS directories too");
        // written asynchronously: the buffers change at once, the checkpoint holds the values of the call
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]> a = array(comm, Dist.cyclic(2), Dist.block());
            final double[] v = values(a.local());
            final java.util.concurrent.CompletableFuture<CheckpointHeader> saved = Checkpoint.at(file)
                .hints(MiniDfs.hints(Map.of("pario_async_staging_bytes", "100000"))).writer()
                .attribute("sign", 2.0).array("field", a, v).writeAsync();
            java.util.Arrays.fill(v, -1);
            assertEquals(2.0, saved.join().attributes().getDouble("sign"));
        });
        LocalCluster.run(3, comm -> {
            final DistributedArray<double[]> a = array(comm, Dist.block(), Dist.none());
            assertArrayEquals(values(a.local()), Checkpoint.at(file).restore("field", a));
        });
        for (final FileStatus st : fs.listStatus(new Path("/pario"))) {
            assertTrue(!st.getPath().getName().startsWith(".state.ckpt"), "left behind: " + st.getPath());
        }
    }

    @Test
    void aPaddedStructArrayLastInAnHdfsCheckpointIsHeldWhole() throws Exception {
        final String file = base + "/structs.ckpt";
        final Element<ByteBuffer> pair = Element.of(Datatype.parse("struct([1,1], [0,8], [double, int])"));
        LocalCluster.run(2, comm -> {
            final DistributedArray<ByteBuffer> s = DistributedArray.of(comm, pair, new long[] {10}, Dist.cyclic());
            final DistributedArray<ByteBuffer>.Local part = s.local();
            final ByteBuffer b = s.allocate();
            for (int i = 0; i < part.count(); i++) {
                b.putDouble(16 * i, part.globalLinear(i)).putInt(16 * i + 8, (int) -part.globalLinear(i));
            }
            Checkpoint.at(file).hints(MiniDfs.hints(Map.of())).write("s", s, b);
        });
        final StoredArray a = Checkpoint.at(file).header().array("s");
        assertEquals(160, a.bytes());
        assertEquals(a.offset() + 160, fs.getFileStatus(new Path("/pario/structs.ckpt")).getLen());
        LocalCluster.run(1, comm -> Checkpoint.at(file).verify(comm));
    }

    /** Stands for the death of the committing process at a chosen step. */
    private static final class Crash extends Error {
        Crash() {
            super("the committing process dies here", null, false, false);
        }
    }

    /** @return {@code n} bytes that tell their offset {@code from + i} apart */
    private static byte[] pattern(final long from, final int n) {
        final byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ((from + i) * 31 / 7);
        }
        return b;
    }

    /** Writes {@code n} pattern bytes at the end of the file as one part, through the backend directly. */
    private static void append(final HdfsStorage s, final long at, final int n) throws Exception {
        final org.pario.io.storage.Storage.Part part = s.openPart(0, at);
        part.append(ByteBuffer.wrap(pattern(at, n)));
        part.close();
        s.commitParts(new int[] {0});
    }

    /**
     * Writes 1.5 MiB, then 1.5 MiB more with the committing process dying at {@code step}: the second write's
     * first 0.5 MiB top up the second block (the fill), the rest is one whole-block part.
     */
    private static void appendDyingAt(final HdfsStorage s, final java.util.function.Consumer<Runnable> step)
        throws Exception {
        append(s, 0, 3 << 19);
        step.accept(() -> {
            throw new Crash();
        });
        try {
            assertThrows(Crash.class, () -> append(s, 3 << 19, 3 << 19));
        } finally {
            step.accept(null);
        }
    }

    private static HdfsStorage openFirst(final String file) throws Exception {
        return new HdfsStorage(file, new org.pario.io.storage.StorageProvider.Request(true, true, true, false,
            Map.of()), HdfsStorageProvider.configuration(MiniDfs.hints(Map.of()).asMap()));
    }

    private static void assertPattern(final String name, final long length) throws Exception {
        final byte[] b = raw(name);
        assertEquals(length, b.length);
        assertArrayEquals(pattern(0, (int) length), b);
        for (final FileStatus f : fs.listStatus(new Path("/pario"))) {
            assertTrue(!f.getPath().getName().startsWith("." + name + ".pario-"), "left behind: " + f.getPath());
        }
    }

    @Test
    void aWriterThatDiesBetweenToppingUpTheLastBlockAndJoiningThePartsIsUndoneByTheNextOpen() throws Exception {
        final String file = base + "/interrupted.bin";
        final int first = 3 << 19;
        try (HdfsStorage s = openFirst(file)) {
            appendDyingAt(s, h -> HdfsStorage.afterFill = h);
            assertEquals(2 << 20, s.size(), "the fill is in the file, the parts are not");
        }
        try (HdfsStorage s = openFirst(file)) {
            assertEquals(first, s.size());
            assertPattern("interrupted.bin", first);
            // and the file takes the next write as if nothing had happened
            append(s, first, 3 << 19);
        }
        assertPattern("interrupted.bin", 3 << 20);
    }

    @Test
    void aWriterThatDiesAfterJoiningThePartsKeepsItsWriteAndTheNextOpenClearsUp() throws Exception {
        final String file = base + "/joined.bin";
        try (HdfsStorage s = openFirst(file)) {
            appendDyingAt(s, h -> HdfsStorage.afterConcat = h);
        }
        assertTrue(fs.listStatus(new Path("/pario"), p -> p.getName().startsWith(".joined.bin.pario-commit-")).length
            == 1, "the commit is still marked");
        // a rank that opens after the first one does not touch it
        try (HdfsStorage s = new HdfsStorage(file, new org.pario.io.storage.StorageProvider.Request(true, false,
            false, false, Map.of(), false), HdfsStorageProvider.configuration(MiniDfs.hints(Map.of()).asMap()))) {
            assertEquals(3 << 20, s.size());
        }
        assertTrue(fs.listStatus(new Path("/pario"), p -> p.getName().startsWith(".joined.bin.pario-commit-")).length
            == 1);
        try (HdfsStorage s = openFirst(file)) {
            assertEquals(3 << 20, s.size());
        }
        assertPattern("joined.bin", 3 << 20);
    }
}
