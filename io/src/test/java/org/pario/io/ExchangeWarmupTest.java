package org.pario.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.LocalCluster;
import org.pario.comm.Op;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
import org.pario.datatypes.Order;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ExchangeWarmupTest {
    /** Rank {@code rank}'s CYCLIC(1) view of a 3-D array of doubles over {@code ranks} ranks. */
    private static FileView cyclic(final int ranks, final int rank, final long n) {
        return new FileView(0, Datatype.DOUBLE, Datatype.darray(ranks, rank, new long[] {n, n, n},
            new Distribution[] {Distribution.NONE, Distribution.NONE, Distribution.CYCLIC},
            new long[] {Datatype.DISTRIBUTE_DFLT_DARG, Datatype.DISTRIBUTE_DFLT_DARG, 1}, new long[] {1, 1, ranks},
            Order.C, Datatype.DOUBLE), DataRepresentation.NATIVE);
    }

    /**
     * Every round writes each rank's sample through its view: the aggregators are given exactly the ranks' bytes
     * (the samples of a CYCLIC(1) view fill the front of the file without a hole), round after round, 1 MiB of all
     * ranks' data growing to 32 MiB, 256 MiB in all: 13 rounds, then the repeated rounds of 1 MiB. Three ranks, so
     * no power of two.
     */
    @Test
    void roundsMoveEveryRanksSampleThroughItsView() {
        LocalCluster.run(3, comm -> {
            final long n = 192; // 192^3 doubles: 18 MiB per rank
            final long count = 4L << 20 >> 3;
            final ExchangeWarmup w = ExchangeWarmup.start(comm, Hints.of(java.util.Map.of("cb_buffer_size",
                "4194304")), cyclic(3, comm.rank(), n), new double[(int) count], count, Datatype.DOUBLE, () -> false);
            assertTrue(w.await(60_000), "the rounds end by themselves");
            assertEquals(13 + ExchangeWarmup.REPEATED_ROUNDS, w.rounds());
            long expected = 0;
            long round = 1L << 20;
            for (int r = 0; r < 13; r++, round = Math.min(2 * round, 32L << 20)) {
                expected += 3 * 8 * Math.min(count, round / 3 / 8);
            }
            expected += ExchangeWarmup.REPEATED_ROUNDS * 3 * 8 * Math.min(count, (1L << 20) / 3 / 8);
            assertEquals(expected, comm.allreduce(w.bytesWritten(), Op.SUM));
        });
    }

    /**
     * The rounds' file goes through the decorator given, as a checkpoint's goes through its checksums: everything the
     * aggregators write and read passes it, and nothing else.
     */
    @Test
    void roundsWriteAndReadThroughTheDecoratorGiven() {
        LocalCluster.run(3, comm -> {
            final long count = 4L << 20 >> 3;
            final SievingTest.Counting[] counting = new SievingTest.Counting[1];
            final ExchangeWarmup w = ExchangeWarmup.start(comm, Hints.of(java.util.Map.of("cb_buffer_size",
                "4194304")), cyclic(3, comm.rank(), 192), new double[(int) count], count, Datatype.DOUBLE,
                () -> false, inner -> counting[0] = new SievingTest.Counting(inner));
            assertTrue(w.await(60_000), "the rounds end by themselves");
            assertEquals(13 + ExchangeWarmup.REPEATED_ROUNDS, w.rounds());
            assertEquals(w.bytesWritten(), counting[0].bytesWritten.get(), "every byte written passed the decorator");
            assertEquals(w.bytesWritten(), counting[0].bytesRead.get(), "every byte read back passed it too");
        });
    }

    /** One rank asks for the end; every rank ends at the same round, and the communicator is free again. */
    @Test
    void aStopOnOneRankEndsTheRoundsOnEveryRankAlike() {
        LocalCluster.run(4, comm -> {
            final long count = 1L << 20;
            final ExchangeWarmup w = ExchangeWarmup.start(comm, Hints.DEFAULT, cyclic(4, comm.rank(), 256),
                new double[(int) count], count, Datatype.DOUBLE, () -> false);
            if (comm.rank() == 2) {
                w.stop();
            }
            assertTrue(w.await(60_000));
            final long[] rounds = comm.allgather((long) w.rounds());
            for (final long r : rounds) {
                assertEquals(rounds[0], r, java.util.Arrays.toString(rounds));
            }
            assertTrue(rounds[0] < 13, java.util.Arrays.toString(rounds));
            assertEquals(4L, comm.allreduce(1L, Op.SUM));
        });
    }

    /** A rank that leaves while the rounds run: the others' rounds end, and closing returns. */
    @Test
    void aRankGoneEndsTheOthersRounds() {
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm -> {
            final long count = 1L << 20;
            final ExchangeWarmup w = ExchangeWarmup.start(comm, Hints.DEFAULT, cyclic(3, comm.rank(), 256),
                new double[(int) count], count, Datatype.DOUBLE, () -> false);
            if (comm.rank() == 1) {
                throw new IllegalStateException("rank 1 gives up");
            }
            assertTrue(w.await(60_000), "the rounds end when a rank is gone");
            comm.barrier();
        }));
        assertTrue(e.getMessage().contains("rank 1 gives up"), e.getMessage());
    }

    /** A view no file accepts for writing ends the rounds on every rank, quietly. */
    @Test
    void aViewTheFileRefusesEndsTheRounds() {
        LocalCluster.run(2, comm -> {
            final FileView overlapping = new FileView(0, Datatype.INT, Datatype.hvector(100, 2, 4, Datatype.INT),
                DataRepresentation.NATIVE);
            final ExchangeWarmup w = ExchangeWarmup.start(comm, Hints.DEFAULT, overlapping, new int[200], 200,
                Datatype.INT, () -> false);
            assertTrue(w.await(60_000));
            assertEquals(0, w.rounds());
            try (Communicator c = comm.dup()) {
                assertEquals(2L, c.allreduce(1L, Op.SUM));
            }
        });
    }
}
