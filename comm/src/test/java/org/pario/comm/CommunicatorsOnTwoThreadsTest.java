package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ParioException;

@Timeout(60)
class CommunicatorsOnTwoThreadsTest {
    private static final int ROUNDS = 300;

    /**
     * A library thread makes communicators from a {@link Communicator#dupForThread()} copy while the rank's own
     * thread makes communicators from the original: the two never get the same context, so their collectives never
     * take each other's messages.
     */
    @Test
    void communicatorsMadeOnAThreadOfTheirOwnNeverShareAContext() {
        LocalCluster.run(4, world -> {
            final int me = world.rank();
            final Communicator background = world.dupForThread();
            final AtomicReference<Throwable> failed = new AtomicReference<>();
            final Thread t = new Thread(() -> {
                try {
                    for (int i = 0; i < ROUNDS; i++) {
                        try (Communicator c = i % 3 == 0 ? background.split(0, -me) : background.dup()) {
                            assertEquals(4L * 1000 * i + 6, c.allreduce(1000L * i + me, Op.SUM), "round " + i);
                        }
                    }
                } catch (Throwable e) {
                    failed.set(e);
                }
            }, "library-thread-" + me);
            t.start();
            for (int i = 0; i < ROUNDS; i++) {
                try (Communicator c = i % 2 == 0 ? world.dup() : world.split(0, me)) {
                    assertEquals(4L * 7 * i + 6 * 3, c.allreduce(7L * i + 3L * me, Op.SUM), "round " + i);
                }
            }
            t.join();
            if (failed.get() != null) {
                throw new AssertionError("on the library thread", failed.get());
            }
            background.close();
        });
    }

    @Test
    void aThreadsCopyOfACopyIsRefused() {
        LocalCluster.run(2, world -> {
            try (Communicator background = world.dupForThread()) {
                final ParioException e = assertThrows(ParioException.class, background::dupForThread);
                assertEquals(true, e.getMessage().contains("dupForThread"), e.getMessage());
            }
        });
    }

    @Test
    void theCopiesForThreadsRunOutWithTheSameErrorOnEveryRank() {
        LocalCluster.run(3, world -> {
            for (int i = 0; i < 256; i++) {
                world.dupForThread().close();
            }
            final ParioException e = assertThrows(ParioException.class, world::dupForThread);
            assertEquals(true, e.getMessage().contains("256 communicators for threads"), e.getMessage());
            // the world's own family is untouched
            try (Communicator c = world.dup()) {
                assertEquals(3L, c.allreduce(1L, Op.SUM));
            }
        });
    }
}
