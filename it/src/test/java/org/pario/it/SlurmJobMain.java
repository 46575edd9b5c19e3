package org.pario.it;

import java.nio.file.Path;
import java.util.Arrays;

import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.comm.Pario;
import org.pario.examples.HeatDiffusion;
import org.pario.io.array.Checkpoint;
import org.pario.io.array.Dist;
import org.pario.io.array.DistributedArray;
import org.pario.io.array.Element;

/**
 * A rank of a job that Slurm starts ({@link SlurmTest}). Usage: {@code SlurmJobMain MODE ARGS...}:
 * {@code write FILE} (a 3-D array, BLOCK,CYCLIC(2),BLOCK, element i holding i), {@code restore FILE} (the same
 * array as CYCLIC,BLOCK,NONE, every value checked), {@code heat DIR STEPS EVERY [RESTART]} (the heat-diffusion
 * example), {@code compare A B} (one rank: two checkpoints' fields bitwise equal), {@code loop} (allreduces until
 * a rank dies). Prints {@code rank R of N ok} at the end, {@code rank R failed: MESSAGE} (exit 3) on an error.
 */
public final class SlurmJobMain {
    static final long[] SHAPE = {40, 30, 20};

    private SlurmJobMain() {
    }

    public static void main(final String[] args) {
        int rank = -1;
        try (Communicator world = Pario.init()) {
            rank = world.rank();
            switch (args[0]) {
                case "write" -> {
                    final DistributedArray<double[]> a = DistributedArray.of(world, Element.DOUBLE, SHAPE,
                        Dist.block(), Dist.cyclic(2), Dist.block());
                    final double[] v = a.allocate();
                    for (int i = 0; i < v.length; i++) {
                        v[i] = a.local().globalLinear(i);
                    }
                    Checkpoint.at(Path.of(args[1])).write("a", a, v);
                }
                case "restore" -> {
                    final DistributedArray<double[]> a = DistributedArray.of(world, Element.DOUBLE, SHAPE,
                        Dist.cyclic(), Dist.block(), Dist.none());
                    final double[] v = Checkpoint.at(Path.of(args[1])).restore("a", a);
                    long wrong = 0;
                    for (int i = 0; i < v.length; i++) {
                        wrong += v[i] == a.local().globalLinear(i) ? 0 : 1;
                    }
                    if (world.allreduce(wrong, Op.SUM) != 0) {
                        throw new IllegalStateException("restored values differ from the written ones");
                    }
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
}
