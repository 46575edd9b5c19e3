package org.pario.comm.internal.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.security.MessageDigest;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AttributeKey;
import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.internal.Endpoint;
import org.pario.comm.internal.Fabric;
import org.pario.comm.internal.Message;

/**
 * One rank per JVM, connected over TCP with Netty. Start-up: a {@link Rendezvous} at rank 0 exchanges addresses;
 * then every rank opens one connection to every other rank and announces itself with the job token. A rank
 * sends only on its own connection to a peer, so messages between two ranks keep their order; it receives on the
 * connections the peers opened. Because every pair is connected from the start, a rank whose JVM dies is noticed
 * by all the others at once (their connections from it close without a goodbye), and every operation waiting
 * on it fails, naming it.
 *
 * <p>Connections that present a wrong token are refused and logged; malformed or oversized frames close the
 * connection. Messages are copied into the receiver's message buffers as they arrive; matching runs on the
 * Netty threads, unpacking into user buffers on the user's thread.
 */
public final class TcpFabric extends Fabric implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(TcpFabric.class.getName());
    private static final AttributeKey<Integer> PEER = AttributeKey.valueOf("pario.peer");
    /** Socket buffer size: loopback and data-centre links need MiBs in flight for full bandwidth. */
    private static final int SOCKET_BUFFER = 4 << 20;
    private static final AttributeKey<Boolean> SAID_BYE = AttributeKey.valueOf("pario.bye");
    private static final AttributeKey<Long> OPENED = AttributeKey.valueOf("pario.opened");

    private final int rank;
    private final byte[] token;
    private final Endpoint endpoint;
    private final EventLoopGroup group;
    private final Channel server;
    private final Channel[] outbound;
    private final Channel[] inboundChannels;
    private final CountDownLatch inbound;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final long startupNanos;

    /**
     * Starts this rank's part of the job and returns once every rank is connected.
     *
     * @param config the job's start-up parameters
     * @return the fabric
     * @throws ParioException if the job does not assemble within the start-up timeout
     */
    public static TcpFabric start(final TcpConfig config) {
        return new TcpFabric(config);
    }

    private TcpFabric(final TcpConfig config) {
        super(config.size());
        this.rank = config.rank();
        this.startupNanos = TimeUnit.MILLISECONDS.toNanos(config.startupTimeoutMillis());
        this.token = config.token();
        this.endpoint = new Endpoint(rank, this);
        this.outbound = new Channel[config.size()];
        this.inboundChannels = new Channel[config.size()];
        this.inbound = new CountDownLatch(config.size() - 1);
        this.group = new MultiThreadIoEventLoopGroup(Integer.getInteger("pario.ioThreads", 2), NioIoHandler.newFactory());
        boolean started = false;
        try {
            final ServerBootstrap sb = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_RCVBUF, SOCKET_BUFFER)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(final SocketChannel ch) {
                        if (config.tls() != null) {
                            ch.pipeline().addLast(config.tls().server().newHandler(ch.alloc()));
                        }
                        ch.pipeline().addLast(
                            new IdleStateHandler(config.failureTimeoutMillis(), 0, 0, TimeUnit.MILLISECONDS),
                            new Frames.Decoder(config.maxMessageBytes()), new Inbound(config.failureTimeoutMillis()));
                    }
                });
            server = sb.bind(config.bindHost(), 0).syncUninterruptibly().channel();
            final InetSocketAddress mine = new InetSocketAddress(config.advertisedHost(),
                ((InetSocketAddress) server.localAddress()).getPort());
            final InetSocketAddress[] table = exchange(config, mine);
            connectAll(config, table);
            if (!inbound.await(config.startupTimeoutMillis(), TimeUnit.MILLISECONDS)) {
                throw new ParioException(ErrorCategory.TIMEOUT, "start-up: not every rank connected to rank " + rank
                    + " in time");
            }
            started = true;
        } catch (IOException e) {
            throw new ParioException(ErrorCategory.TRANSPORT, "start-up of rank " + rank + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ParioException(ErrorCategory.TIMEOUT, "interrupted during start-up", e);
        } finally {
            if (!started) {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            }
        }
    }

    private InetSocketAddress[] exchange(final TcpConfig config, final InetSocketAddress mine) throws IOException {
        if (config.size() == 1) {
            return new InetSocketAddress[] {mine};
        }
        if (rank == 0) {
            try (ServerSocket coordinator = serverSocket(config)) {
                coordinator.setReuseAddress(true);
                coordinator.bind(config.coordinator());
                config.onCoordinatorBound().accept(
                    new InetSocketAddress(config.advertisedHost(), coordinator.getLocalPort()));
                return Rendezvous.host(coordinator, config.size(), token, mine, config.startupTimeoutMillis());
            }
        }
        return Rendezvous.join(config.resolveCoordinator(), rank, config.size(), token, mine,
            config.startupTimeoutMillis(), config.tls() == null ? javax.net.SocketFactory.getDefault()
                : config.tls().jdk().getSocketFactory());
    }

    /** The rendezvous socket: TLS with client authentication when the job uses TLS. */
    private static ServerSocket serverSocket(final TcpConfig config) throws IOException {
        if (config.tls() == null) {
            return new ServerSocket();
        }
        final javax.net.ssl.SSLServerSocket s = (javax.net.ssl.SSLServerSocket) config.tls().jdk()
            .getServerSocketFactory().createServerSocket();
        s.setNeedClientAuth(true);
        return s;
    }

    private void connectAll(final TcpConfig config, final InetSocketAddress[] table) {
        final Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_SNDBUF, SOCKET_BUFFER)
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(4 << 20, 16 << 20))
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, config.startupTimeoutMillis()))
            .handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(final SocketChannel ch) {
                    if (config.tls() != null) {
                        ch.pipeline().addLast(config.tls().client().newHandler(ch.alloc()));
                    }
                    ch.pipeline().addLast(new IdleStateHandler(0, config.heartbeatMillis(), 0, TimeUnit.MILLISECONDS),
                        new Outbound());
                }
            });
        final ChannelFuture[] pending = new ChannelFuture[table.length];
        for (int r = 0; r < table.length; r++) {
            if (r != rank) {
                pending[r] = b.connect(table[r]);
            }
        }
        for (int r = 0; r < table.length; r++) {
            if (r == rank) {
                continue;
            }
            final ChannelFuture f = pending[r].syncUninterruptibly();
            final Channel ch = f.channel();
            ch.attr(PEER).set(r);
            outbound[r] = ch;
        }
    }

    @Override
    public Endpoint endpoint(final int worldRank) {
        if (worldRank != rank) {
            throw new IllegalArgumentException("rank " + worldRank + " does not live in this JVM (rank " + rank + ")");
        }
        return endpoint;
    }

    @Override
    protected Iterable<Endpoint> localEndpoints() {
        return List.of(endpoint);
    }

    @Override
    public void send(final int worldDest, final Message m, final int[] group) {
        checkAlive(worldDest);
        if (worldDest == rank) {
            endpoint.deliver(m);
            return;
        }
        final Channel ch = outbound[worldDest];
        ch.writeAndFlush(Frames.data(ch.alloc(), m)).addListener(f -> {
            if (!f.isSuccess() && !closed.get()) {
                depart(worldDest, new IOException("sending to rank " + worldDest + " failed: " + f.cause()));
            }
        });
    }

    /** Messages from this size up to 1 GiB are packed straight into a direct frame buffer. */
    private static final long DIRECT_FRAME_MIN = 64 << 10;

    @Override
    public void send(final int worldDest, final int context, final int source, final int tag,
                     final org.pario.datatypes.Memory memory, final org.pario.datatypes.Datatype type,
                     final long count, final int[] group) {
        final long bytes = org.pario.datatypes.Packer.packedSize(type, count,
            org.pario.datatypes.DataRepresentation.NATIVE);
        if (worldDest == rank || bytes < DIRECT_FRAME_MIN || bytes > Message.CHUNK) {
            super.send(worldDest, context, source, tag, memory, type, count, group);
            return;
        }
        checkAlive(worldDest);
        final Channel ch = outbound[worldDest];
        ch.writeAndFlush(Frames.dataFrom(ch.alloc(), context, source, tag, memory, type, count, (int) bytes))
            .addListener(f -> {
                if (!f.isSuccess() && !closed.get()) {
                    depart(worldDest, new IOException("sending to rank " + worldDest + " failed: " + f.cause()));
                }
            });
    }

    /** Tells every peer that this rank leaves after an error, then closes every connection. */
    @Override
    public void abort(final int worldRank, final String reason) {
        if (worldRank != rank) {
            throw new IllegalArgumentException("rank " + worldRank + " does not live in this JVM (rank " + rank + ")");
        }
        leave("it aborted: " + reason);
    }

    /**
     * Says goodbye to every peer and closes every connection. A rank that got an error because a peer was gone
     * leaves with that error instead of a goodbye: ranks waiting for its messages then fail naming the first
     * loss, not just this rank's departure.
     */
    @Override
    public void close() {
        final ParioException loss = firstLoss();
        leave(loss == null ? null : "it left after an error: " + loss.getMessage());
    }

    private void leave(final String abortReason) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (final Channel ch : outbound) {
            if (ch != null && ch.isActive()) {
                ch.writeAndFlush(abortReason == null ? Frames.bye(ch.alloc()) : Frames.abort(ch.alloc(), abortReason))
                    .addListener(f -> ch.close());
            }
        }
        for (final Channel ch : outbound) {
            if (ch != null) {
                ch.closeFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
        }
        server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** Registers a peer's connection; a second connection claiming the same rank is refused. */
    private synchronized boolean claim(final int peer, final Channel ch) {
        if (inboundChannels[peer] != null) {
            return false;
        }
        inboundChannels[peer] = ch;
        return true;
    }

    /** @return the address this rank receives on */
    public InetSocketAddress dataAddress() {
        return (InetSocketAddress) server.localAddress();
    }

    /**
     * Receives on a connection a peer opened: its hello, then messages and heartbeats, then perhaps its goodbye.
     * Silence longer than the failure timeout (the peer hangs, is stopped, or the network drops its traffic)
     * fails the peer.
     */
    private final class Inbound extends SimpleChannelInboundHandler<Object> {
        private final long timeoutMillis;

        Inbound(final long timeoutMillis) {
            this.timeoutMillis = timeoutMillis;
        }

        @Override
        public void channelActive(final ChannelHandlerContext ctx) {
            ctx.channel().attr(OPENED).set(System.nanoTime());
            ctx.fireChannelActive();
        }

        @Override
        public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt) {
            if (evt instanceof IdleStateEvent e && e.state() == IdleState.READER_IDLE) {
                final Integer peer = ctx.channel().attr(PEER).get();
                if (peer == null) {
                    // before its hello, a connection is bounded by the start-up timeout, not the heartbeat: a
                    // peer JVM that is still starting may stall longer than the failure timeout
                    final Long opened = ctx.channel().attr(OPENED).get();
                    if (opened != null && System.nanoTime() - opened > startupNanos) {
                        ctx.close();
                    }
                    return;
                }
                if (!closed.get() && !departed(peer)) {
                    depart(peer, new IOException("no message or heartbeat from rank " + peer + " for "
                        + timeoutMillis + " ms (it hangs, was stopped, or the network drops its traffic)"));
                }
                ctx.close();
            }
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final Object msg) {
            final Integer peer = ctx.channel().attr(PEER).get();
            if (peer == null) {
                if (msg instanceof Frames.Hello h && MessageDigest.isEqual(token, h.token())
                    && h.rank() >= 0 && h.rank() < size() && h.rank() != rank && claim(h.rank(), ctx.channel())) {
                    ctx.channel().attr(PEER).set(h.rank());
                    inbound.countDown();
                } else {
                    LOG.log(System.Logger.Level.WARNING, "rank " + rank + " refused a connection from "
                        + ctx.channel().remoteAddress() + ": it did not present this job's token, or claimed a rank "
                        + "that is already connected");
                    ctx.close();
                }
                return;
            }
            if (msg instanceof Message m) {
                endpoint.deliver(m);
            } else if (msg instanceof Frames.Heartbeat) {
                return;
            } else if (msg instanceof Frames.Bye) {
                ctx.channel().attr(SAID_BYE).set(true);
                depart(peer, null);
            } else if (msg instanceof Frames.Abort a) {
                ctx.channel().attr(SAID_BYE).set(true);
                depart(peer, new IOException(a.reason()));
            }
        }

        @Override
        public void channelInactive(final ChannelHandlerContext ctx) {
            final Integer peer = ctx.channel().attr(PEER).get();
            if (peer != null && ctx.channel().attr(SAID_BYE).get() == null && !closed.get()) {
                depart(peer, new IOException("lost the connection to rank " + peer + " (its process died or "
                    + "the network failed)"));
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            LOG.log(System.Logger.Level.WARNING, "rank " + rank + " closed a connection from "
                + ctx.channel().remoteAddress() + ": " + cause.getMessage());
            ctx.close();
        }
    }

    /**
     * Our own connection to a peer: we only write on it. Its closing proves nothing by itself (a peer that
     * finishes normally closes it too, possibly before its goodbye reaches us on the other connection), so
     * liveness is judged on the connection the peer opened: closed without a goodbye means failed.
     */
    private final class Outbound extends SimpleChannelInboundHandler<Object> {
        /**
         * The hello must be the first frame: written here, on the event loop, as soon as the connection is up,
         * before the idle timer can send a heartbeat (a hello written later from the starting thread could lose
         * that race on a loaded machine, and the peer would refuse the connection).
         */
        @Override
        public void channelActive(final ChannelHandlerContext ctx) {
            ctx.writeAndFlush(Frames.hello(ctx.alloc(), rank, token));
            ctx.fireChannelActive();
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final Object msg) {
            // peers never write on connections we opened
        }

        @Override
        public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt) {
            if (evt instanceof IdleStateEvent e && e.state() == IdleState.WRITER_IDLE && !closed.get()) {
                ctx.writeAndFlush(Frames.heartbeat(ctx.alloc()));
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            ctx.close();
        }
    }
}
