package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.datatypes.Datatype;

/**
 * Netty's buffer leak detection is the JVM's to choose: ranks over TCP leave its level as it is, whatever it is
 * (the test run tracks buffers at the level the build sets, and {@link NettyLeakCheck} fails a class that leaks).
 */
@Timeout(120)
class LeakDetectionTest {
    /** Runs 3 ranks over TCP passing a ring of messages, and returns the leak detection level each saw after. */
    private static List<ResourceLeakDetector.Level> levelsAfterARing() {
        return Transport.TCP.call(3, world -> {
            final int n = world.size();
            final long[] got = new long[1];
            final Request<Status> r = world.irecv(got, 1, Datatype.LONG, (world.rank() + n - 1) % n, 3);
            world.send(new long[] {world.rank() * 11L}, 1, Datatype.LONG, (world.rank() + 1) % n, 3);
            r.join();
            assertEquals((world.rank() + n - 1) % n * 11L, got[0]);
            world.barrier();
            return ResourceLeakDetector.getLevel();
        });
    }

    @Test
    void ranksLeaveTheJvmsLevelAsItIs() {
        final ResourceLeakDetector.Level before = ResourceLeakDetector.getLevel();
        try {
            for (final ResourceLeakDetector.Level level : new ResourceLeakDetector.Level[] {
                ResourceLeakDetector.Level.PARANOID, ResourceLeakDetector.Level.DISABLED}) {
                ResourceLeakDetector.setLevel(level);
                assertEquals(List.of(level, level, level), levelsAfterARing(), level.name());
            }
        } finally {
            ResourceLeakDetector.setLevel(before);
        }
    }

    @Test
    void theTestRunTracksBuffers() {
        final String level = System.getProperty("io.netty.leakDetection.level");
        assertTrue("advanced".equals(level) || "paranoid".equals(level),
            "the build runs the tests with Netty's leak detection on and recording where buffers went, not " + level);
    }
}
