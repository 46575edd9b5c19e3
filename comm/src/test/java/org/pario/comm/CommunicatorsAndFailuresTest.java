package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.datatypes.Datatype;

@Timeout(30)
class CommunicatorsAndFailuresTest {
    @Test
    void splitGroupsByColorOrdersByKeyAndIsolatesTraffic() {
        LocalCluster.run(7, world -> {
            final int me = world.rank();
            final Communicator half = world.split(me % 2, -me);
            assertEquals(me % 2 == 0 ? 4 : 3, half.size());
            // keys are -rank: the highest world rank comes first
            final int[] members = new int[half.size()];
            half.allgather(new int[] {me}, 1, Datatype.INT, members, 1, Datatype.INT);
            for (int i = 1; i < members.length; i++) {
                assertTrue(members[i - 1] > members[i]);
            }
            final Communicator none = world.split(me == 3 ? Communicator.UNDEFINED : 0, 0);
            if (me == 3) {
                assertNull(none);
            } else {
                assertEquals(6, none.size());
            }
            final Communicator copy = world.dup();
            // a message on the copy is not received on the original, whatever the tag
            if (me == 0) {
                copy.send(new int[] {1}, 1, Datatype.INT, 1, 0);
                world.send(new int[] {2}, 1, Datatype.INT, 1, 0);
            } else if (me == 1) {
                final int[] got = new int[1];
                world.recv(got, 1, Datatype.INT, 0, Communicator.ANY_TAG);
                assertEquals(2, got[0]);
                copy.recv(got, 1, Datatype.INT, 0, 0);
                assertEquals(1, got[0]);
            }
            final long[] sum = new long[1];
            half.allreduce(new long[] {me}, sum, 1, Datatype.LONG, Op.SUM);
            assertEquals(me % 2 == 0 ? 12 : 9, sum[0]);
        });
    }

    /** Duplicates made in one step have contexts of their own: apart from each other, the original and later ones. */
    @Test
    void duplicatesMadeTogetherKeepTheirTrafficApart() {
        LocalCluster.run(3, world -> {
            final int me = world.rank();
            final Communicator[] two = world.dup(2);
            final Communicator later = world.dup();
            final Communicator[] all = {world, two[0], two[1], later};
            for (final Communicator c : all) {
                assertEquals(3, c.size());
                assertEquals(me, c.rank());
            }
            // the same tag on every communicator: each receive gets the value sent on its own
            if (me == 0) {
                for (int k = 0; k < all.length; k++) {
                    all[k].send(new int[] {100 + k}, 1, Datatype.INT, 1, 5);
                }
            } else if (me == 1) {
                for (int k = all.length - 1; k >= 0; k--) {
                    final int[] got = new int[1];
                    all[k].recv(got, 1, Datatype.INT, 0, 5);
                    assertEquals(100 + k, got[0], "communicator " + k);
                }
            }
            final long[] sum = new long[1];
            two[1].allreduce(new long[] {me + 1}, sum, 1, Datatype.LONG, Op.SUM);
            assertEquals(6, sum[0]);
            final ParioException e = assertThrows(ParioException.class, () -> world.dup(0));
            assertEquals(ErrorCategory.ARGUMENT, e.category());
            later.close();
            two[0].close();
            two[1].close();
        });
    }

    @Test
    void nonblockingCollectivesInFlightTogetherDoNotMix() {
        LocalCluster.run(4, world -> {
            final int me = world.rank();
            final long[] a = new long[1];
            final long[] b = new long[1];
            final int[] c = new int[4];
            final Request<Void> r1 = world.iallreduce(new long[] {me}, a, 1, Datatype.LONG, Op.SUM);
            final Request<Void> r2 = world.iallreduce(new long[] {10L * me}, b, 1, Datatype.LONG, Op.MAX);
            final Request<Void> r3 = world.iallgather(new int[] {me + 1}, 1, Datatype.INT, c, 1, Datatype.INT);
            world.barrier();
            Request.joinAll(r1, r2, r3);
            assertEquals(6, a[0]);
            assertEquals(30, b[0]);
            assertEquals(List.of(1, 2, 3, 4), java.util.Arrays.stream(c).boxed().toList());
            assertEquals(6, (long) world.ibarrier().toCompletableFuture().thenApply(v -> 6).get(10, TimeUnit.SECONDS));
        });
    }

    @Test
    void aRankThatThrowsFailsTheOthersCollectivePromptlyNamingIt() {
        final long start = System.nanoTime();
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(5, world -> {
            if (world.rank() == 3) {
                throw new IllegalStateException("disk on fire");
            }
            final long[] out = new long[1];
            world.allreduce(new long[] {1}, out, 1, Datatype.LONG, Op.SUM);
        }));
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10));
        assertTrue(e.getMessage().startsWith("rank 3: ") && e.getMessage().contains("disk on fire"), e.getMessage());
        assertTrue(e.getCause() instanceof IllegalStateException, "rank 3's own exception is the cause");
        // every other rank failed too, each naming rank 3
        for (final Throwable s : e.getSuppressed()) {
            assertTrue(s.getMessage().contains("rank 3 failed: disk on fire"), s.getMessage());
            assertEquals(ErrorCategory.TRANSPORT, ((ParioException) s).category());
        }
        assertEquals(4, e.getSuppressed().length, "ranks 0, 1, 2 and 4");
    }

    /**
     * Over TCP a rank whose code throws leaves with a plain goodbye (its communicator is closed on the way out):
     * ranks waiting for it directly fail because it finished, and ranks waiting on those fail with the first
     * loss their peer reports, so every error names the rank that left.
     */
    @Test
    void overTcpARankThatLeavesMidCollectiveFailsEveryOtherRankNamingIt() {
        final List<String> errors = Transport.TCP.call(5, world -> {
            if (world.rank() == 3) {
                world.close();
                return "left";
            }
            try {
                final long[] out = new long[1];
                world.allreduce(new long[] {1}, out, 1, Datatype.LONG, Op.SUM);
                return "completed";
            } catch (ParioException e) {
                return e.getMessage();
            }
        });
        for (int r = 0; r < 5; r++) {
            if (r != 3) {
                // "rank 3 finished without sending ..." or, when a send to it found its connection closed before its
                // goodbye was read, "rank 3 failed: sending to rank 3 failed ..."
                assertTrue(errors.get(r).contains("rank 3 finished without sending")
                    || errors.get(r).contains("rank 3 failed"), r + ": " + errors.get(r));
            }
        }
    }

    @Test
    void abortFailsEveryOtherRankWithTheReasonOverBothTransports() {
        for (final Transport t : Transport.values()) {
            final List<String> errors = t.call(4, world -> {
                if (world.rank() == 2) {
                    world.abort("disk on fire");
                    return "aborted";
                }
                try {
                    world.barrier();
                    world.bcast(new int[1], 1, Datatype.INT, 2);
                    return "completed";
                } catch (ParioException e) {
                    return e.getMessage();
                }
            });
            for (int r = 0; r < 4; r++) {
                if (r != 2) {
                    assertTrue(errors.get(r).contains("rank 2 failed: it aborted: disk on fire")
                        || errors.get(r).contains("it left after an error: rank 2 failed: it aborted: disk on fire"),
                        t + " rank " + r + ": " + errors.get(r));
                }
            }
        }
    }

    /** Communicators come and go (one per open file); the matching state they leave behind must not grow. */
    @Test
    void manyShortLivedCommunicatorsLeaveNoMatchingStateBehind() {
        LocalCluster.run(2, world -> {
            for (int i = 0; i < 2000; i++) {
                try (Communicator c = world.dup()) {
                    if (c.rank() == 0) {
                        c.send(new int[] {i}, 1, Datatype.INT, 1, 4);
                    }
                    c.barrier();
                    if (c.rank() == 1) {
                        final int[] got = new int[1];
                        c.recv(got, 1, Datatype.INT, 0, 4);
                        assertEquals(i, got[0]);
                    }
                }
            }
            world.barrier();
            assertTrue(world.endpoint().contextsWithQueuedMessages() <= 2,
                "contexts with queued messages: " + world.endpoint().contextsWithQueuedMessages());
        });
    }

    @Test
    void aReceiveNoRemainingRankCanSatisfyFailsInsteadOfHanging() {
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(2, world -> {
            if (world.rank() == 1) {
                world.recv(new int[1], 1, Datatype.INT, 0, 77);
            }
        }));
        assertTrue(e.getMessage().contains("rank 0 finished without sending a matching message (tag 77)"),
            e.getMessage());
    }

    @Test
    void ranksCallingDifferentCollectivesFailWithAMismatchInsteadOfWaiting() {
        for (final Transport transport : Transport.values()) {
            final ParioException e = assertThrows(ParioException.class, () -> transport.run(2, world -> {
                final long[] out = new long[2];
                if (world.rank() == 0) {
                    world.allreduce(new long[] {1, 2}, out, 2, Datatype.LONG, Op.SUM);
                } else {
                    world.allgather(new long[] {1}, 1, Datatype.LONG, out, 1, Datatype.LONG);
                }
            }));
            assertTrue(e.getMessage().contains("collective mismatch"), transport + ": " + e.getMessage());
            assertTrue(e.getMessage().contains("allreduce") && e.getMessage().contains("allgather"), e.getMessage());
        }
    }

    /** The same collective with a longer count on one rank is told as a mismatch naming the collective. */
    @Test
    void ranksPassingDifferentCountsToOneCollectiveFailWithAMismatch() {
        for (final Transport transport : Transport.values()) {
            final ParioException e = assertThrows(ParioException.class, () -> transport.run(2, world -> {
                final int count = world.rank() == 0 ? 2 : 1;
                world.allreduce(new long[count], new long[count], count, Datatype.LONG, Op.SUM);
            }));
            assertTrue(e.getMessage().contains("collective mismatch in allreduce"), transport + ": " + e.getMessage());
            assertTrue(e.getMessage().contains("with matching counts"), e.getMessage());
        }
    }
}
