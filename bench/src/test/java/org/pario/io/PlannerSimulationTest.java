package org.pario.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The planner's counts for layouts whose messages are known by hand. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PlannerSimulationTest {
    /** CYCLIC(1): every rank has bytes in every window, so each aggregator hears from every rank each round. */
    @Test
    void cyclicSendsEveryRanksPieceToEveryAggregator() {
        final PlannerSimulation.Result r = PlannerSimulation.simulate(true, 64);
        assertEquals(4, r.aggregators());
        assertEquals(1, r.rounds(), "64 x 256 KiB = 16 MiB, 4 MiB a domain, one 16 MiB window");
        assertEquals(64, r.aggregatorMessages());
        assertEquals(4 << 20, r.aggregatorBytes());
        assertEquals(4, r.messagesSent(), "a piece for each aggregator");
        assertEquals(8L << 20, r.romioMetadataBytes(), "16 bytes for each 8-byte run of a 4 MiB domain");
    }

    /** BLOCK: a window of 16 MiB gets rows from the ranks whose blocks it crosses, not from all. */
    @Test
    void blockSendsAWindowOnlyTheRanksItCrosses() {
        final PlannerSimulation.Result r = PlannerSimulation.simulate(false, 256);
        assertEquals(16, r.aggregators());
        assertEquals(2, r.rounds(), "256 x 2 MiB over 16 aggregators: 32 MiB a domain");
        assertEquals(16 << 20, r.aggregatorBytes());
        assertTrue(r.aggregatorMessages() > 0 && r.aggregatorMessages() < 256, "messages " + r.aggregatorMessages());
        assertTrue(r.viewsBytes() > 0);
    }
}
