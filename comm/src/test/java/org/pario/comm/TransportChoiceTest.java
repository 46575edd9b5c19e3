package org.pario.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.settings.CommSettings;
import org.pario.datatypes.Datatype;

/** Setting {@code transport}: native epoll on Linux by default, NIO on request, a clear error otherwise. */
@Timeout(60)
class TransportChoiceTest {
    @Test
    void linuxRanksTalkOverNativeEpollByDefaultAndOverNioOnRequest() {
        assertEquals(List.of("TCP (epoll)", "TCP (epoll)"), Transport.TCP.call(2, TransportChoiceTest::used),
            "Netty's native epoll library ships for Linux x86-64 and ARM64");
        assertEquals(List.of("TCP (nio)", "TCP (nio)"), Transport.TCP_NIO.call(2, TransportChoiceTest::used));
        assertEquals(List.of("in-JVM", "in-JVM"), Transport.IN_JVM.call(2, TransportChoiceTest::used));
    }

    /** Runs an allreduce and returns the transport it went over. */
    private static String used(final Communicator world) {
        final long[] sum = new long[1];
        world.allreduce(new long[] {world.rank() + 1}, sum, 1, Datatype.LONG, Op.SUM);
        assertEquals(3L, sum[0]);
        return world.transport();
    }

    @Test
    void anUnknownTransportIsAnArgumentErrorNamingTheChoices() {
        final java.nio.file.Path dir;
        try {
            dir = java.nio.file.Files.createTempDirectory("pario-test-");
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        try {
            final CommSettings rdma = CommSettings.defaults().with("transport", "rdma");
            final ParioException e = assertThrows(ParioException.class, () -> Pario.init(new Bootstrap(0, 1, null,
                dir, "job", "token", "127.0.0.1", "127.0.0.1", Duration.ofSeconds(10)), rdma));
            assertEquals(ErrorCategory.ARGUMENT, e.category());
            assertTrue(e.getMessage().contains("auto, epoll or nio") && e.getMessage().contains("rdma"),
                e.getMessage());
        } finally {
            Transport.remove(dir);
        }
    }
}
