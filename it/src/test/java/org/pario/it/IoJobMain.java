package org.pario.it;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;

import org.pario.comm.Communicator;
import org.pario.comm.Pario;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.io.Hints;
import org.pario.io.array.Checkpoint;
import org.pario.io.array.CheckpointListener;
import org.pario.io.array.Dist;
import org.pario.io.array.DistributedArray;
import org.pario.io.array.Element;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;

/**
 * A rank of a multi-JVM file test. Modes, each on the file named by the second argument:
 * {@code interleave} — rank r of n writes ints {@code (r+1)*1000000 + k} at positions {@code r + k*n},
 * {@code INTS} of them, independently and all at once, through small sieve windows (many read-modify-write
 * cycles that contend for the same bytes); {@code shared} — every rank appends {@code RECORDS} records of
 * {@code 2 + r} ints through the shared file pointer; {@code redistribute} — two-phase writes of a 12 x 10 int
 * array as a BLOCK darray on a 2 x 3 grid, read back as CYCLIC(1) rows on 6 x 1, every value checked;
 * {@code killed} — rank 2 halts its JVM in the middle of a long two-phase write. Prints {@code rank R ok} or
 * {@code rank R failed after MS ms: ...}.
 */
public final class IoJobMain {
    static final int INTS = 100_000;
    static final int RECORDS = 200;

    private IoJobMain() {
    }

    public static void main(final String[] args) {
        int rank = -1;
        final long started = System.nanoTime();
        try (Communicator world = Pario.init()) {
            rank = world.rank();
            final int r = rank;
            final int n = world.size();
            if (args[0].equals("redistribute")) {
                redistribute(world, args[1]);
                System.out.println("rank " + rank + " ok");
                return;
            }
            if (args[0].equals("hdfs-write") || args[0].equals("hdfs-killed")) {
                hdfsWrite(world, args[1], args[0].equals("hdfs-killed"));
                System.out.println("rank " + rank + " ok");
                return;
            }
            if (args[0].equals("checkpoint-killed")) {
                checkpointKilled(world, args[1]);
                System.out.println("rank " + rank + " ok");
                return;
            }
            if (args[0].equals("killed")) {
                killed(world, args[1]);
                System.out.println("rank " + rank + " ok");
                return;
            }
            final Hints hints = Hints.of(Map.of("ind_wr_buffer_size", "4096"));
            try (ParallelFile f = ParallelFile.open(world, args[1], EnumSet.of(Mode.RDWR, Mode.CREATE), hints)) {
                if (args[0].equals("interleave")) {
                    f.setView(4L * r, Datatype.INT, Datatype.resized(Datatype.INT, 0, 4L * n),
                        DataRepresentation.NATIVE);
                    final int[] mine = new int[INTS];
                    Arrays.setAll(mine, k -> (r + 1) * 1_000_000 + k);
                    world.barrier();
                    f.write(mine, INTS, Datatype.INT);
                } else {
                    f.setView(0, Datatype.INT, Datatype.INT, DataRepresentation.NATIVE);
                    world.barrier();
                    for (int i = 0; i < RECORDS; i++) {
                        final int[] record = new int[2 + r];
                        Arrays.fill(record, r * 1000 + i);
                        record[0] = r;
                        record[1] = i;
                        f.writeShared(record, record.length, Datatype.INT);
                    }
                }
            }
            System.out.println("rank " + rank + " ok");
        } catch (RuntimeException e) {
            System.out.println("rank " + rank + " failed after " + (System.nanoTime() - started) / 1_000_000 + " ms: "
                + e.getMessage());
            System.exit(1);
        }
    }

    private static final long[] GRID = {12, 10};
    private static final Map<String, String> TWO_PHASE = Map.of("romio_cb_write", "enable", "romio_cb_read",
        "enable", "cb_config_list", "*:*", "cb_nodes", "3", "cb_buffer_size", "64");

    private static void redistribute(final Communicator world, final String file) {
        final int r = world.rank();
        final long dflt = Datatype.DISTRIBUTE_DFLT_DARG;
        final Datatype block = Datatype.darray(6, r, GRID, new org.pario.datatypes.Distribution[] {
            org.pario.datatypes.Distribution.BLOCK, org.pario.datatypes.Distribution.BLOCK}, new long[] {dflt, dflt},
            new long[] {2, 3}, org.pario.datatypes.Order.C, Datatype.INT);
        try (ParallelFile f = ParallelFile.open(world, file, EnumSet.of(Mode.RDWR, Mode.CREATE),
            Hints.of(TWO_PHASE))) {
            f.setView(0, Datatype.INT, block, DataRepresentation.NATIVE);
            final int[] local = new int[(int) (block.size() / 4)];
            final org.pario.datatypes.Cursor c = block.cursor(1);
            int k = 0;
            while (c.next()) {
                for (long b = 0; b < c.length(); b += 4) {
                    local[k++] = (int) ((c.offset() + b) / 4);
                }
            }
            f.writeAll(local, local.length, Datatype.INT);
        }
        final Datatype rows = Datatype.darray(6, r, GRID, new org.pario.datatypes.Distribution[] {
            org.pario.datatypes.Distribution.CYCLIC, org.pario.datatypes.Distribution.NONE}, new long[] {1, dflt},
            new long[] {6, 1}, org.pario.datatypes.Order.C, Datatype.INT);
        try (ParallelFile f = ParallelFile.open(world, file, EnumSet.of(Mode.RDONLY), Hints.of(TWO_PHASE))) {
            f.setView(0, Datatype.INT, rows, DataRepresentation.NATIVE);
            final int[] local = new int[20];
            f.readAll(local, local.length, Datatype.INT);
            for (int j = 0; j < 20; j++) {
                final int expect = (r + j / 10 * 6) * 10 + j % 10;
                if (local[j] != expect) {
                    throw new IllegalStateException("element " + j + " is " + local[j] + ", expected " + expect);
                }
            }
        }
    }

    /**
     * On rank 2: halts this JVM (as a kill would), saying so first, once the collective call it watches is half done
     * and before it ends, so the kill always lands in the middle of the call. Elsewhere: nothing.
     */
    private static org.pario.io.Progress haltMidway(final Communicator world) {
        if (world.rank() != 2) {
            return org.pario.io.Progress.NONE;
        }
        return (done, total) -> {
            if (2 * done >= total && done < total) {
                System.out.println("rank 2 halting");
                System.out.flush();
                Runtime.getRuntime().halt(9);
            }
        };
    }

    /** The array of the checkpoint test: 128 MiB of doubles over the ranks, BLOCK on the first dimension. */
    static DistributedArray<double[]> checkpointArray(final Communicator world) {
        return DistributedArray.of(world, Element.DOUBLE, new long[] {1024, 128, 128}, Dist.block(), Dist.cyclic(),
            Dist.none());
    }

    /** Writes checkpoint A (element i holds i), then starts checkpoint B (i holds -i); rank 2 halts during B. */
    private static void checkpointKilled(final Communicator world, final String file) {
        final DistributedArray<double[]> array = checkpointArray(world);
        final DistributedArray<double[]>.Local part = array.local();
        final double[] v = array.allocate();
        for (int i = 0; i < v.length; i++) {
            v[i] = part.globalLinear(i);
        }
        Checkpoint.at(file).writer().attribute("which", "A").array("a", array, v).write();
        for (int i = 0; i < v.length; i++) {
            v[i] = -v[i];
        }
        world.barrier();
        final org.pario.io.Progress halt = haltMidway(world);
        final CheckpointListener duringWrite = (phase, done, total) -> {
            if (phase == CheckpointListener.Phase.WRITE) {
                halt.update(done, total);
            }
        };
        Checkpoint.at(file).listener(duringWrite).writer().attribute("which", "B").array("a", array, v)
            .write();
    }

    /**
     * Writes a 16 MiB CYCLIC(1) darray of doubles (element i holds i) collectively to an hdfs:// location through
     * every rank as aggregator in 256 KiB rounds; with {@code kill}, rank 2 halts halfway through the write.
     */
    private static void hdfsWrite(final Communicator world, final String location, final boolean kill) {
        final int r = world.rank();
        final int n = world.size();
        final long total = 2L << 20;
        final Datatype cyclic = Datatype.darray(n, r, new long[] {total},
            new org.pario.datatypes.Distribution[] {org.pario.datatypes.Distribution.CYCLIC},
            new long[] {Datatype.DISTRIBUTE_DFLT_DARG}, new long[] {n}, org.pario.datatypes.Order.C, Datatype.DOUBLE);
        final double[] mine = new double[(int) (cyclic.size() / 8)];
        for (int k = 0; k < mine.length; k++) {
            mine[k] = (double) k * n + r;
        }
        try (ParallelFile f = ParallelFile.open(world, location, EnumSet.of(Mode.CREATE, Mode.WRONLY),
            Hints.of(Map.of("cb_config_list", "*:*", "cb_buffer_size", "262144")))) {
            f.setView(0, Datatype.DOUBLE, cyclic, DataRepresentation.NATIVE);
            if (kill) {
                f.setProgress(haltMidway(world));
            }
            f.writeAll(mine, mine.length, Datatype.DOUBLE);
        }
    }

    private static void killed(final Communicator world, final String file) {
        final int r = world.rank();
        final int n = world.size();
        final Datatype cyclic = Datatype.darray(n, r, new long[] {n * 1_000_000L},
            new org.pario.datatypes.Distribution[] {org.pario.datatypes.Distribution.CYCLIC},
            new long[] {Datatype.DISTRIBUTE_DFLT_DARG}, new long[] {n}, org.pario.datatypes.Order.C, Datatype.DOUBLE);
        try (ParallelFile f = ParallelFile.open(world, file, EnumSet.of(Mode.RDWR, Mode.CREATE),
            Hints.of(Map.of("cb_config_list", "*:*", "cb_buffer_size", "65536")))) {
            f.setView(0, Datatype.DOUBLE, cyclic, DataRepresentation.NATIVE);
            final double[] mine = new double[1_000_000];
            f.setProgress(haltMidway(world));
            f.writeAll(mine, mine.length, Datatype.DOUBLE);
        }
    }
}
