package org.pario.comm.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.IdleStateEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A silent peer fails after the failure timeout, or after as many timeouts in a row as a host crowded with ranks
 * allows; a byte from it in between starts the count again.
 */
@Timeout(10)
class SilentPeerTest {
    /** The failures a rank was told of. */
    private final List<String> failed = new ArrayList<>();

    private final PeerEvents events = new PeerEvents() {
        @Override
        public int rank() {
            return 0;
        }

        @Override
        public byte[] token() {
            return new byte[0];
        }

        @Override
        public boolean closed() {
            return false;
        }

        @Override
        public boolean departed(final int peer) {
            return !failed.isEmpty();
        }

        @Override
        public void depart(final int peer, final Throwable why) {
            // as a rank does, the first failure of a peer is the one it keeps
            if (failed.isEmpty()) {
                failed.add(why.getMessage());
            }
        }

        @Override
        public boolean hello(final int peer, final Channel ch) {
            return true;
        }

        @Override
        public void received(final int peer, final Object frame) {
        }
    };

    private EmbeddedChannel connectionFrom(final int peer, final int periods) {
        final EmbeddedChannel ch = new EmbeddedChannel(new InboundHandler(events, 2000, 60_000_000_000L,
            () -> periods));
        InboundHandler.peerIs(ch, peer);
        return ch;
    }

    @Test
    void aPeerSilentForTheTimeoutFailsWhereEachRankHasHalfACoreOrMore() {
        final EmbeddedChannel ch = connectionFrom(3, 1);
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.FIRST_READER_IDLE_STATE_EVENT);
        assertEquals(List.of("no message or heartbeat from rank 3 for 2000 ms (it hangs, was stopped, or the network "
            + "drops its traffic)"), failed);
        assertFalse(ch.isOpen());
    }

    @Test
    void onACrowdedHostAPeerFailsAfterAsManyTimeoutsInARowAsAllowed() {
        final EmbeddedChannel ch = connectionFrom(5, 3);
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.FIRST_READER_IDLE_STATE_EVENT);
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
        assertTrue(failed.isEmpty(), failed.toString());
        // it spoke: the count starts again
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.FIRST_READER_IDLE_STATE_EVENT);
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
        assertTrue(failed.isEmpty(), failed.toString());
        assertTrue(ch.isOpen());
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
        assertEquals(List.of("no message or heartbeat from rank 5 for 6000 ms (it hangs, was stopped, or the network "
            + "drops its traffic)"), failed);
        assertFalse(ch.isOpen());
    }

    @Test
    void aHostAllowsMoreTimeoutsOnlyPastTwoRanksACore() {
        assertEquals(1, TcpFabric.silentPeriods(1, 2));
        assertEquals(1, TcpFabric.silentPeriods(4, 2));
        assertEquals(1, TcpFabric.silentPeriods(5, 2));
        assertEquals(2, TcpFabric.silentPeriods(8, 2));
        assertEquals(4, TcpFabric.silentPeriods(16, 2));
        assertEquals(1, TcpFabric.silentPeriods(16, 8));
        assertEquals(8, TcpFabric.silentPeriods(16, 1));
        assertEquals(8, TcpFabric.silentPeriods(16, 0));
    }
}
