package org.pario.comm.internal.tcp;

import java.io.IOException;
import java.security.MessageDigest;
import java.util.function.IntSupplier;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AttributeKey;

/**
 * Receives on a connection a peer opened: its hello, then messages and heartbeats, then perhaps its goodbye.
 * Silence longer than the failure timeout, times the periods the rank allows ({@link TcpFabric#silentPeriods}),
 * fails the peer (it hangs, is stopped, or the network drops its traffic); before its hello, a connection is bounded
 * by the start-up timeout instead.
 */
final class InboundHandler extends SimpleChannelInboundHandler<Object> {
    private static final System.Logger LOG = System.getLogger(InboundHandler.class.getName());
    /** The rank at the other end of a connection, once known. */
    private static final AttributeKey<Integer> PEER = AttributeKey.valueOf("pario.peer");
    private static final AttributeKey<Boolean> SAID_BYE = AttributeKey.valueOf("pario.bye");
    private static final AttributeKey<Long> OPENED = AttributeKey.valueOf("pario.opened");

    private final PeerEvents events;
    private final long timeoutMillis;
    private final long startupNanos;
    /** How many failure timeouts in a row a peer may stay silent; read when a timeout passes. */
    private final IntSupplier periods;
    /** Failure timeouts passed in a row without a byte from the peer. */
    private int silentFor;

    /**
     * @param timeoutMillis the failure timeout: the reader-idle time of the connection's idle handler
     * @param startupNanos  how long a connection may go without its hello
     * @param periods       how many failure timeouts in a row a peer may stay silent (at least one)
     */
    InboundHandler(final PeerEvents events, final long timeoutMillis, final long startupNanos,
                   final IntSupplier periods) {
        this.events = events;
        this.timeoutMillis = timeoutMillis;
        this.startupNanos = startupNanos;
        this.periods = periods;
    }

    /** @return the rank at the other end of {@code ch}, or null before its hello */
    static Integer peerOf(final Channel ch) {
        return ch.attr(PEER).get();
    }

    /** Records the rank at the other end of {@code ch}. */
    static void peerIs(final Channel ch, final int peer) {
        ch.attr(PEER).set(peer);
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx) {
        ctx.channel().attr(OPENED).set(System.nanoTime());
        ctx.fireChannelActive();
    }

    @Override
    public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt) {
        if (evt instanceof IdleStateEvent e && e.state() == IdleState.READER_IDLE) {
            final Integer peer = peerOf(ctx.channel());
            if (peer == null) {
                // a peer JVM that is still starting may stall longer than the failure timeout
                final Long opened = ctx.channel().attr(OPENED).get();
                if (opened != null && System.nanoTime() - opened > startupNanos) {
                    ctx.close();
                }
                return;
            }
            // the idle handler tells again after every further timeout without a byte, the first time as first
            silentFor = e.isFirst() ? 1 : silentFor + 1;
            if (silentFor < periods.getAsInt()) {
                return;
            }
            if (!events.closed() && !events.departed(peer)) {
                events.depart(peer, new IOException("no message or heartbeat from rank " + peer + " for "
                    + timeoutMillis * silentFor + " ms (it hangs, was stopped, or the network drops its traffic)"));
            }
            ctx.close();
        }
    }

    @Override
    protected void channelRead0(final ChannelHandlerContext ctx, final Object msg) {
        final Integer peer = peerOf(ctx.channel());
        if (peer == null) {
            if (msg instanceof Frames.Hello h && MessageDigest.isEqual(events.token(), h.token())
                && events.hello(h.rank(), ctx.channel())) {
                return;
            }
            LOG.log(System.Logger.Level.WARNING, "rank " + events.rank() + " refused a connection from "
                + ctx.channel().remoteAddress() + ": it did not present this job's token, or claimed a rank "
                + "that is already connected");
            ctx.close();
            return;
        }
        if (msg instanceof Frames.Heartbeat) {
            return;
        }
        if (msg instanceof Frames.Bye) {
            ctx.channel().attr(SAID_BYE).set(true);
            events.depart(peer, null);
        } else if (msg instanceof Frames.Abort a) {
            ctx.channel().attr(SAID_BYE).set(true);
            events.depart(peer, new IOException(a.reason()));
        } else {
            events.received(peer, msg);
        }
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) {
        final Integer peer = peerOf(ctx.channel());
        if (peer != null && ctx.channel().attr(SAID_BYE).get() == null && !events.closed()) {
            events.depart(peer, new IOException("lost the connection to rank " + peer + " (its process died or "
                + "the network failed)"));
        }
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        LOG.log(System.Logger.Level.WARNING, "rank " + events.rank() + " closed a connection from "
            + ctx.channel().remoteAddress() + ": " + cause.getMessage());
        ctx.close();
    }
}
