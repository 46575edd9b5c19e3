package org.pario.io;

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

    /** Every rank's CYCLIC(1) view goes through piece by piece, asking before each piece whether to stop. */
    @Test
    void placesAViewPieceByPieceAndStopsWhenAsked() {
        for (int rank = 0; rank < 4; rank++) {
            final AtomicInteger asked = new AtomicInteger();
            DataPathWarmup.run(cyclic(rank), 64L * 64 * 16 * 8, () -> asked.incrementAndGet() < 0);
            assertEquals(1, asked.get(), "rank " + rank + ": the 512 KiB stream is one piece");
            final AtomicInteger once = new AtomicInteger();
            DataPathWarmup.run(cyclic(rank), 64L << 20, () -> once.incrementAndGet() > 1);
            assertEquals(2, once.get(), "stopped after one piece");
        }
        DataPathWarmup.run(cyclic(0), 0, () -> false);
    }

    @Test
    void refusesAViewNoFileWouldAccept() {
        assertThrows(ParioException.class, () -> DataPathWarmup.run(new FileView(0, Datatype.INT,
            Datatype.hvector(100, 2, 4, Datatype.INT), DataRepresentation.NATIVE), 800, () -> false));
    }
}
