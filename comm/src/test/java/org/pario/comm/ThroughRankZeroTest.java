package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.datatypes.Datatype;

/**
 * The small collectives that go through rank 0 from 3 up to 4 ranks by default (barrier, commutative allreduce,
 * alltoall; see {@link CollectiveTuning}): values with derived types, in place, every rank bitwise alike, and bad
 * arguments on one rank failing every rank instead of leaving one waiting.
 */
@Timeout(60)
class ThroughRankZeroTest {
    static java.util.stream.Stream<Arguments> transportsAndRanks() {
        return java.util.stream.Stream.of(Transport.values())
            .flatMap(t -> java.util.stream.IntStream.of(3, 4).mapToObj(n -> Arguments.of(t, n)));
    }

    /**
     * Alltoall of two ints per block sent from every third int of the send buffer (a vector) and received as pairs
     * of (int, int) structs, whose packed bytes carry no single basic type, then in place.
     */
    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("transportsAndRanks")
    void alltoallWithDerivedTypesAndInPlace(final Transport transport, final int n) {
        final Datatype everyThird = Datatype.resized(Datatype.vector(2, 1, 3, Datatype.INT), 0, 24);
        final Datatype intPair = Datatype.struct(new long[] {1, 1}, new long[] {0, 4},
            List.of(Datatype.INT, Datatype.INT));
        transport.run(n, world -> {
            final int me = world.rank();
            final int[] send = new int[6 * n];
            Arrays.setAll(send, k -> me * 1000 + k);
            final int[] recv = new int[2 * n];
            world.alltoall(send, 1, everyThird, recv, 1, intPair);
            for (int j = 0; j < n; j++) {
                // block me of rank j: its ints 6 me and 6 me + 3
                assertEquals(j * 1000 + 6 * me, recv[2 * j], "first int from rank " + j);
                assertEquals(j * 1000 + 6 * me + 3, recv[2 * j + 1], "second int from rank " + j);
            }
            final long[] inPlace = new long[3 * n];
            Arrays.setAll(inPlace, k -> me * 100L + k);
            world.alltoall(Communicator.IN_PLACE, -1, null, inPlace, 3, Datatype.LONG);
            for (int j = 0; j < n; j++) {
                for (int k = 0; k < 3; k++) {
                    assertEquals(j * 100L + 3 * me + k, inPlace[3 * j + k], "in place, from rank " + j);
                }
            }
            final int[] viaRequest = new int[2 * n];
            world.ialltoall(send, 1, everyThird, viaRequest, 1, intPair).join();
            assertArrayEquals(recv, viaRequest, "ialltoall");
        });
    }

    /** A floating-point sum of values far apart in size, combined on rank 0: every rank holds the same bits. */
    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("transportsAndRanks")
    void allreduceGivesEveryRankTheSameBits(final Transport transport, final int n) {
        final List<double[]> results = transport.call(n, world -> {
            final double[] mine = new double[5];
            Arrays.setAll(mine, k -> Math.pow(10, 3 * world.rank() - 4) * (k + 0.1));
            final double[] sum = new double[5];
            world.allreduce(mine, sum, 5, Datatype.DOUBLE, Op.SUM);
            final int[] max = new int[1];
            world.allreduce(new int[] {(world.rank() + 1) % n * 7}, max, 1, Datatype.INT, Op.MAX);
            return new double[] {sum[0], sum[1], sum[2], sum[3], sum[4], max[0]};
        });
        for (final double[] r : results) {
            assertArrayEquals(results.get(0), r);
        }
        double first = 0;
        for (int rank = 0; rank < n; rank++) {
            first += Math.pow(10, 3 * rank - 4) * 0.1;
        }
        assertEquals(first, results.get(0)[0], Math.ulp(first) * 4);
        assertEquals(7.0 * (n - 1), results.get(0)[5]);
    }

    /** One rank sends floats where the others send and expect ints: every rank fails, none waits. */
    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("transportsAndRanks")
    void alltoallOfMismatchedTypesFailsEveryRank(final Transport transport, final int n) {
        final List<ParioException> failures = transport.call(n, world -> {
            final int me = world.rank();
            try {
                if (me == n - 1) {
                    world.alltoall(new float[n], 1, Datatype.FLOAT, new int[n], 1, Datatype.INT);
                } else {
                    world.alltoall(new int[n], 1, Datatype.INT, new int[n], 1, Datatype.INT);
                }
                return null;
            } catch (ParioException e) {
                return e;
            }
        });
        assertEveryRankFailed(failures, "float");
    }

    /** One rank's blocks are twice as long as the others': every rank fails, none waits. */
    @ParameterizedTest(name = "{0}, {1} ranks")
    @MethodSource("transportsAndRanks")
    void alltoallOfMismatchedBlocksFailsEveryRank(final Transport transport, final int n) {
        final List<ParioException> failures = transport.call(n, world -> {
            final int count = world.rank() == 1 ? 2 : 1;
            try {
                world.alltoall(new long[count * n], count, Datatype.LONG, new long[count * n], count, Datatype.LONG);
                return null;
            } catch (ParioException e) {
                return e;
            }
        });
        assertEveryRankFailed(failures, "bytes");
    }

    private static void assertEveryRankFailed(final List<ParioException> failures, final String rootSays) {
        for (int r = 0; r < failures.size(); r++) {
            assertNotNull(failures.get(r), "rank " + r + " did not fail");
        }
        final ParioException atRoot = failures.get(0);
        assertTrue(atRoot.category() == ErrorCategory.MISMATCH || atRoot.category() == ErrorCategory.TRUNCATE,
            atRoot.toString());
        assertTrue(atRoot.getMessage().contains(rootSays), atRoot.getMessage());
        for (int r = 1; r < failures.size(); r++) {
            final ParioException e = failures.get(r);
            assertEquals(ErrorCategory.MISMATCH, e.category(), e.toString());
            assertTrue(e.getMessage().contains("rank 0 sent 0 bytes of blocks where rank " + r + " expects"),
                e.getMessage());
        }
    }
}
