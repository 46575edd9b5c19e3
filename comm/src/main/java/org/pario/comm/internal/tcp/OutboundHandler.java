package org.pario.comm.internal.tcp;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * A rank's own connection to a peer: it only writes on it. Its closing proves nothing by itself (a peer that
 * finishes normally closes it too, possibly before its goodbye reaches us on the other connection), so liveness is
 * judged on the connection the peer opened: closed without a goodbye means failed.
 */
final class OutboundHandler extends SimpleChannelInboundHandler<Object> {
    private final PeerEvents events;

    OutboundHandler(final PeerEvents events) {
        this.events = events;
    }

    /**
     * The hello must be the first frame: written here, on the event loop, as soon as the connection is up, before
     * the idle timer can send a heartbeat (a hello written later from the starting thread could lose that race on a
     * loaded machine, and the peer would refuse the connection).
     */
    @Override
    public void channelActive(final ChannelHandlerContext ctx) {
        final Gate gate = Links.gate(ctx.channel());
        ctx.writeAndFlush(Frames.hello(ctx.alloc(), events.rank(), events.token())).addListener(f -> gate.helloDone());
        ctx.fireChannelActive();
    }

    @Override
    protected void channelRead0(final ChannelHandlerContext ctx, final Object msg) {
        // peers never write on connections we opened
    }

    @Override
    public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt) {
        if (evt instanceof IdleStateEvent e && e.state() == IdleState.WRITER_IDLE && !events.closed()) {
            Links.gate(ctx.channel()).write(Frames.heartbeat(ctx.alloc()), f -> { });
        }
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
        Links.gate(ctx.channel()).close();
    }
}
