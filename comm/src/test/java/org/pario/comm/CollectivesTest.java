package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Timeout;
import org.pario.datatypes.Datatype;
import org.pario.comm.settings.CollectiveTuning;
import org.pario.comm.settings.CommSettings;

/**
 * Every collective on 1 to 7 ranks and several sizes (0 included), against a naive reference computation, over
 * every transport: one test body, in-JVM and TCP.
 */
@Timeout(60)
class CollectivesTest {
    static java.util.stream.Stream<Arguments> shapes() {
        return java.util.stream.Stream.of(Transport.values()).flatMap(t -> java.util.stream.IntStream.rangeClosed(1, 7)
            .boxed().flatMap(n -> java.util.stream.Stream.of(0, 1, 5, 1000).map(count -> Arguments.of(t, n, count))));
    }

    static java.util.stream.Stream<Arguments> transportsAndRanks() {
        return java.util.stream.Stream.of(Transport.values())
            .flatMap(t -> java.util.stream.IntStream.rangeClosed(1, 7).mapToObj(n -> Arguments.of(t, n)));
    }

    /** Element k of rank r's data. */
    static double value(final int rank, final int k) {
        return rank * 1000.0 + k + 0.25;
    }

    static double[] data(final int rank, final int count) {
        final double[] a = new double[count];
        for (int k = 0; k < count; k++) {
            a[k] = value(rank, k);
        }
        return a;
    }

    static java.util.stream.Stream<Arguments> barrierShapes() {
        // powers of two and not; more ranks than the other tests in one JVM, where threads are cheap
        return java.util.stream.Stream.of(Transport.values()).flatMap(t -> java.util.stream.IntStream.of(1, 2, 3, 4, 5,
            8, 9, 11).filter(n -> t == Transport.IN_JVM || n <= 5).mapToObj(n -> Arguments.of(t, n)));
    }

    /**
     * No rank leaves a barrier before every rank has entered it: in each round one rank holds back until all the
     * others have arrived, then checks for a while that none of them has left, then enters; after it, every rank
     * sees the round's arrivals complete.
     */
    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("barrierShapes")
    void noRankLeavesABarrierBeforeEveryRankEntered(final Transport transport, final int n) {
        final int rounds = 2 * n + 2;
        final AtomicIntegerArray arrived = new AtomicIntegerArray(rounds);
        final AtomicIntegerArray left = new AtomicIntegerArray(rounds);
        transport.run(n, world -> {
            final int me = world.rank();
            for (int round = 0; round < rounds; round++) {
                if (me == round % n) {
                    final long deadline = System.nanoTime() + 30_000_000_000L;
                    while (arrived.get(round) < n - 1 && System.nanoTime() < deadline) {
                        Thread.onSpinWait();
                    }
                    // the others are inside the barrier now; a broken one would let them out within this window
                    final long probe = System.nanoTime() + 20_000_000L;
                    while (System.nanoTime() < probe) {
                        assertEquals(0, left.get(round), "a rank left round " + round + " before rank " + me + " came");
                        Thread.yield();
                    }
                }
                arrived.incrementAndGet(round);
                world.barrier();
                assertEquals(n, arrived.get(round), "rank " + me + " left round " + round + " early");
                left.incrementAndGet(round);
            }
        });
    }

    @ParameterizedTest(name = "{0}, {1} ranks, {2} elements")
    @MethodSource("shapes")
    void bcastGatherScatterAllgatherAlltoall(final Transport transport, final int n, final int count) {
        transport.run(n, world -> {
            final int me = world.rank();
            for (int root = 0; root < n; root++) {
                final double[] b = me == root ? data(root, count) : new double[count];
                world.bcast(b, count, Datatype.DOUBLE, root);
                assertArrayEquals(data(root, count), b);

                final double[] gathered = new double[n * count];
                world.gather(data(me, count), count, Datatype.DOUBLE, gathered, count, Datatype.DOUBLE, root);
                if (me == root) {
                    for (int r = 0; r < n; r++) {
                        assertArrayEquals(data(r, count), Arrays.copyOfRange(gathered, r * count, (r + 1) * count));
                    }
                }
                final double[] all = new double[n * count];
                for (int r = 0; r < n; r++) {
                    System.arraycopy(data(r, count), 0, all, r * count, count);
                }
                final double[] part = new double[count];
                world.scatter(me == root ? all : null, count, Datatype.DOUBLE, part, count, Datatype.DOUBLE, root);
                assertArrayEquals(data(me, count), part);
            }
            final double[] everyone = new double[n * count];
            world.allgather(data(me, count), count, Datatype.DOUBLE, everyone, count, Datatype.DOUBLE);
            for (int r = 0; r < n; r++) {
                assertArrayEquals(data(r, count), Arrays.copyOfRange(everyone, r * count, (r + 1) * count));
            }
            // alltoall: block j of rank i holds value(i, j * count + k)
            final double[] send = data(me, n * count);
            final double[] recv = new double[n * count];
            world.alltoall(send, count, Datatype.DOUBLE, recv, count, Datatype.DOUBLE);
            for (int r = 0; r < n; r++) {
                for (int k = 0; k < count; k++) {
                    assertEquals(value(r, me * count + k), recv[r * count + k]);
                }
            }
            world.barrier();
        });
    }

    @ParameterizedTest(name = "{0}, {1} ranks, {2} elements")
    @MethodSource("shapes")
    void reductionsScansAndReduceScatter(final Transport transport, final int n, final int count) {
        transport.run(n, world -> {
            final int me = world.rank();
            final long[] mine = new long[count];
            for (int k = 0; k < count; k++) {
                mine[k] = (me + 1L) * (k + 1);
            }
            for (int root = 0; root < n; root++) {
                final long[] sum = new long[count];
                world.reduce(mine, sum, count, Datatype.LONG, Op.SUM, root);
                if (me == root) {
                    for (int k = 0; k < count; k++) {
                        assertEquals((long) n * (n + 1) / 2 * (k + 1), sum[k]);
                    }
                }
            }
            final long[] max = new long[count];
            world.allreduce(mine, max, count, Datatype.LONG, Op.MAX);
            for (int k = 0; k < count; k++) {
                assertEquals((long) n * (k + 1), max[k]);
            }
            final long[] inPlace = mine.clone();
            world.allreduce(Communicator.IN_PLACE, inPlace, count, Datatype.LONG, Op.MIN);
            for (int k = 0; k < count; k++) {
                assertEquals(k + 1, inPlace[k]);
            }
            final long[] prefix = new long[count];
            world.scan(mine, prefix, count, Datatype.LONG, Op.SUM);
            final long[] exclusive = new long[count];
            Arrays.fill(exclusive, -7);
            world.exscan(mine, exclusive, count, Datatype.LONG, Op.SUM);
            for (int k = 0; k < count; k++) {
                assertEquals((long) (me + 1) * (me + 2) / 2 * (k + 1), prefix[k]);
                assertEquals(me == 0 ? -7 : (long) me * (me + 1) / 2 * (k + 1), exclusive[k]);
            }
            // reduce_scatter_block: rank r gets elements [r * count, (r + 1) * count) of the sum
            final long[] wide = new long[n * count];
            for (int k = 0; k < wide.length; k++) {
                wide[k] = me + k;
            }
            final long[] block = new long[count];
            world.reduceScatterBlock(wide, block, count, Datatype.LONG, Op.SUM);
            for (int k = 0; k < count; k++) {
                assertEquals((long) n * (n - 1) / 2 + (long) n * (me * count + k), block[k]);
            }
        });
    }

    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("transportsAndRanks")
    void allreduceOfDoublesIsBitwiseIdenticalEverywhere(final Transport transport, final int n) {
        final java.util.List<double[]> results = transport.call(n, world -> {
            final double[] x = new double[257];
            for (int k = 0; k < x.length; k++) {
                x[k] = Math.sin(world.rank() * 7919.0 + k) * 1e10 + 1e-7 * k;
            }
            final double[] sum = new double[x.length];
            world.allreduce(x, sum, x.length, Datatype.DOUBLE, Op.SUM);
            return sum;
        });
        for (int r = 1; r < n; r++) {
            assertArrayEquals(results.get(0), results.get(r));
        }
    }

    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("transportsAndRanks")
    void largeAllreducesTakeRabenseifnerAndStayExactAndIdentical(final Transport transport, final int n) {
        // 70,000 doubles = 560 KB, far above the Rabenseifner threshold; integers keep sums exact
        final int count = 70_000;
        final java.util.List<double[]> results = transport.call(n, world -> {
            final double[] x = new double[count];
            for (int k = 0; k < count; k++) {
                x[k] = world.rank() * 3 + k % 1000;
            }
            final double[] sum = new double[count];
            world.allreduce(x, sum, count, Datatype.DOUBLE, Op.SUM);
            for (int k = 0; k < count; k++) {
                assertEquals(3.0 * n * (n - 1) / 2 + (double) n * (k % 1000), sum[k], "element " + k);
            }
            final double[] noisy = new double[count];
            for (int k = 0; k < count; k++) {
                noisy[k] = Math.sin(world.rank() * 31.0 + k) * 1e12 + 1e-9 * k;
            }
            world.allreduce(Communicator.IN_PLACE, noisy, count, Datatype.DOUBLE, Op.SUM);
            return noisy;
        });
        for (int r = 1; r < n; r++) {
            assertArrayEquals(results.get(0), results.get(r), "rank " + r + " has the same bits as rank 0");
        }
    }

    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("largeReductionRanks")
    void largeAllreducesCombineEveryPieceAndChunk(final Transport transport, final int n) {
        // an odd count above 2 MiB: at 2 ranks each half comes in several 512 KiB pieces, each combined in chunks
        // with a short last one, and the result is unpacked chunk by chunk; in place and from a separate buffer
        final int count = 300_001;
        transport.run(n, world -> {
            final long[] mine = new long[count];
            for (int k = 0; k < count; k++) {
                mine[k] = (world.rank() + 1L) * (k + 1) + (k % 7 == 0 ? -3 * k : 0);
            }
            final long[] expected = new long[count];
            for (int k = 0; k < count; k++) {
                for (int r = 0; r < n; r++) {
                    expected[k] += (r + 1L) * (k + 1) + (k % 7 == 0 ? -3 * k : 0);
                }
            }
            final long[] sum = new long[count];
            world.allreduce(mine, sum, count, Datatype.LONG, Op.SUM);
            assertArrayEquals(expected, sum);
            final long[] untouched = mine.clone();
            world.allreduce(Communicator.IN_PLACE, mine, count, Datatype.LONG, Op.SUM);
            assertArrayEquals(expected, mine);
            final long[] max = new long[count];
            world.allreduce(untouched, max, count, Datatype.LONG, Op.MAX);
            for (int k = 0; k < count; k++) {
                // the last rank's value is the largest: its factor on the positive k + 1 is n
                assertEquals(n * (k + 1L) + (k % 7 == 0 ? -3 * k : 0), max[k], "element " + k);
            }
        });
    }

    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("largeReductionRanks")
    void largeAllreducesOfEveryArrayKindCombineInTheArrays(final Transport transport, final int n) {
        // above the Rabenseifner threshold in each kind of array the reductions combine in, with an odd count so that
        // blocks differ in length; every rank's result checked against the values computed directly
        final int count = 150_001;
        final java.util.List<float[]> floats = transport.call(n, world -> {
            final int me = world.rank();
            final int[] ints = new int[count];
            Arrays.setAll(ints, k -> (k * 31 + me * 7) % 1001 - 500);
            final int[] min = new int[count];
            world.allreduce(ints, min, count, Datatype.INT, Op.MIN);
            final long[] longs = new long[count];
            Arrays.setAll(longs, k -> (long) k << (me % 32) ^ 0x5555_5555_5555_5555L * me);
            final long[] xor = longs.clone();
            world.allreduce(Communicator.IN_PLACE, xor, count, Datatype.LONG, Op.BXOR);
            final float[] mine = new float[count];
            for (int k = 0; k < count; k++) {
                mine[k] = (float) Math.sin(k * 0.001 + me);
            }
            final float[] prod = new float[count];
            world.allreduce(mine, prod, count, Datatype.FLOAT, Op.PROD);
            final double[] doubles = new double[count];
            Arrays.setAll(doubles, k -> k % 5 == me % 5 ? -0.0 : k * 0.5 - me);
            final double[] max = new double[count];
            world.allreduce(doubles, max, count, Datatype.DOUBLE, Op.MAX);
            for (int k = 0; k < count; k++) {
                int expectedMin = Integer.MAX_VALUE;
                long expectedXor = 0;
                double expectedMax = Double.NEGATIVE_INFINITY;
                for (int r = 0; r < n; r++) {
                    expectedMin = Math.min(expectedMin, (k * 31 + r * 7) % 1001 - 500);
                    expectedXor ^= (long) k << (r % 32) ^ 0x5555_5555_5555_5555L * r;
                    expectedMax = Math.max(expectedMax, k % 5 == r % 5 ? -0.0 : k * 0.5 - r);
                }
                assertEquals(expectedMin, min[k], "int MIN at " + k);
                assertEquals(expectedXor, xor[k], "long BXOR in place at " + k);
                assertEquals(expectedMax, max[k], "double MAX at " + k);
            }
            return prod;
        });
        for (int r = 1; r < n; r++) {
            assertArrayEquals(floats.get(0), floats.get(r), "rank " + r + " has the same float bits as rank 0");
        }
        final float[] prod = floats.get(0);
        for (int k = 0; k < count; k += 101) {
            float expected = 1;
            for (int r = 0; r < n; r++) {
                expected *= (float) Math.sin(k * 0.001 + r);
            }
            assertEquals(expected, prod[k], Math.abs(expected) * 1e-5f + 1e-30f, "float PROD at " + k);
        }
    }

    static java.util.stream.Stream<Arguments> largeReductionRanks() {
        return transportsWith(1, 2, 4, 8);
    }

    /** Every transport with each of the given rank counts. */
    static java.util.stream.Stream<Arguments> transportsWith(final Integer... ranks) {
        return java.util.stream.Stream.of(Transport.values())
            .flatMap(t -> java.util.stream.Stream.of(ranks).map(n -> Arguments.of(t, n)));
    }

    static java.util.stream.Stream<Arguments> largeShapes() {
        return transportsWith(2, 3, 5);
    }

    /** Several MiB per rank through every data-moving collective. */
    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("largeShapes")
    void severalMebibytesPerRankThroughEveryCollective(final Transport transport, final int n) {
        final int count = 3 << 17;
        transport.run(n, world -> {
            final int me = world.rank();
            final double[] mine = data(me, count);
            final double[] b = me == 1 ? mine.clone() : new double[count];
            world.bcast(b, count, Datatype.DOUBLE, 1);
            assertEquals(value(1, count - 1), b[count - 1]);
            final double[] all = new double[n * count];
            world.allgather(mine, count, Datatype.DOUBLE, all, count, Datatype.DOUBLE);
            for (int r = 0; r < n; r++) {
                assertEquals(value(r, 12345), all[r * count + 12345]);
            }
            final double[] gathered = new double[n * count];
            world.gather(mine, count, Datatype.DOUBLE, gathered, count, Datatype.DOUBLE, n - 1);
            if (me == n - 1) {
                assertEquals(value(0, count - 1), gathered[count - 1]);
            }
            final double[] part = new double[count];
            world.scatter(all, count, Datatype.DOUBLE, part, count, Datatype.DOUBLE, 0);
            assertArrayEquals(mine, part);
            final int per = count / n;
            final double[] send = data(me, per * n);
            final double[] recv = new double[per * n];
            world.alltoall(send, per, Datatype.DOUBLE, recv, per, Datatype.DOUBLE);
            for (int r = 0; r < n; r++) {
                assertEquals(value(r, me * per + per - 1), recv[r * per + per - 1]);
            }
            final double[] max = new double[count];
            world.allreduce(mine, max, count, Datatype.DOUBLE, Op.MAX);
            assertEquals(value(n - 1, 777), max[777]);
        });
    }

    static java.util.stream.IntStream rankCounts() {
        return java.util.stream.IntStream.rangeClosed(1, 7);
    }

    /**
     * IN_PLACE wherever MPI allows it, each against the same call without it: gather and gatherv (the root's block
     * already in its receive buffer), scatter and scatterv (the root's block left in its send buffer), allgather and
     * allgatherv (every rank's block in place), alltoall, reduce at the root, scan, exscan (rank 0's result
     * undefined, so not compared) and reduce_scatter_block. The send arguments an in-place rank passes are ignored,
     * so they are nonsense here (null types, counts of -1 where MPI ignores them).
     */
    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("transportsAndRanks")
    void inPlaceWhereverMpiAllowsIt(final Transport transport, final int n) {
        final int k = 3;
        transport.run(n, world -> {
            final int me = world.rank();
            final int root = n / 2;
            final long[] mine = new long[k];
            Arrays.setAll(mine, i -> me * 100L + i);
            final long[] counts = new long[n];
            final long[] displs = new long[n];
            long total = 0;
            for (int r = 0; r < n; r++) {
                counts[r] = r % 3;
                displs[r] = total + 1;
                total += counts[r] + 1;
            }
            // gather
            final long[] gathered = new long[k * n];
            world.gather(mine, k, Datatype.LONG, gathered, k, Datatype.LONG, root);
            final long[] gatheredInPlace = new long[k * n];
            if (me == root) {
                System.arraycopy(mine, 0, gatheredInPlace, k * root, k);
                world.gather(Communicator.IN_PLACE, -1, null, gatheredInPlace, k, Datatype.LONG, root);
                assertArrayEquals(gathered, gatheredInPlace, "gather");
            } else {
                world.gather(mine, k, Datatype.LONG, null, 0, null, root);
            }
            // gatherv
            final long[] gv = new long[(int) total];
            world.gatherv(mine, counts[me], Datatype.LONG, gv, counts, displs, Datatype.LONG, root);
            if (me == root) {
                final long[] gvInPlace = new long[(int) total];
                System.arraycopy(mine, 0, gvInPlace, (int) displs[root], (int) counts[root]);
                world.gatherv(Communicator.IN_PLACE, -1, null, gvInPlace, counts, displs, Datatype.LONG, root);
                assertArrayEquals(gv, gvInPlace, "gatherv");
            } else {
                world.gatherv(mine, counts[me], Datatype.LONG, null, null, null, null, root);
            }
            // scatter: the root sends what it gathered, and keeps its own block where it is
            final long[] part = new long[k];
            world.scatter(gathered, k, Datatype.LONG, part, k, Datatype.LONG, root);
            assertArrayEquals(mine, part, "scatter");
            final long[] part2 = new long[k];
            if (me == root) {
                world.scatter(gathered, k, Datatype.LONG, Communicator.IN_PLACE, -1, null, root);
            } else {
                world.scatter(null, 0, null, part2, k, Datatype.LONG, root);
                assertArrayEquals(mine, part2, "scatter in place, at a leaf");
            }
            // scatterv
            final long[] vpart = new long[(int) counts[me]];
            if (me == root) {
                world.scatterv(gv, counts, displs, Datatype.LONG, Communicator.IN_PLACE, -1, null, root);
            } else {
                world.scatterv(null, null, null, null, vpart, counts[me], Datatype.LONG, root);
                assertArrayEquals(Arrays.copyOf(mine, (int) counts[me]), vpart, "scatterv in place, at a leaf");
            }
            // allgather and allgatherv
            final long[] all = new long[k * n];
            world.allgather(mine, k, Datatype.LONG, all, k, Datatype.LONG);
            final long[] allInPlace = new long[k * n];
            System.arraycopy(mine, 0, allInPlace, k * me, k);
            world.allgather(Communicator.IN_PLACE, -1, null, allInPlace, k, Datatype.LONG);
            assertArrayEquals(all, allInPlace, "allgather");
            final long[] allv = new long[(int) total];
            world.allgatherv(mine, counts[me], Datatype.LONG, allv, counts, displs, Datatype.LONG);
            final long[] allvInPlace = new long[(int) total];
            System.arraycopy(mine, 0, allvInPlace, (int) displs[me], (int) counts[me]);
            world.allgatherv(Communicator.IN_PLACE, -1, null, allvInPlace, counts, displs, Datatype.LONG);
            assertArrayEquals(allv, allvInPlace, "allgatherv");
            // alltoall: block j of rank i is i * 100 + j
            final long[] blocks = new long[n];
            Arrays.setAll(blocks, j -> me * 100L + j);
            final long[] swapped = new long[n];
            world.alltoall(blocks, 1, Datatype.LONG, swapped, 1, Datatype.LONG);
            final long[] swappedInPlace = blocks.clone();
            world.alltoall(Communicator.IN_PLACE, -1, null, swappedInPlace, 1, Datatype.LONG);
            assertArrayEquals(swapped, swappedInPlace, "alltoall");
            // reduce at the root, scan, exscan
            final long[] sum = new long[k];
            world.reduce(mine, sum, k, Datatype.LONG, Op.SUM, root);
            final long[] sumInPlace = mine.clone();
            world.reduce(me == root ? Communicator.IN_PLACE : mine, me == root ? sumInPlace : null, k, Datatype.LONG,
                Op.SUM, root);
            if (me == root) {
                assertArrayEquals(sum, sumInPlace, "reduce");
            }
            final long[] scanned = new long[k];
            world.scan(mine, scanned, k, Datatype.LONG, Op.SUM);
            final long[] scannedInPlace = mine.clone();
            world.scan(Communicator.IN_PLACE, scannedInPlace, k, Datatype.LONG, Op.SUM);
            assertArrayEquals(scanned, scannedInPlace, "scan");
            final long[] ex = new long[k];
            world.exscan(mine, ex, k, Datatype.LONG, Op.SUM);
            final long[] exInPlace = mine.clone();
            world.exscan(Communicator.IN_PLACE, exInPlace, k, Datatype.LONG, Op.SUM);
            if (me > 0) {
                assertArrayEquals(ex, exInPlace, "exscan");
            }
            // reduce_scatter_block: block j of rank i is i + j, k longs each
            final long[] operand = new long[k * n];
            Arrays.setAll(operand, i -> me + i / k);
            final long[] block = new long[k];
            world.reduceScatterBlock(operand, block, k, Datatype.LONG, Op.SUM);
            final long[] blockInPlace = operand.clone();
            world.reduceScatterBlock(Communicator.IN_PLACE, blockInPlace, k, Datatype.LONG, Op.SUM);
            assertArrayEquals(block, Arrays.copyOf(blockInPlace, k), "reduce_scatter_block");
            final long expected = (long) n * (n - 1) / 2 + (long) n * me;
            assertEquals(expected, block[0], "reduce_scatter_block value");
        });
    }

    /**
     * Reductions whose operands pass the slice size (made 1000 bytes here, 1 GiB by default, where one Java array
     * would no longer hold them) are reduced slice by slice with the same results as whole: allreduce (in place and
     * not, and a Rabenseifner-sized operand in 1 MiB slices), reduce at the last rank, scan and exscan, a
     * non-commutative user operation, and reduce_scatter (in place and not) with uneven and empty blocks cut across
     * slices, all against the values computed directly.
     */
    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("transportsAndRanks")
    void reductionsLargerThanASliceGoSliceBySlice(final Transport transport, final int n) {
        final int count = 12_345;
        final Op leftmost = Op.create("LEFTMOST", false,
            (in, inout, k, type) -> inout.put(0, in, 0, (int) (k * 8)));
        final CommSettings settings = CommSettings.fromSystemProperties();
        transport.run(n, settings.with("reductionSliceBytes", 1000), world -> {
                final int me = world.rank();
                final int last = n - 1;
                final long[] mine = new long[count];
                Arrays.setAll(mine, k -> me * 1_000_000L + k);
                final long[] sum = new long[count];
                world.allreduce(mine, sum, count, Datatype.LONG, Op.SUM);
                final long[] inPlace = mine.clone();
                world.allreduce(Communicator.IN_PLACE, inPlace, count, Datatype.LONG, Op.SUM);
                final long[] max = new long[count];
                world.reduce(mine, me == last ? max : null, count, Datatype.LONG, Op.MAX, last);
                final long[] scanned = new long[count];
                world.scan(mine, scanned, count, Datatype.LONG, Op.SUM);
                final long[] ex = new long[count];
                world.exscan(mine, ex, count, Datatype.LONG, Op.SUM);
                final long[] first = new long[count];
                world.allreduce(mine, first, count, Datatype.LONG, leftmost);
                // reduce_scatter with uneven blocks (some empty) cut across slices: block i has (i % 3) * 100 + 7
                // elements, or none for i % 4 == 1
                final long[] blockCounts = new long[n];
                long total = 0;
                for (int r = 0; r < n; r++) {
                    blockCounts[r] = r % 4 == 1 ? 0 : (r % 3) * 100 + 7;
                    total += blockCounts[r];
                }
                final long[] operand = new long[(int) total];
                Arrays.setAll(operand, k -> me * 1_000_000L + k);
                final long[] myBlock = new long[(int) blockCounts[me]];
                world.reduceScatter(operand, myBlock, blockCounts, Datatype.LONG, Op.SUM);
                long myStart = 0;
                for (int r = 0; r < me; r++) {
                    myStart += blockCounts[r];
                }
                final long[] inPlaceBlock = operand.clone();
                world.reduceScatter(Communicator.IN_PLACE, inPlaceBlock, blockCounts, Datatype.LONG, Op.SUM);
                for (int k = 0; k < myBlock.length; k++) {
                    assertEquals((long) n * (n - 1) / 2 * 1_000_000L + (long) n * (myStart + k), myBlock[k],
                        "reduce_scatter at " + k);
                    assertEquals(myBlock[k], inPlaceBlock[k], "reduce_scatter in place at " + k);
                }
                final long ranks = (long) n * (n - 1) / 2;
                final long below = (long) me * (me - 1) / 2;
                for (int k = 0; k < count; k++) {
                    assertEquals(ranks * 1_000_000L + (long) n * k, sum[k], "allreduce at " + k);
                    assertEquals(sum[k], inPlace[k], "allreduce in place at " + k);
                    if (me == last) {
                        assertEquals(last * 1_000_000L + k, max[k], "reduce at " + k);
                    }
                    assertEquals((below + me) * 1_000_000L + (long) (me + 1) * k, scanned[k], "scan at " + k);
                    if (me > 0) {
                        assertEquals(below * 1_000_000L + (long) me * k, ex[k], "exscan at " + k);
                    }
                    assertEquals(k, first[k], "rank 0's operand comes first, at " + k);
                }
            });
        transport.run(n, settings.with("reductionSliceBytes", 1 << 20), world -> {
                final double[] big = data(world.rank(), 300_001);
                final double[] bigSum = new double[big.length];
                world.allreduce(big, bigSum, big.length, Datatype.DOUBLE, Op.SUM);
                for (int k = 0; k < big.length; k += 997) {
                    double expected = 0;
                    for (int r = 0; r < n; r++) {
                        expected += value(r, k);
                    }
                    assertEquals(expected, bigSum[k], 1e-6 * Math.abs(expected), "large allreduce at " + k);
                }
            });
    }

    /** Ints of rank {@code src}'s alltoallw send buffer reserved for each destination (byte displacement 64 j). */
    private static final int W_SPAN = 16;

    /** How many elements rank {@code src} sends rank {@code dest} in the alltoallw test. */
    private static int wCount(final int src, final int dest) {
        return (src + 2 * dest) % 4;
    }

    /**
     * alltoallw: each destination gets its own datatype (even ranks plain ints, odd ranks every other int of a
     * {@code vector}), count (0 to 3 elements) and byte displacement; each source lands through its own receive type
     * (pairs of ints on odd receivers) at its own byte displacement, bytes between blocks untouched; once more
     * nonblocking. Then in place with symmetric counts, and alltoallv in place with null send arguments.
     */
    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("transportsAndRanks")
    void alltoallwWithTypesAndByteDisplacements(final Transport transport, final int n) {
        final Datatype strided = Datatype.vector(2, 1, 2, Datatype.INT);
        final Datatype pair = Datatype.contiguous(2, Datatype.INT);
        transport.run(n, world -> {
            final int me = world.rank();
            final int[] send = new int[W_SPAN * n];
            Arrays.setAll(send, k -> me * 10000 + k);
            final long[] scounts = new long[n];
            final long[] sdispls = new long[n];
            final Datatype[] stypes = new Datatype[n];
            final long[] rcounts = new long[n];
            final long[] rdispls = new long[n];
            final Datatype[] rtypes = new Datatype[n];
            for (int j = 0; j < n; j++) {
                scounts[j] = wCount(me, j);
                sdispls[j] = 4L * W_SPAN * j;
                stypes[j] = j % 2 == 0 ? Datatype.INT : strided;
                rcounts[j] = wCount(j, me);
                rdispls[j] = 4L * W_SPAN * j;
                rtypes[j] = me % 2 == 0 ? Datatype.INT : pair;
            }
            for (int round = 0; round < 2; round++) {
                final int[] recv = new int[W_SPAN * n];
                Arrays.fill(recv, -1);
                if (round == 0) {
                    world.alltoallw(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes);
                } else {
                    world.ialltoallw(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes).join();
                }
                final int[] expected = new int[W_SPAN * n];
                Arrays.fill(expected, -1);
                for (int src = 0; src < n; src++) {
                    // what src packed for me: its ints from 16 me on, one per element or two, 3 apart, for odd me
                    int at = W_SPAN * src;
                    for (int e = 0; e < wCount(src, me); e++) {
                        if (me % 2 == 0) {
                            expected[at++] = src * 10000 + W_SPAN * me + e;
                        } else {
                            expected[at++] = src * 10000 + W_SPAN * me + 3 * e;
                            expected[at++] = src * 10000 + W_SPAN * me + 3 * e + 2;
                        }
                    }
                }
                assertArrayEquals(expected, recv, "rank " + me + ", round " + round);
            }
            // in place: the blocks to send are read from the receive buffer, as its counts and types lay them out
            final int[] buf = new int[W_SPAN * n];
            final long[] counts = new long[n];
            final Datatype[] types = new Datatype[n];
            for (int j = 0; j < n; j++) {
                counts[j] = (me + j) % 3;
                types[j] = Datatype.INT;
                for (int e = 0; e < counts[j]; e++) {
                    buf[W_SPAN * j + e] = me * 100 + j * 10 + e;
                }
            }
            final int[] vbuf = buf.clone();
            world.alltoallw(Communicator.IN_PLACE, null, null, null, buf, counts, rdispls, types);
            // alltoallv in place too, its send arguments ignored (null), displacements in extents
            final long[] vdispls = new long[n];
            Arrays.setAll(vdispls, j -> (long) W_SPAN * j);
            world.alltoallv(Communicator.IN_PLACE, null, null, null, vbuf, counts, vdispls, Datatype.INT);
            for (int j = 0; j < n; j++) {
                for (int e = 0; e < counts[j]; e++) {
                    assertEquals(j * 100 + me * 10 + e, buf[W_SPAN * j + e], "in place, from rank " + j);
                    assertEquals(j * 100 + me * 10 + e, vbuf[W_SPAN * j + e], "alltoallv in place, from rank " + j);
                }
            }
        });
    }

    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("transportsAndRanks")
    void vectorVariantsWithVaryingCounts(final Transport transport, final int n) {
        transport.run(n, world -> {
            final int me = world.rank();
            final long[] counts = new long[n];
            final long[] displs = new long[n];
            long total = 0;
            for (int r = 0; r < n; r++) {
                counts[r] = r % 3;
                displs[r] = total + r;
                total += counts[r] + r;
            }
            final int[] send = new int[(int) counts[me]];
            Arrays.fill(send, me + 1);
            final int[] recv = new int[(int) total];
            Arrays.fill(recv, -1);
            world.allgatherv(send, counts[me], Datatype.INT, recv, counts, displs, Datatype.INT);
            for (int r = 0; r < n; r++) {
                for (int k = 0; k < counts[r]; k++) {
                    assertEquals(r + 1, recv[(int) displs[r] + k]);
                }
                if (displs[r] > 0) {
                    assertEquals(-1, recv[(int) displs[r] - 1], "gaps stay untouched");
                }
            }
            final int[] gathered = new int[(int) total];
            world.gatherv(send, counts[me], Datatype.INT, gathered, counts, displs, Datatype.INT, n - 1);
            if (me == n - 1) {
                for (int r = 0; r < n; r++) {
                    for (int k = 0; k < counts[r]; k++) {
                        assertEquals(r + 1, gathered[(int) displs[r] + k]);
                    }
                }
            }
            final int[] part = new int[(int) counts[me]];
            world.scatterv(recv, counts, displs, Datatype.INT, part, counts[me], Datatype.INT, 0);
            for (final int v : part) {
                assertEquals(me + 1, v);
            }
            // alltoallv: rank i sends i*100 + j, (j % 2 + 1) times, to rank j
            final long[] sc = new long[n];
            final long[] sd = new long[n];
            final long[] rc = new long[n];
            final long[] rd = new long[n];
            long sAt = 0;
            long rAt = 0;
            for (int j = 0; j < n; j++) {
                sc[j] = j % 2 + 1;
                sd[j] = sAt;
                sAt += sc[j];
                rc[j] = me % 2 + 1;
                rd[j] = rAt;
                rAt += rc[j];
            }
            final int[] sbuf = new int[(int) sAt];
            for (int j = 0; j < n; j++) {
                for (int k = 0; k < sc[j]; k++) {
                    sbuf[(int) sd[j] + k] = me * 100 + j;
                }
            }
            final int[] rbuf = new int[(int) rAt];
            world.alltoallv(sbuf, sc, sd, Datatype.INT, rbuf, rc, rd, Datatype.INT);
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < rc[i]; k++) {
                    assertEquals(i * 100 + me, rbuf[(int) rd[i] + k]);
                }
            }
            final long[] rcounts = new long[n];
            for (int r = 0; r < n; r++) {
                rcounts[r] = r + 1;
            }
            final long totalScatter = (long) n * (n + 1) / 2;
            final double[] wide = new double[(int) totalScatter];
            Arrays.fill(wide, me);
            final double[] mineOut = new double[me + 1];
            world.reduceScatter(wide, mineOut, rcounts, Datatype.DOUBLE, Op.SUM);
            for (final double d : mineOut) {
                assertEquals((double) n * (n - 1) / 2, d);
            }
        });
    }

    /**
     * Reduce-scatter with empty blocks, uneven blocks and IN_PLACE, by pairwise exchange (commutative operations,
     * predefined and user-defined) and by reduce-then-scatter (non-commutative), and a large allreduce through a
     * commutative user operation (Rabenseifner's algorithm).
     */
    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("transportsAndRanks")
    void reduceScatterWithEmptyAndUnevenBlocksAndUserOps(final Transport transport, final int n) {
        final Op userSum = Op.create("USER_SUM", true, (in, inout, count, type) -> {
            for (int k = 0; k < count; k++) {
                inout.putLong(k * 8, inout.getLong(k * 8) + in.getLong(k * 8));
            }
        });
        final Op first = Op.create("FIRST", false,
            (in, inout, count, type) -> inout.put(0, in, 0, (int) (count * 8)));
        transport.run(n, world -> {
            final int me = world.rank();
            final long[] counts = new long[n];
            long total = 0;
            for (int r = 0; r < n; r++) {
                counts[r] = r % 3 == 1 ? 0 : 100L * r + 7;
                total += counts[r];
            }
            long before = 0;
            for (int r = 0; r < me; r++) {
                before += counts[r];
            }
            final long[] mine = new long[(int) total];
            for (int k = 0; k < mine.length; k++) {
                mine[k] = (me + 1L) * 1_000_000 + k;
            }
            for (final Op op : new Op[] {Op.SUM, userSum}) {
                final long[] out = new long[(int) counts[me]];
                world.reduceScatter(mine, out, counts, Datatype.LONG, op);
                for (int k = 0; k < out.length; k++) {
                    assertEquals((long) n * (n + 1) / 2 * 1_000_000 + (long) n * (before + k), out[k], op + " " + k);
                }
            }
            final long[] inPlace = mine.clone();
            world.reduceScatter(Communicator.IN_PLACE, inPlace, counts, Datatype.LONG, Op.MAX);
            for (int k = 0; k < counts[me]; k++) {
                assertEquals((long) n * 1_000_000 + before + k, inPlace[k]);
            }
            final long[] leftmost = new long[(int) counts[me]];
            world.reduceScatter(mine, leftmost, counts, Datatype.LONG, first);
            for (int k = 0; k < leftmost.length; k++) {
                assertEquals(1_000_000 + before + k, leftmost[k], "rank 0's operand is the leftmost");
            }
            final long[] large = new long[5000];
            for (int k = 0; k < large.length; k++) {
                large[k] = me * 7L + k;
            }
            final long[] sum = new long[large.length];
            world.allreduce(large, sum, large.length, Datatype.LONG, userSum);
            for (int k = 0; k < sum.length; k++) {
                assertEquals(7L * n * (n - 1) / 2 + (long) n * k, sum[k]);
            }
        });
    }

    /**
     * Reductions of a few MiB keep their packed arrays for the next call (see {@link org.pario.comm.internal.Scratch}); rounds with other
     * values check that no call reads what an earlier one left behind, through every reduction and algorithm
     * (Rabenseifner with and without folding, reduce to a root, rank-ordered reduce, scan, reduce-scatter).
     */
    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("reuseShapes")
    void largeReductionsCalledAgainGetFreshResults(final Transport transport, final int n) {
        // an odd count: blocks of the reduce-scatter differ in length
        final int count = (3 << 16) + 5;
        final Op leftmost = Op.create("LEFTMOST", false,
            (in, inout, k, type) -> inout.put(0, in, 0, (int) (k * 8)));
        transport.run(n, world -> {
            final int me = world.rank();
            final long ranks = (long) n * (n - 1) / 2;
            for (int round = 0; round < 3; round++) {
                final long[] mine = new long[count];
                for (int k = 0; k < count; k++) {
                    mine[k] = round * 1_000_000L + me * 1000L + k;
                }
                final long[] sum = new long[count];
                world.allreduce(mine, sum, count, Datatype.LONG, Op.SUM);
                final long[] first = new long[count];
                world.allreduce(mine, first, count, Datatype.LONG, leftmost);
                final long[] atRoot = new long[count];
                world.reduce(mine, atRoot, count, Datatype.LONG, Op.MAX, round % n);
                final long[] prefix = new long[count];
                world.scan(mine, prefix, count, Datatype.LONG, Op.SUM);
                final long[] block = new long[count / n];
                final long[] wide = new long[block.length * n];
                System.arraycopy(mine, 0, wide, 0, wide.length);
                world.reduceScatterBlock(wide, block, block.length, Datatype.LONG, Op.SUM);
                for (int k = 0; k < count; k++) {
                    final long base = round * 1_000_000L + k;
                    assertEquals(n * base + 1000 * ranks, sum[k], "round " + round + " sum " + k);
                    assertEquals(base, first[k], "round " + round + " leftmost " + k);
                    if (me == round % n) {
                        assertEquals(base + 1000L * (n - 1), atRoot[k], "round " + round + " max " + k);
                    }
                    assertEquals((me + 1) * base + 1000L * me * (me + 1) / 2, prefix[k], "round " + round + " scan");
                }
                for (int k = 0; k < block.length; k++) {
                    final long base = round * 1_000_000L + me * block.length + k;
                    assertEquals(n * base + 1000 * ranks, block[k], "round " + round + " block " + k);
                }
            }
        });
    }

    /**
     * An allreduce whose blocks come in more pieces than a rank sends ahead of its partner's (at 2 ranks, pieces of
     * 512 KiB, {@link Collectives#PIECES_AHEAD_BYTES} ahead): every piece arrives, and the halves differ in length
     * (an odd count), in place and not, twice in a row.
     */
    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(Transport.class)
    void anAllreduceOfManyPiecesSendsThemAFewAhead(final Transport transport) {
        final int count = (3 << 19) + 3;
        transport.run(2, world -> {
            final int me = world.rank();
            for (int round = 0; round < 2; round++) {
                final double[] mine = new double[count];
                for (int k = 0; k < count; k++) {
                    mine[k] = round + me * 0.5 + k;
                }
                final double[] sum = new double[count];
                world.allreduce(mine, sum, count, Datatype.DOUBLE, Op.SUM);
                world.allreduce(Communicator.IN_PLACE, mine, count, Datatype.DOUBLE, Op.MAX);
                for (int k = 0; k < count; k++) {
                    assertEquals(2.0 * (round + k) + 0.5, sum[k], "round " + round + " sum " + k);
                    assertEquals(round + 0.5 + k, mine[k], "round " + round + " max " + k);
                }
            }
        });
    }

    static java.util.stream.Stream<Arguments> reuseShapes() {
        return transportsWith(1, 2, 3, 4);
    }

    static java.util.stream.Stream<Arguments> pipelineShapes() {
        return transportsWith(2, 3, 4, 7);
    }

    /**
     * Broadcasts above the pipeline threshold (4 MiB): a contiguous one whose size is not a whole number of
     * segments, and one of every other double (a resized type, extent 16 bytes) whose gaps must stay untouched,
     * from the first and the last rank.
     */
    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("pipelineShapes")
    void largeBroadcastsPipelineSegmentsAlongTheRanks(final Transport transport, final int n) {
        final int count = (5 << 17) + 3;
        final Datatype everyOther = Datatype.resized(Datatype.DOUBLE, 0, 16);
        transport.run(n, world -> {
            final int me = world.rank();
            for (final int root : new int[] {0, n - 1}) {
                final double[] b = me == root ? data(root, count) : new double[count];
                world.bcast(b, count, Datatype.DOUBLE, root);
                assertArrayEquals(data(root, count), b);
                final double[] sparse = new double[2 * count];
                Arrays.fill(sparse, -1);
                if (me == root) {
                    for (int k = 0; k < count; k++) {
                        sparse[2 * k] = value(root, k);
                    }
                }
                world.bcast(sparse, count, everyOther, root);
                for (int k = 0; k < count; k++) {
                    assertEquals(value(root, k), sparse[2 * k]);
                    assertEquals(-1, sparse[2 * k + 1], "a gap of the type is left alone");
                }
            }
        });
    }

    /**
     * A pipelined broadcast where ranks describe the same doubles with different datatypes, as MPI allows when the
     * signatures agree: triples (24 bytes, which do not divide the 1 MiB segments) on some ranks, single doubles on
     * the others, each way round. Segments are cut in bytes, so every rank still gets every value in place.
     */
    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("pipelineShapes")
    void largeBroadcastsWithDifferentDatatypesOfOneSignature(final Transport transport, final int n) {
        final int count = 3 * ((3 << 17) + 1);
        final Datatype triple = Datatype.contiguous(3, Datatype.DOUBLE);
        transport.run(n, world -> {
            final int me = world.rank();
            for (final int root : new int[] {0, n - 1}) {
                for (final boolean triplesAtRoot : new boolean[] {true, false}) {
                    final boolean triples = (me == root) == triplesAtRoot;
                    final double[] b = me == root ? data(root, count) : new double[count];
                    if (triples) {
                        world.bcast(b, count / 3, triple, root);
                    } else {
                        world.bcast(b, count, Datatype.DOUBLE, root);
                    }
                    assertArrayEquals(data(root, count), b, "root " + root + ", triples at the root " + triplesAtRoot);
                }
            }
        });
    }

    /**
     * Blocks on either side of the all-at-once limit in one alltoallv: ranks whose blocks are all small post every
     * message at once, the others exchange pairwise, and each pair's message still arrives intact.
     */
    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("transportsAndRanks")
    void alltoallvMixingSmallAndLargeBlocksAcrossRanks(final Transport transport, final int n) {
        final int large = (int) (CollectiveTuning.defaults().alltoallAllAtOnceMaxBytes() / 4) + 1000;
        transport.run(n, world -> {
            final int me = world.rank();
            final long[] sc = new long[n];
            final long[] sd = new long[n];
            final long[] rc = new long[n];
            final long[] rd = new long[n];
            long sTotal = 0;
            long rTotal = 0;
            for (int r = 0; r < n; r++) {
                // rank 0 sends large blocks to odd ranks; everything else is small
                sc[r] = me == 0 && r % 2 == 1 ? large : 3 + r;
                rc[r] = r == 0 && me % 2 == 1 ? large : 3 + me;
                sd[r] = sTotal;
                rd[r] = rTotal;
                sTotal += sc[r];
                rTotal += rc[r];
            }
            final int[] send = new int[(int) sTotal];
            for (int r = 0; r < n; r++) {
                for (int k = 0; k < sc[r]; k++) {
                    send[(int) sd[r] + k] = me * 1_000_000 + r * 10_000 + k % 10_000;
                }
            }
            final int[] recv = new int[(int) rTotal];
            world.alltoallv(send, sc, sd, Datatype.INT, recv, rc, rd, Datatype.INT);
            for (int r = 0; r < n; r++) {
                for (int k = 0; k < rc[r]; k++) {
                    assertEquals(r * 1_000_000 + me * 10_000 + k % 10_000, recv[(int) rd[r] + k],
                        "from rank " + r + ", element " + k);
                }
            }
        });
    }
}
