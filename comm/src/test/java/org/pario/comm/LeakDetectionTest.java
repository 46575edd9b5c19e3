package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.datatypes.Datatype;

/**
 * Ranks over TCP run with Netty's buffer leak detection off, unless the JVM names a level, which they then keep.
 * Messages flow either way.
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
    void offUnlessTheJvmNamesALevel() {
        final ResourceLeakDetector.Level before = ResourceLeakDetector.getLevel();
        try {
            assertNull(System.getProperty("io.netty.leakDetection.level"));
            assertNull(System.getProperty("io.netty.leakDetectionLevel"));
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
            assertEquals(List.of(ResourceLeakDetector.Level.DISABLED, ResourceLeakDetector.Level.DISABLED,
                ResourceLeakDetector.Level.DISABLED), levelsAfterARing());
        } finally {
            ResourceLeakDetector.setLevel(before);
        }
    }

    @Test
    void aLevelTheJvmNamesIsKept() {
        final ResourceLeakDetector.Level before = ResourceLeakDetector.getLevel();
        try {
            for (final String property : new String[] {"io.netty.leakDetection.level", "io.netty.leakDetectionLevel"}) {
                // Netty reads the property once, when its detector class loads: a JVM started with it runs at it
                ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
                assertEquals(List.of(ResourceLeakDetector.Level.PARANOID, ResourceLeakDetector.Level.PARANOID,
                    ResourceLeakDetector.Level.PARANOID), Transport.withProperty(property, "paranoid",
                    LeakDetectionTest::levelsAfterARing), property);
            }
        } finally {
            ResourceLeakDetector.setLevel(before);
        }
    }
}
