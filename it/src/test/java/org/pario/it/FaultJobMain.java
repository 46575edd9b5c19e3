package org.pario.it;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.comm.Pario;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;
import org.pario.io.Hints;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;
import org.pario.io.array.Checkpoint;
import org.pario.io.array.CheckpointHeader;
import org.pario.io.array.Dist;
import org.pario.io.array.DistributedArray;
import org.pario.io.array.Element;

/**
 * A rank of the fault campaign ({@link FaultCampaign}). Usage: {@code FaultJobMain MODE DIR VICTIM THROW_AT}.
 * Modes: {@code reduce} (allreduces), {@code write} (collective writes, each read back and checked), {@code read}
 * (collective reads of a file written once), {@code checkpoint} (checkpoints of one array, one after another),
 * {@code async-checkpoint} (the same written asynchronously, allreduces of the job going on meanwhile)
 * loop until the campaign injects a fault; in {@code reduce}, rank VICTIM throws at iteration THROW_AT when
 * it is positive. {@code diskfull} writes a small checkpoint and then one too large for the file system;
 * {@code permission} writes a checkpoint that one rank may not write. Prints {@code rank R ready} after the first
 * iteration, {@code rank R begin} before an operation expected to fail, then {@code rank R failed: MESSAGE}
 * (exit 3), {@code rank R wrong: WHAT} (exit 4) or {@code rank R ok}.
 */
public final class FaultJobMain {
    /** Elements of the arrays written and read: 8 MiB of doubles. */
    static final int ELEMENTS = 1 << 20;
    /** Hints of every collective access: every rank aggregates, in 1 MiB rounds, so a fault hits an aggregator. */
    static final Map<String, String> HINTS = Map.of("romio_cb_write", "enable", "romio_cb_read", "enable",
        "cb_config_list", "*:*", "cb_buffer_size", "1048576");

    private FaultJobMain() {
    }

    public static void main(final String[] args) {
        final String mode = args[0];
        final Path dir = Path.of(args[1]);
        final int victim = Integer.parseInt(args[2]);
        final int throwAt = Integer.parseInt(args[3]);
        // until start-up succeeds, the rank its launcher gave it
        int rank = Integer.parseInt(System.getenv().getOrDefault("PARIO_RANK", "-1"));
        try (Communicator world = Pario.init()) {
            rank = world.rank();
            switch (mode) {
                case "reduce" -> reduce(world, victim, throwAt);
                case "stream" -> stream(world);
                case "write" -> write(world, dir.resolve("array").toString(), true);
                case "read" -> write(world, dir.resolve("array").toString(), false);
                case "checkpoint" -> checkpoints(world, dir.resolve("ckpt").toString());
                case "async-checkpoint" -> asyncCheckpoints(world, dir.resolve("ckpt").toString());
                case "diskfull" -> diskFull(world, dir.resolve("ckpt").toString());
                case "permission" -> {
                    say(world, "begin");
                    write(world, dir.resolve("ckpt").toString(), 0, ELEMENTS);
                }
                default -> throw new IllegalArgumentException("unknown mode " + mode);
            }
            say(world, "ok");
        } catch (ParioException e) {
            System.out.println("rank " + rank + " failed: " + e.getMessage());
            System.out.flush();
            Runtime.getRuntime().halt(3);
        } catch (WrongData e) {
            System.out.println("rank " + rank + " wrong: " + e.getMessage());
            System.out.flush();
            Runtime.getRuntime().halt(4);
        }
    }

    /** A check that found data other than what was written. */
    static final class WrongData extends RuntimeException {
        WrongData(final String what) {
            super(what);
        }
    }

    private static void say(final Communicator world, final String what) {
        System.out.println("rank " + world.rank() + " " + what);
        System.out.flush();
    }

    private static void reduce(final Communicator world, final int victim, final int throwAt) {
        final int n = world.size();
        final double[] in = new double[1024];
        final double[] out = new double[1024];
        for (int i = 0; ; i++) {
            if (world.rank() == victim && throwAt > 0 && i == throwAt) {
                say(world, "throwing");
                throw new IllegalStateException("rank " + victim + " gives up on purpose");
            }
            for (int k = 0; k < in.length; k++) {
                in[k] = world.rank() + i + k;
            }
            world.allreduce(in, out, in.length, Datatype.DOUBLE, Op.SUM);
            for (int k = 0; k < out.length; k++) {
                if (out[k] != (double) n * (n - 1) / 2 + (double) n * (i + k)) {
                    throw new WrongData("allreduce " + i + " element " + k + " is " + out[k]);
                }
            }
            if (i == 0) {
                say(world, "ready");
            }
        }
    }

    /**
     * Passes 1 MiB messages around the ring, each receive posted before its message leaves the rank before, so
     * a kill most likely lands while a message is being unpacked into a posted receive.
     */
    private static void stream(final Communicator world) {
        final int n = world.size();
        final int me = world.rank();
        final int left = (me - 1 + n) % n;
        final double[] out = new double[1 << 17];
        final double[] in = new double[1 << 17];
        for (int i = 0; ; i++) {
            final org.pario.comm.Request<org.pario.comm.Status> r = world.irecv(in, in.length, Datatype.DOUBLE, left,
                1);
            for (int k = 0; k < out.length; k += 4096) {
                out[k] = me * 1e9 + i;
            }
            world.send(out, out.length, Datatype.DOUBLE, (me + 1) % n, 1);
            r.join();
            for (int k = 0; k < in.length; k += 4096) {
                if (in[k] != left * 1e9 + i) {
                    throw new WrongData("message " + i + " element " + k + " is " + in[k]);
                }
            }
            if (i == 0) {
                say(world, "ready");
            }
        }
    }

    /** The CYCLIC(1) darray of {@link #ELEMENTS} doubles over the ranks: what {@code write} and {@code read} use. */
    private static Datatype cyclic(final Communicator world) {
        return Datatype.darray(world.size(), world.rank(), new long[] {ELEMENTS},
            new org.pario.datatypes.Distribution[] {org.pario.datatypes.Distribution.CYCLIC},
            new long[] {Datatype.DISTRIBUTE_DFLT_DARG}, new long[] {world.size()}, Order.C, Datatype.DOUBLE);
    }

    /**
     * Writes iteration-stamped values collectively and reads them back, again and again ({@code rewrite}), or
     * writes once and then only reads.
     */
    private static void write(final Communicator world, final String file, final boolean rewrite) {
        final int n = world.size();
        final int r = world.rank();
        final Datatype view = cyclic(world);
        final double[] mine = new double[(int) (view.size() / 8)];
        final double[] back = new double[mine.length];
        try (ParallelFile f = ParallelFile.open(world, file, EnumSet.of(Mode.CREATE, Mode.RDWR), Hints.of(HINTS))) {
            f.setView(0, Datatype.DOUBLE, view, DataRepresentation.NATIVE);
            for (int i = 0; ; i++) {
                final int stamp = rewrite ? i : 0;
                if (rewrite || i == 0) {
                    for (int k = 0; k < mine.length; k++) {
                        mine[k] = stamp * 1e7 + (double) k * n + r;
                    }
                    f.writeAtAll(0, mine, mine.length, Datatype.DOUBLE);
                }
                f.readAtAll(0, back, back.length, Datatype.DOUBLE);
                for (int k = 0; k < back.length; k++) {
                    if (back[k] != stamp * 1e7 + (double) k * n + r) {
                        throw new WrongData("iteration " + i + ": element " + ((long) k * n + r) + " reads "
                            + back[k]);
                    }
                }
                if (i == 0) {
                    say(world, "ready");
                }
            }
        }
    }

    /** The checkpointed array: {@code elements} doubles, BLOCK over the ranks. */
    static DistributedArray<double[]> array(final Communicator world, final long elements) {
        return DistributedArray.of(world, Element.DOUBLE, new long[] {elements}, Dist.block());
    }

    /**
     * Writes a checkpoint of one array "a" whose element i holds {@code iteration * 1e7 + i}: a restored checkpoint
     * tells its iteration.
     */
    private static void write(final Communicator world, final String file, final int iteration, final long elements) {
        final DistributedArray<double[]> a = array(world, elements);
        final DistributedArray<double[]>.Local part = a.local();
        final double[] v = a.allocate();
        for (int k = 0; k < v.length; k++) {
            v[k] = iteration * 1e7 + part.globalLinear(k);
        }
        Checkpoint.at(file).hints(Hints.of(HINTS)).writer().attribute("iteration", iteration).array("a", a, v)
            .write();
    }

    /**
     * Back-to-back asynchronous checkpoints, the application's allreduces going on while each is written; a
     * checkpoint's failure surfaces where the job waits for it.
     */
    private static void asyncCheckpoints(final Communicator world, final String file) {
        final DistributedArray<double[]> a = array(world, ELEMENTS);
        final DistributedArray<double[]>.Local part = a.local();
        final double[] v = a.allocate();
        for (int i = 0; ; i++) {
            for (int k = 0; k < v.length; k++) {
                v[k] = i * 1e7 + part.globalLinear(k);
            }
            final CompletableFuture<CheckpointHeader> saved = Checkpoint.at(file).hints(Hints.of(HINTS)).writer()
                .attribute("iteration", i).array("a", a, v).writeAsync();
            java.util.Arrays.fill(v, -1); // the checkpoint holds the values of the call
            for (int k = 0; k < 20; k++) {
                world.allreduce((long) k, org.pario.comm.Op.SUM);
            }
            try {
                saved.join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof ParioException p ? p : e;
            }
            if (i == 0) {
                say(world, "ready");
            }
        }
    }

    private static void checkpoints(final Communicator world, final String file) {
        for (int i = 0; ; i++) {
            write(world, file, i, ELEMENTS);
            if (i == 0) {
                say(world, "ready");
            }
        }
    }

    /** A 1 MiB checkpoint that fits, then a 16 MiB one that does not. */
    private static void diskFull(final Communicator world, final String file) {
        write(world, file, 0, 1 << 17);
        say(world, "begin");
        write(world, file, 1, 2L << 20);
    }
}
