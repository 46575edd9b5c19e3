package org.pario.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.io.Hints;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;

/**
 * Independent writes and reads of a {@code double[]} through a view of runs with gaps of the same size, the file in
 * the page cache: what the JVM's way of handing a heap array to the kernel costs. On Java 17 the array is packed into
 * direct memory and written from there; on Java 22+ with native access the runs that go through the page cache move
 * straight between the array and the file. Runs the default hints send through {@code O_DIRECT} (from 1 MiB) are
 * staged through aligned memory on either JVM. Prints, per run length and hint set, the median MiB/s of
 * {@code ROUNDS} writes (not synced) and reads of {@code MIB} MiB.
 *
 * <p>Usage: {@code java [--enable-native-access=ALL-UNNAMED] -cp bench/target/benchmarks.jar
 * org.pario.bench.ArrayFileAccess FILE [MIB [ROUNDS]]}, on Java 17 and on 25 to compare.
 */
public final class ArrayFileAccess {
    private ArrayFileAccess() {
    }

    /**
     * Runs the table.
     *
     * @param args {@code FILE [MIB [ROUNDS]]}
     * @throws Exception if the file cannot be written
     */
    public static void main(final String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: ArrayFileAccess FILE [MIB [ROUNDS]]");
            System.exit(2);
        }
        final Path file = Path.of(args[0]);
        final int mib = args.length > 1 ? Integer.parseInt(args[1]) : 256;
        final int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 7;
        final double[] data = new double[mib << 17];
        for (int i = 0; i < data.length; i++) {
            data[i] = i;
        }
        final double[] back = new double[data.length];
        System.out.printf(Locale.ROOT, "# Java %s, %d MiB per access, median of %d%n", Runtime.version().feature(), mib,
            rounds);
        System.out.printf(Locale.ROOT, "%-10s %-10s %10s %10s%n", "run", "direct", "write", "read");
        for (final int runKiB : new int[] {64, 512, 4096}) {
            for (final String direct : new String[] {"false", "automatic"}) {
                final Map<String, String> hints = Map.of("direct_write", direct, "direct_read", direct);
                final int perRun = runKiB << 7;
                final Datatype view = Datatype.resized(Datatype.contiguous(perRun, Datatype.DOUBLE), 0, 16L * perRun);
                final double[][] times = LocalCluster.call(1, comm -> {
                    final double[] w = new double[rounds];
                    final double[] r = new double[rounds];
                    try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.CREATE, Mode.RDWR),
                        Hints.of(hints))) {
                        f.setView(0, Datatype.DOUBLE, view, DataRepresentation.NATIVE);
                        // one untimed round: the file's pages exist in the page cache, the code is compiled
                        for (int k = -1; k < rounds; k++) {
                            final long t0 = System.nanoTime();
                            f.writeAt(0, data, data.length, Datatype.DOUBLE);
                            final long t1 = System.nanoTime();
                            f.readAt(0, back, back.length, Datatype.DOUBLE);
                            final long t2 = System.nanoTime();
                            if (k >= 0) {
                                w[k] = mib / ((t1 - t0) / 1e9);
                                r[k] = mib / ((t2 - t1) / 1e9);
                            }
                        }
                    }
                    return new double[][] {w, r};
                }).get(0);
                if (back[back.length - 1] != data.length - 1) {
                    throw new IllegalStateException("read back wrong values");
                }
                System.out.printf(Locale.ROOT, "%-10s %-10s %10.0f %10.0f%n", runKiB + "KiB", direct,
                    median(times[0]), median(times[1]));
                Files.deleteIfExists(file);
            }
        }
    }

    private static double median(final double[] v) {
        final double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
