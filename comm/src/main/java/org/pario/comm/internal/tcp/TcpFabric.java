package org.pario.comm.internal.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.internal.Endpoint;
import org.pario.comm.internal.Fabric;
import org.pario.comm.internal.Message;
import org.pario.comm.internal.MessageAccess;
import org.pario.comm.settings.CommSettings;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/**
 * One rank per JVM, connected over TCP with Netty. Start-up ({@link TcpMesh}): a {@link Rendezvous} at rank 0
 * exchanges addresses; then every rank opens one connection to every other rank and announces itself with the job
 * token. A rank sends only on its own connection to a peer, so messages between two ranks keep their order; it
 * receives on the connections the peers opened. Because every pair is connected from the start, a rank whose JVM
 * dies is noticed by all the others at once (their connections from it close without a goodbye), and every
 * operation waiting on it fails, naming it.
 *
 * <p>Connections that present a wrong token are refused and logged; malformed or oversized frames close the
 * connection. Messages up to the eager limit travel eagerly ({@link EagerSender}), bounded per peer by {@link
 * Credit}, and are unpacked into the receive buffer as they arrive when the receive is already posted ({@link
 * Arrivals}); larger ones, and those to a rank of this host from the shared-memory size on, wait at the sender
 * ({@link RendezvousSender}) until a matching receive asks for their data, which is then unpacked into the receive
 * buffer as it arrives. Matching runs on the Netty threads. What the transport did is counted in {@link
 * #counters()}.
 */
public final class TcpFabric extends Fabric implements AutoCloseable {
    private final int rank;
    private final byte[] token;
    private final Endpoint endpoint;
    private final EventLoopGroup group;
    private final Transports transport;
    private final CongestionControl congestion;
    /** Whether this host runs more ranks than it has cores: a waiting thread then yields its core between polls. */
    private final boolean crowded;
    private final Channel server;
    private final Links links;
    private final Channel[] inboundChannels;
    private final CountDownLatch inbound;
    /** Set when this rank starts to leave the job (before it waits for its parked data to be fetched). */
    private volatile boolean leaving;
    private final long failureTimeoutMillis;
    /**
     * How many failure timeouts in a row a peer may stay silent ({@link #silentPeriods}); one until the ranks of the
     * host are known, which is before any connection carries a message.
     */
    private volatile int silentPeriods = 1;
    private final long driveNanos;
    private final long eagerMax;
    /** Frames handed to Netty and not yet written, over all outbound connections. */
    private final AtomicInteger unwritten = new AtomicInteger();
    /** On how many inbound connections data streams into a receive now. */
    private final AtomicInteger streams = new AtomicInteger();
    private final TcpCounters counters;
    private final SpareBuffers spareBuffers;
    /** Where large messages to peers of this host are staged, or null (off, unusable, or TLS). */
    private final SharedMemory sharedMemory;
    /** Per peer: whether it runs on this host, so a shared-memory file can reach it. */
    private final boolean[] sameHost;
    private final Credit credit;
    private final EagerSender eager;
    private final RendezvousSender rendezvous;
    private final Arrivals arrivals;

    /**
     * Starts this rank's part of the job and returns once every rank is connected.
     *
     * @param config the job's start-up parameters
     * @return the fabric
     * @throws ParioException if the job does not assemble within the start-up timeout, or a setting is not usable
     */
    public static TcpFabric start(final TcpConfig config) {
        return new TcpFabric(config);
    }

    private TcpFabric(final TcpConfig config) {
        super(config.size(), config.settings().spinNanos());
        final CommSettings settings = config.settings();
        this.transport = Transports.chosen(settings.transport());
        this.congestion = new CongestionControl(settings.tcpCongestion(), transport);
        this.rank = config.rank();
        this.token = config.token();
        this.endpoint = new Endpoint(rank, this);
        this.inboundChannels = new Channel[config.size()];
        this.inbound = new CountDownLatch(config.size() - 1);
        this.failureTimeoutMillis = config.failureTimeoutMillis();
        this.driveNanos = settings.driveNanos();
        this.eagerMax = settings.eagerMaxBytes();
        this.sameHost = new boolean[config.size()];
        this.sharedMemory = config.tls() == null && config.size() > 1 ? SharedMemory.open(settings) : null;
        this.spareBuffers = new SpareBuffers(ByteBufAllocator.DEFAULT, settings.spareBufferBytes());
        // the loop's thread may ask before the sender exists: it owes nothing then
        final AtomicReference<RendezvousSender> owing = new AtomicReference<>();
        this.group = settings.waitersDrive() ? new DrivenEventLoop(transport.handlers(), "pario-io-" + rank,
                () -> unwritten.get() > 0 || owing.get() != null && owing.get().owesProgress(),
                () -> streams.get() > 0 || unwritten.get() > 0,
                settings.loopQuietNanos(), DrivenEventLoop.DRIVE_LIMIT_NANOS, settings)
            : new MultiThreadIoEventLoopGroup(settings.ioThreads(), transport.handlers());
        this.links = new Links(rank, this, group, spareBuffers);
        this.counters = new TcpCounters(this::arraysKept, this::parkedMessages);
        this.rendezvous = new RendezvousSender(links, counters, sharedMemory, sameHost, settings);
        owing.set(rendezvous);
        this.credit = new Credit(links, config.size(), settings.eagerCreditBytes());
        this.eager = new EagerSender(links, credit, counters, settings);
        this.arrivals = new Arrivals(links, credit, endpoint, counters, sharedMemory,
            () -> failureTimeoutMillis * silentPeriods);
        final PeerEvents events = new Events();
        boolean started = false;
        try {
            final boolean inPlaceReads = config.tls() == null && settings.inPlaceReads();
            final ServerBootstrap sb = new ServerBootstrap().group(group).channel(transport.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_RCVBUF, settings.socketBufferBytes())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(final SocketChannel ch) {
                        if (config.tls() != null) {
                            ch.pipeline().addLast(config.tls().server().newHandler(ch.alloc()));
                        }
                        final Frames.Decoder decoder = new Frames.Decoder(config.maxMessageBytes(),
                            arrivals.landingsFor(ch), streams, settings.inPlaceMinStreams());
                        if (inPlaceReads) {
                            // the socket's bytes are the message's bytes: they may go straight into receive memory
                            // on Java 22+ receive arrays too, where the connection is a plain epoll socket
                            final int arraySocket = settings.arraySockets() && ch instanceof EpollSocketChannel e
                                ? e.fd().intValue() : -1;
                            ch.config().setRecvByteBufAllocator(new InPlaceReads(ch.config().getRecvByteBufAllocator(),
                                decoder, counters.readInPlace, arraySocket, counters.readIntoArrays,
                                () -> ch.pipeline().fireChannelRead(Unpooled.EMPTY_BUFFER)));
                        }
                        ch.pipeline().addLast(
                            new IdleStateHandler(config.failureTimeoutMillis(), 0, 0, TimeUnit.MILLISECONDS),
                            decoder,
                            new InboundHandler(events, config.failureTimeoutMillis(),
                                TimeUnit.MILLISECONDS.toNanos(config.startupTimeoutMillis()), () -> silentPeriods));
                    }
                });
            server = sb.bind(config.bindHost(), 0).syncUninterruptibly().channel();
            final InetSocketAddress mine = new InetSocketAddress(config.advertisedHost(),
                ((InetSocketAddress) server.localAddress()).getPort());
            final InetSocketAddress[] table = TcpMesh.exchange(config, mine);
            int here = 1;
            for (int r = 0; r < table.length; r++) {
                sameHost[r] = r != rank && TcpMesh.sameHost(table[rank], table[r]);
                here += sameHost[r] ? 1 : 0;
            }
            final int cpus = TcpMesh.hostCpus(System.getenv("PARIO_HOST_CPUS"),
                Runtime.getRuntime().availableProcessors());
            crowded = here > cpus;
            silentPeriods = silentPeriods(here, cpus);
            connectAll(config, table, events, settings);
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
                if (sharedMemory != null) {
                    sharedMemory.close();
                }
            }
        }
    }

    /**
     * How many failure timeouts in a row a peer may stay silent before it counts as failed: one, or where a host runs
     * more than two ranks a core, the ranks a core over two (16 JVM ranks on 2 cores: 4). A JVM gets only a share of
     * a core there, and while every rank of the host starts at once (loading classes, compiling, a collection that
     * stops all its threads) one went silent for more than 10 s in 3 of 4 jobs of 16 JVM ranks on a 2-core machine;
     * with 40 s, none of 3 did. Up to two ranks a core, the timeout stays as set.
     *
     * @param ranksHere the ranks of this host
     * @param cpus      its cores
     */
    static int silentPeriods(final int ranksHere, final int cpus) {
        return Math.max(1, ranksHere / (2 * Math.max(1, cpus)));
    }

    private long arraysKept() {
        return arrivals.arraysKept();
    }

    private long parkedMessages() {
        return rendezvous.parkedMessages();
    }

    private void connectAll(final TcpConfig config, final InetSocketAddress[] table, final PeerEvents events,
                            final CommSettings settings) {
        final boolean directWrites = config.tls() == null && settings.directWrites();
        final Bootstrap b = new Bootstrap().group(group).channel(transport.channel())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_SNDBUF, settings.socketBufferBytes())
            // only Gate.close closes these sockets (see there): never Netty on a failed write or read
            .option(ChannelOption.AUTO_CLOSE, false)
            .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(4 << 20, 16 << 20))
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, config.startupTimeoutMillis()))
            .handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(final SocketChannel ch) {
                    congestion.apply(ch);
                    Links.attach(ch, new Gate(ch, directWrites, unwritten, counters));
                    if (config.tls() != null) {
                        ch.pipeline().addLast(config.tls().client().newHandler(ch.alloc()));
                    }
                    ch.pipeline().addLast(new IdleStateHandler(0, config.heartbeatMillis(), 0, TimeUnit.MILLISECONDS),
                        new OutboundHandler(events));
                }
            });
        final ChannelFuture[] pending = new ChannelFuture[table.length];
        for (int r = 0; r < table.length; r++) {
            if (r != rank) {
                pending[r] = congestion.forPeer(b, sameHost[r]).connect(table[r]);
            }
        }
        for (int r = 0; r < table.length; r++) {
            if (r != rank) {
                final Channel ch = pending[r].syncUninterruptibly().channel();
                InboundHandler.peerIs(ch, r);
                links.connected(r, ch);
            }
        }
    }

    /** What the connection handlers tell this rank. */
    private final class Events implements PeerEvents {
        @Override
        public int rank() {
            return rank;
        }

        @Override
        public byte[] token() {
            return token;
        }

        @Override
        public boolean closed() {
            return links.closed();
        }

        @Override
        public boolean departed(final int peer) {
            return TcpFabric.this.departed(peer);
        }

        @Override
        public void depart(final int peer, final Throwable why) {
            TcpFabric.this.depart(peer, why);
        }

        @Override
        public boolean hello(final int peer, final Channel ch) {
            if (peer < 0 || peer >= size() || peer == rank || !claim(peer, ch)) {
                return false;
            }
            InboundHandler.peerIs(ch, peer);
            inbound.countDown();
            return true;
        }

        @Override
        public void received(final int peer, final Object frame) {
            if (frame instanceof Message m) {
                final long cost = Credit.returned(MessageAccess.bytes(m));
                endpoint.deliver(MessageAccess.whenConsumed(m, () -> credit.consumed(peer, cost)));
            } else if (frame instanceof Frames.Rts r) {
                endpoint.deliver(MessageAccess.parked(r.context(), r.source(), r.tag(), r.length(), r.type(),
                    arrivals.pullFrom(peer, r)));
            } else if (frame instanceof Frames.Cts c) {
                rendezvous.clearToSend(peer, c);
            } else if (frame instanceof Frames.Credit c) {
                credit.returnedBy(peer, c.bytes());
            }
        }
    }

    /** Registers a peer's connection; a second connection claiming the same rank is refused. */
    private synchronized boolean claim(final int peer, final Channel ch) {
        if (inboundChannels[peer] != null) {
            return false;
        }
        inboundChannels[peer] = ch;
        return true;
    }

    /**
     * A thread that waits for a message drives the connections' event loop itself for up to the setting {@code
     * driveNanos} ({@link DrivenEventLoop}); with the loop on threads of its own it only checks.
     */
    @Override
    public void waitBriefly(final CompletableFuture<?> f) {
        waitBriefly(f, false);
    }

    @Override
    public void waitBriefly(final CompletableFuture<?> f, final boolean prompt) {
        if (group instanceof DrivenEventLoop loop) {
            loop.driveUntil(f, driveNanos, crowded, prompt);
        } else {
            super.waitBriefly(f);
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
        links.write(worldDest, Frames.data(links.alloc(worldDest), m));
    }

    @Override
    public void send(final int worldDest, final int context, final int source, final int tag, final Memory memory,
                     final Datatype type, final long count, final int[] group) {
        if (worldDest == rank) {
            super.send(worldDest, context, source, tag, memory, type, count, group);
            return;
        }
        final long bytes = Packer.packedSize(type, count, DataRepresentation.NATIVE);
        checkAlive(worldDest);
        if (bytes > eagerMax || rendezvous.viaSharedMemory(worldDest, bytes)
            || !credit.reserve(worldDest, Credit.cost(bytes))) {
            rendezvous.park(worldDest, context, source, tag, memory, type, count, bytes);
        } else {
            eager.send(worldDest, context, source, tag, memory, type, count, bytes);
        }
    }

    /**
     * A collective's large message may leave straight from the caller's memory ({@link
     * RendezvousSender#sendFromCaller}); anything else is sent (and packed) as {@link #send} does.
     */
    @Override
    public CompletableFuture<Void> sendInPlace(final int worldDest, final int context, final int source,
                                               final int tag, final Memory memory, final Datatype type,
                                               final long count, final int[] group) {
        if (worldDest != rank) {
            final CompletableFuture<Void> sent = rendezvous.sendFromCaller(worldDest, context, source, tag, memory,
                type, count, Packer.packedSize(type, count, DataRepresentation.NATIVE), crowded);
            if (sent != null) {
                return sent;
            }
        }
        return super.sendInPlace(worldDest, context, source, tag, memory, type, count, group);
    }

    /** A rank left: drop the data parked for it and fail the receives waiting for its data. */
    @Override
    protected void onDeparture(final int worldRank, final Throwable failure) {
        rendezvous.departed(worldRank);
        arrivals.departed(worldRank);
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
        leaving = true;
        if (abortReason == null && !links.closed()) {
            // a normal finish: messages whose data still waits here must reach their receives first
            rendezvous.drain(failureTimeoutMillis);
        }
        if (!links.close()) {
            return;
        }
        final Channel[] outbound = links.channels();
        for (final Channel ch : outbound) {
            if (ch != null && ch.isActive()) {
                final Gate gate = Links.gate(ch);
                gate.write(abortReason == null ? Frames.bye(ch.alloc()) : Frames.abort(ch.alloc(), abortReason),
                    f -> gate.close());
            }
        }
        awaitClosed(outbound);
        server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        rendezvous.releaseAll();
        spareBuffers.close();
        if (sharedMemory != null) {
            sharedMemory.close();
        }
    }

    /**
     * Waits until the connections whose goodbyes are written have closed: for as long as what any of them has still
     * to write keeps changing, and at most 5 s or the failure timeout, whichever is longer, once none changes. The
     * data written before the goodbye is the sender's to deliver, and the last pieces of a large message can take
     * longer than any fixed bound to drain into a live but slow receiver; connections that stall (a peer stopped, or
     * cut off) wait out that bound together, not one after the other.
     */
    private void awaitClosed(final Channel[] channels) {
        final long stallNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(5000, failureTimeoutMillis));
        final long[] left = new long[channels.length];
        Arrays.fill(left, -1);
        long changed = System.nanoTime();
        while (true) {
            boolean open = false;
            final long now = System.nanoTime();
            for (int i = 0; i < channels.length; i++) {
                final Channel ch = channels[i];
                if (ch == null || ch.closeFuture().isDone()) {
                    continue;
                }
                open = true;
                final ChannelOutboundBuffer buffer = ch.unsafe().outboundBuffer();
                final long pending = buffer == null ? 0 : buffer.totalPendingWriteBytes();
                if (pending != left[i]) {
                    left[i] = pending;
                    changed = now;
                }
            }
            if (!open || now - changed > stallNanos) {
                return;
            }
            for (final Channel ch : channels) {
                if (ch != null && !ch.closeFuture().isDone()) {
                    // the first still open: its closing, or 50 ms, whichever comes first, before looking again
                    ch.closeFuture().awaitUninterruptibly(50, TimeUnit.MILLISECONDS);
                    break;
                }
            }
        }
    }

    /** @return true once this rank has started to leave the job */
    public boolean leaving() {
        return leaving;
    }

    /** @return what this rank's transport has done so far: which paths its messages took */
    public TcpCounters counters() {
        return counters;
    }

    /** @return the size of the pieces rendezvous data travels in, in bytes */
    public int rendezvousPieceBytes() {
        return rendezvous.pieceBytes();
    }

    /**
     * @param peer another rank
     * @return the congestion control of the connection this rank opened to {@code peer}, as the kernel reports it,
     *         or null where the transport cannot tell (NIO)
     */
    public String congestionControl(final int peer) {
        return peer == rank ? null : congestion.of(links.channel(peer));
    }

    @Override
    public String transport() {
        return "TCP (" + transport.name() + ")";
    }

    /** @return the directory this rank stages shared-memory messages in, or null when it does not */
    public Path sharedMemoryDirectory() {
        return sharedMemory == null ? null : sharedMemory.directory();
    }

    /** @return the address this rank receives on */
    public InetSocketAddress dataAddress() {
        return (InetSocketAddress) server.localAddress();
    }
}
