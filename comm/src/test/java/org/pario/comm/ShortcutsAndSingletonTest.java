package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ErrorCategory;
import org.pario.ParioException;

/** The typed collectives, a process's job of one rank, and how a run of threads reports a failure. */
@Timeout(60)
class ShortcutsAndSingletonTest {
    @Test
    void typedCollectivesGiveTheSameAsTheMpiShapedOnes() {
        LocalCluster.run(5, world -> {
            final int r = world.rank();
            assertEquals(10L, world.allreduce((long) r, Op.SUM));
            assertEquals(4, world.allreduce(r, Op.MAX));
            assertEquals(0.0, world.allreduce(r * 1.5, Op.MIN));
            assertArrayEquals(new double[] {10, 5}, world.allreduce(new double[] {r, 1}, Op.SUM));
            assertArrayEquals(new long[] {0, 4}, world.allreduce(new long[] {-r, r}, Op.MAX), "element-wise");
            assertArrayEquals(new int[] {5}, world.allreduce(new int[] {1}, Op.SUM));
            assertEquals(3L, world.bcast(r == 3 ? 3L : -1L, 3));
            assertEquals(2.5, world.bcast(r == 0 ? 2.5 : 0, 0));
            assertEquals("from two", world.bcast(r == 2 ? "from two" : null, 2));
            assertArrayEquals(new long[] {0, 10, 20, 30, 40}, world.allgather(10L * r));
            assertArrayEquals(new double[] {0, 0.5, 1, 1.5, 2}, world.allgather(r / 2.0));
            // ranks give arrays of different lengths, rank r gives r values r: the root gets them in rank order
            final double[] mine = new double[r];
            java.util.Arrays.fill(mine, r);
            final double[] all = world.gather(mine, 1);
            if (r == 1) {
                assertArrayEquals(new double[] {1, 2, 2, 3, 3, 3, 4, 4, 4, 4}, all);
            } else {
                assertNull(all, "only the root receives");
            }
            final long[] longs = world.gather(new long[] {r}, 0);
            final int[] ints = world.gather(new int[] {r, r}, 4);
            if (r == 0) {
                assertArrayEquals(new long[] {0, 1, 2, 3, 4}, longs);
            }
            if (r == 4) {
                assertArrayEquals(new int[] {0, 0, 1, 1, 2, 2, 3, 3, 4, 4}, ints);
            }
            final ParioException root = assertThrows(ParioException.class, () -> world.bcast(1L, 5));
            assertTrue(root.getMessage().contains("root"), root.getMessage());
        });
    }

    /** Strings of every length cross one broadcast or two whole: empty, short, and longer than the first one. */
    @Test
    void broadcastStringsOfEveryLength() {
        final String longer = "é".repeat(700) + "x".repeat(Shortcuts.STRING_FIRST_BROADCAST_BYTES);
        LocalCluster.run(3, world -> {
            for (final String s : new String[] {"", "short", "x".repeat(Shortcuts.STRING_FIRST_BROADCAST_BYTES - 4),
                "x".repeat(Shortcuts.STRING_FIRST_BROADCAST_BYTES - 3), longer}) {
                assertEquals(s, world.bcast(world.rank() == 1 ? s : null, 1));
            }
        });
    }

    @Test
    void aProcessNoLauncherStartedIsAJobOfOneRank() {
        assertFalse(Bootstrap.launched(Map.of("HOME", "/root")));
        assertTrue(Bootstrap.launched(Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "2")));
        try (Communicator world = Pario.singleton()) {
            assertEquals(0, world.rank());
            assertEquals(1, world.size());
            world.barrier();
            assertEquals(7L, world.allreduce(7L, Op.SUM));
            assertArrayEquals(new double[] {1, 2}, world.gather(new double[] {1, 2}, 0));
        }
    }

    /** The rank that failed on its own is the one reported, its exception the cause, no prefix twice. */
    @Test
    void aRunThrowsTheFailingRanksOwnExceptionAsTheCause() {
        final IllegalStateException own = new IllegalStateException("rank 2's own trouble");
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(4, world -> {
            // as io's Agreement ends a collective: every rank throws rank 2's error, rank 2 with its own as cause
            final long[] failed = world.allgather(world.rank() == 2 ? 1L : 0L);
            if (failed[2] != 0) {
                throw new ParioException(ErrorCategory.IO, "rank 2: " + own.getMessage(), world.rank() == 2 ? own
                    : null, true);
            }
        }));
        assertEquals("rank 2: rank 2's own trouble", e.getMessage());
        assertSame(own, e.getCause());
        assertTrue(e.agreed(), "every rank raised the same error");
        assertEquals(3, e.getSuppressed().length);
        final ParioException alone = assertThrows(ParioException.class, () -> LocalCluster.run(3, world -> {
            if (world.rank() == 1) {
                throw new ParioException(ErrorCategory.ARGUMENT, "bad count 7");
            }
        }));
        assertEquals("rank 1: bad count 7", alone.getMessage());
        assertFalse(alone.agreed());
        assertEquals(ErrorCategory.ARGUMENT, alone.category());
    }
}
