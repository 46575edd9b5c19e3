package org.pario.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ParioException;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
import org.pario.datatypes.Order;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class DataPathWarmupTest {
    private static FileView cyclic(final int rank) {
        return new FileView(0, Datatype.DOUBLE, Datatype.darray(4, rank, new long[] {64, 64, 64},
            new Distribution[] {Distribution.NONE, Distribution.NONE, Distribution.CYCLIC},
            new long[] {Datatype.DISTRIBUTE_DFLT_DARG, Datatype.DISTRIBUTE_DFLT_DARG, 1}, new long[] {1, 1, 4},
            Order.C, Datatype.DOUBLE), DataRepresentation.NATIVE);
    }

    /**
     * Every rank's CYCLIC(1) view goes through piece by piece, its sample packed and unpacked back as it was, asking
     * now and then whether to stop.
     */
    @Test
    void placesAViewPieceByPieceAndStopsWhenAsked() {
        for (int rank = 0; rank < 4; rank++) {
            final double[] sample = new double[8192];
            for (int i = 0; i < sample.length; i++) {
                sample[i] = rank * 1e6 + i;
            }
            final double[] before = sample.clone();
            final AtomicInteger asked = new AtomicInteger();
            assertEquals(DataPathWarmup.CALLS, DataPathWarmup.run(cyclic(rank), 64L * 64 * 16 * 8, sample,
                sample.length, Datatype.DOUBLE, () -> asked.incrementAndGet() < 0));
            assertEquals(DataPathWarmup.CALLS / DataPathWarmup.CALLS_BETWEEN_ASKS
                + (DataPathWarmup.CALLS % DataPathWarmup.CALLS_BETWEEN_ASKS == 0 ? 0 : 1), asked.get());
            assertArrayEquals(before, sample, "rank " + rank + ": what is packed is unpacked where it came from");
            final AtomicInteger once = new AtomicInteger();
            assertEquals(DataPathWarmup.CALLS_BETWEEN_ASKS, DataPathWarmup.run(cyclic(rank), 64L << 20, null, 0,
                Datatype.DOUBLE, () -> once.incrementAndGet() > 1), "stopped at the second question");
        }
        assertEquals(0, DataPathWarmup.run(cyclic(0), 0, null, 0, Datatype.DOUBLE, () -> false));
        assertEquals(0, DataPathWarmup.run(cyclic(0), 1000, null, 0, Datatype.DOUBLE, () -> true));
    }

    @Test
    void refusesAViewNoFileWouldAccept() {
        assertThrows(ParioException.class, () -> DataPathWarmup.run(new FileView(0, Datatype.INT,
            Datatype.hvector(100, 2, 4, Datatype.INT), DataRepresentation.NATIVE), 800, null, 0, Datatype.INT,
            () -> false));
    }
}
