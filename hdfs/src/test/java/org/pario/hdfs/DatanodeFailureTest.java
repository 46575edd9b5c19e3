package org.pario.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

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
import org.pario.comm.LocalCluster;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
import org.pario.datatypes.Order;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;

/**
 * A datanode stopped in the middle of a collective write: the write either completes with every byte right (HDFS
 * carries on with the remaining datanodes) or fails on every rank with the same error and leaves no part behind;
 * it never hangs.
 */
@Timeout(300)
class DatanodeFailureTest {
    private static MiniDFSCluster cluster;
    private static DistributedFileSystem fs;

    @BeforeAll
    static void start() throws Exception {
        cluster = MiniDfs.start("target/minidfs-dn");
        fs = cluster.getFileSystem();
    }

    @AfterAll
    static void stop() {
        MiniDfs.stop(cluster);
    }

    @Test
    void aDatanodeDyingMidWriteLeavesEitherTheWholeWriteOrAnAgreedError() throws Exception {
        final String file = "hdfs://localhost:" + cluster.getNameNodePort() + "/dn/cyclic.bin";
        fs.mkdirs(new Path("/dn"));
        final int ranks = 3;
        final long total = 3L << 20;  // 24 MiB of doubles
        // rank 0 stops a datanode from inside the write, once a quarter of it is done: always mid-write
        final java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
        final AtomicReference<Throwable> outcome = new AtomicReference<>();
        final long started = System.nanoTime();
        try {
            LocalCluster.run(ranks, comm -> {
                final int r = comm.rank();
                final Datatype cyclic = Datatype.darray(ranks, r, new long[] {total},
                    new Distribution[] {Distribution.CYCLIC}, new long[] {Datatype.DISTRIBUTE_DFLT_DARG},
                    new long[] {ranks}, Order.C, Datatype.DOUBLE);
                final double[] mine = new double[(int) (cyclic.size() / 8)];
                for (int k = 0; k < mine.length; k++) {
                    mine[k] = (double) k * ranks + r;
                }
                try (ParallelFile f = ParallelFile.open(comm, file, EnumSet.of(Mode.CREATE, Mode.WRONLY),
                    MiniDfs.hints(Map.of("cb_config_list", "*:*", "cb_buffer_size", "65536")))) {
                    f.setView(0, Datatype.DOUBLE, cyclic, DataRepresentation.NATIVE);
                    if (r == 0) {
                        f.setProgress((done, all) -> {
                            if (4 * done >= all && done < all && stopped.compareAndSet(false, true)) {
                                cluster.stopDataNode(0);
                            }
                        });
                    }
                    f.writeAll(mine, mine.length, Datatype.DOUBLE);
                }
            });
        } catch (ParioException e) {
            outcome.set(e);
        }
        assertTrue(stopped.get(), "the datanode was stopped during the write");
        final double seconds = (System.nanoTime() - started) / 1e9;
        for (final FileStatus s : fs.listStatus(new Path("/dn"))) {
            assertTrue(!s.getPath().getName().contains(".pario-part-"), "left behind: " + s.getPath());
        }
        final long length = fs.getFileStatus(new Path("/dn/cyclic.bin")).getLen();
        if (outcome.get() == null) {
            assertEquals(total * 8, length);
            final byte[] b = new byte[(int) length];
            try (FSDataInputStream in = fs.open(new Path("/dn/cyclic.bin"))) {
                in.readFully(0, b);
            }
            final ByteBuffer d = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < total; i++) {
                assertEquals(i, d.getDouble(8 * i), 0.0, "element " + i);
            }
            System.out.printf("datanode stopped mid-write: the write completed, every byte right, in %.1f s%n",
                seconds);
        } else {
            assertEquals(ranks - 1, outcome.get().getSuppressed().length, "every rank failed: " + outcome.get());
            assertEquals(0, length, "a failed write adds nothing");
            System.out.printf("datanode stopped mid-write: every rank failed in %.1f s: %s%n", seconds,
                outcome.get().getMessage());
        }
    }
}
