package org.pario.it;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;

import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.comm.Pario;
import org.pario.examples.HeatDiffusion;
import org.pario.io.Hints;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;
import org.pario.io.array.Checkpoint;
import org.pario.io.array.Dist;
import org.pario.io.array.DistributedArray;
import org.pario.io.array.Element;

/**
 * A rank of a job that Slurm starts ({@link SlurmTest}). Usage: {@code SlurmJobMain MODE ARGS...}:
 * {@code write FILE} (a 3-D array, BLOCK,CYCLIC(2),BLOCK, element i holding i), {@code restore FILE} (the same
 * array as CYCLIC,BLOCK,NONE, every value checked), {@code heat DIR STEPS EVERY [RESTART]} (the heat-diffusion
 * example), {@code compare A B} (one rank: two checkpoints' fields bitwise equal), {@code loop} (allreduces until
 * a rank dies), {@code hosts FILE} (prints its host and Slurm's node name and the aggregators {@code cb_config_list
 * *:1} gives, then writes and restores the array). Prints {@code rank R of N ok} at the end, {@code rank R failed: MESSAGE} (exit 3) on an error.
 */
public final class SlurmJobMain {
    static final long[] SHAPE = {40, 30, 20};

    private SlurmJobMain() {
    }

    public static void main(final String[] args) throws UnknownHostException {
        int rank = -1;
        try (Communicator world = Pario.init()) {
            rank = world.rank();
            switch (args[0]) {
                case "write" -> write(world, Path.of(args[1]));
                case "restore" -> restore(world, Path.of(args[1]));
                case "hosts" -> {
                    System.out.println("rank " + rank + " host " + InetAddress.getLocalHost().getHostName()
                        + " slurm node " + System.getenv("SLURMD_NODENAME"));
                    // one aggregator per host: as many as the hosts the ranks report
                    try (ParallelFile f = ParallelFile.open(world, args[1] + ".raw", EnumSet.of(Mode.CREATE,
                        Mode.WRONLY), Hints.of(Map.of("cb_config_list", "*:1")))) {
                        System.out.println("rank " + rank + " cb_nodes " + f.hints().asMap().get("cb_nodes"));
                    }
                    write(world, Path.of(args[1]));
                    restore(world, Path.of(args[1]));
                }
                case "heat" -> {
                    final Path last = HeatDiffusion.run(world, 90, 70, Integer.parseInt(args[2]),
                        Integer.parseInt(args[3]), Path.of(args[1]), args.length > 4 ? Path.of(args[4]) : null);
                    if (rank == 0) {
                        System.out.println("last checkpoint: " + last);
                    }
                }
                case "compare" -> {
                    final double[] a = Checkpoint.at(Path.of(args[1])).read("temperature", Element.DOUBLE);
                    final double[] b = Checkpoint.at(Path.of(args[2])).read("temperature", Element.DOUBLE);
                    for (int i = 0; i < a.length; i++) {
                        if (Double.doubleToRawLongBits(a[i]) != Double.doubleToRawLongBits(b[i])) {
                            throw new IllegalStateException("the fields differ at element " + i);
                        }
                    }
                    System.out.println("identical: " + a.length + " values, " + Arrays.hashCode(a));
                }
                case "loop" -> {
                    System.out.println("rank " + rank + " pid " + ProcessHandle.current().pid());
                    System.out.flush();
                    for (long i = 0; ; i++) {
                        world.allreduce(i, Op.SUM);
                    }
                }
                default -> throw new IllegalArgumentException("unknown mode " + args[0]);
            }
            System.out.println("rank " + rank + " of " + world.size() + " ok");
        } catch (ParioException | IllegalStateException e) {
            System.out.println("rank " + rank + " failed: " + e.getMessage());
            System.out.flush();
            Runtime.getRuntime().halt(3);
        }
    }

    /** Writes the array BLOCK,CYCLIC(2),BLOCK, element i holding i. */
    private static void write(final Communicator world, final Path file) {
        final DistributedArray<double[]> a = DistributedArray.of(world, Element.DOUBLE, SHAPE, Dist.block(),
            Dist.cyclic(2), Dist.block());
        final double[] v = a.allocate();
        for (int i = 0; i < v.length; i++) {
            v[i] = a.local().globalLinear(i);
        }
        Checkpoint.at(file).write("a", a, v);
    }

    /** Restores the array as CYCLIC,BLOCK,NONE and checks every value on every rank. */
    private static void restore(final Communicator world, final Path file) {
        final DistributedArray<double[]> a = DistributedArray.of(world, Element.DOUBLE, SHAPE, Dist.cyclic(),
            Dist.block(), Dist.none());
        final double[] v = Checkpoint.at(file).restore("a", a);
        long wrong = 0;
        for (int i = 0; i < v.length; i++) {
            wrong += v[i] == a.local().globalLinear(i) ? 0 : 1;
        }
        if (world.allreduce(wrong, Op.SUM) != 0) {
            throw new IllegalStateException("restored values differ from the written ones");
        }
    }
}
