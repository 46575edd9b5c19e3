package org.pario.comm.internal.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AttributeKey;
import io.netty.util.ResourceLeakDetector;
import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.internal.Endpoint;
import org.pario.comm.internal.Fabric;
import org.pario.comm.internal.Message;
import org.pario.comm.internal.MessageAccess;
import org.pario.comm.internal.Scratch;

/**
 * One rank per JVM, connected over TCP with Netty. Start-up: a {@link Rendezvous} at rank 0 exchanges addresses;
 * then every rank opens one connection to every other rank and announces itself with the job token. A rank
 * sends only on its own connection to a peer, so messages between two ranks keep their order; it receives on the
 * connections the peers opened. Because every pair is connected from the start, a rank whose JVM dies is noticed
 * by all the others at once (their connections from it close without a goodbye), and every operation waiting
 * on it fails, naming it.
 *
 * <p>Connections that present a wrong token are refused and logged; malformed or oversized frames close the
 * connection. Messages up to {@link #EAGER_MAX} travel eagerly, bounded per peer by credit, and are unpacked into
 * the receive buffer as they arrive when the receive is already posted; larger ones (and those to a rank of this
 * host from {@link #SHARED_MEMORY_MIN}) wait at the sender until a matching receive asks for their data, which is
 * then unpacked into the receive buffer as it arrives. Matching runs on the Netty threads.
 */
public final class TcpFabric extends Fabric implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(TcpFabric.class.getName());
    private static final AttributeKey<Integer> PEER = AttributeKey.valueOf("pario.peer");
    /**
     * Socket buffer size ({@code -Dpario.socketBufferBytes}): loopback and data-centre links need MiBs in flight
     * for full bandwidth. Smaller ones make sockets fill sooner (the tests of what happens then use that). Read when
     * the fabric starts.
     */
    private final int socketBuffer = Math.max(4 << 10, Integer.getInteger("pario.socketBufferBytes", 4 << 20));
    private static final AttributeKey<Boolean> SAID_BYE = AttributeKey.valueOf("pario.bye");
    /** The congestion control a connection is to be given as it opens, when not the system's default. */
    private static final AttributeKey<String> CONGESTION_CONTROL = AttributeKey.valueOf("pario.congestion");
    /**
     * The TCP congestion control of the connections a rank opens, which carry its data ({@code
     * -Dpario.tcpCongestion}): {@code auto} (the default) sets {@code cubic} on connections to ranks of this host
     * and leaves the others at the system's default; {@code system} leaves every connection at the system's
     * default; any other name sets that algorithm on every connection. Some systems (this one among them) default
     * to BBR, which paces a sender at the rate it has measured the path to carry; over loopback it retransmits
     * spuriously (fast retransmits undone by duplicate SACKs, each cutting the sender's window) and holds bulk
     * transfers well below what the link carries, where cubic does neither, for C stacks too
     * (docs/history/benchmarks-2026-11.md). Only the native epoll
     * transport can set it; with NIO every connection keeps the default.
     */
    private final String congestion = System.getProperty("pario.tcpCongestion", "auto");
    /** Whether a refused congestion control has been logged: once per JVM is enough. */
    private static final AtomicBoolean CONGESTION_REFUSAL_LOGGED = new AtomicBoolean();
    private static final AttributeKey<Long> OPENED = AttributeKey.valueOf("pario.opened");
    /**
     * Whether frames may go straight into a connection's socket from the sending thread when the connection has
     * nothing else pending ({@link Gate}; {@code -Dpario.directWrites}, default true).
     */
    static final boolean DIRECT_WRITES = !"false".equals(System.getProperty("pario.directWrites"));
    /**
     * How long the background thread of a driven loop sleeps at a time while a thread drives it, when the rank owes
     * its peers nothing ({@code -Dpario.loopQuietNanos}, default 20 ms; see {@link DrivenEventLoop}).
     */
    static final long LOOP_QUIET_NANOS = Long.getLong("pario.loopQuietNanos", 20_000_000L);
    /**
     * Whether a rank's connections share one {@link DrivenEventLoop} that waiting threads drive (the default), or
     * run on a Netty event loop group of {@code -Dpario.ioThreads} threads ({@code -Dpario.waitersDrive=false}).
     */
    static final boolean WAITERS_DRIVE = !"false".equals(System.getProperty("pario.waitersDrive"));
    /**
     * How long a waiting thread drives the loop before it leaves it to the background thread and blocks
     * ({@code -Dpario.driveNanos}, default 1 ms; 0 turns driving off).
     */
    static final long DRIVE_NANOS = Long.getLong("pario.driveNanos", 1_000_000L);
    /** How long a failed write waits for the peer's own word on why it left (see {@link #failedSend}). */
    private static final long SEND_FAILURE_GRACE_MILLIS = 100;
    /**
     * @param launcherSays what the launcher says of the CPUs the job's ranks on this host share ({@code
     *                     PARIO_HOST_CPUS}, set by {@code pario launch}), or null
     * @param jvmSees      the CPUs this JVM may use
     * @return the CPUs this host's ranks share: the launcher's count where it gives a valid one, since a rank bound
     *         to a core of its own sees only that core and would take a host with a core per rank for crowded
     */
    static int hostCpus(final String launcherSays, final int jvmSees) {
        if (launcherSays != null) {
            try {
                final int cpus = Integer.parseInt(launcherSays.trim());
                if (cpus > 0) {
                    return cpus;
                }
            } catch (NumberFormatException e) {
                // not a count: what the JVM sees
            }
        }
        return jvmSees;
    }

    /** The gate every frame to an outbound connection passes. */
    private static final AttributeKey<Gate> GATE = AttributeKey.valueOf("pario.gate");

    private final int rank;
    private final byte[] token;
    private final Endpoint endpoint;
    private final EventLoopGroup group;
    /** Whether this host runs more ranks than it has cores: a waiting thread then yields its core between polls. */
    private final boolean crowded;
    private final Transports transport;
    private final Channel server;
    private final Channel[] outbound;
    private final Channel[] inboundChannels;
    private final CountDownLatch inbound;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Set when this rank starts to leave the job (before it waits for its parked data to be fetched). */
    private volatile boolean leaving;
    private final long startupNanos;
    private final long failureTimeoutMillis;
    /** Ids of parked sends and of receives waiting for parked data; unique per rank. */
    private final AtomicLong ids = new AtomicLong();
    /** Sender side: messages whose data waits here until their receiver asks for it (CTS). */
    private final Map<Long, Parked> parked = new ConcurrentHashMap<>();
    /** Frames handed to Netty and not yet written, over all outbound connections. */
    private final AtomicInteger unwritten = new AtomicInteger();
    /** Receiver side: receives that asked for parked data, by receive id. */
    private final Map<Long, Incoming> incoming = new ConcurrentHashMap<>();
    /** Eager messages unpacked into an already posted receive as they arrived. */
    private final AtomicLong landedInPlace = new AtomicLong();
    /** On how many inbound connections data streams into a receive now. */
    private final AtomicInteger streams = new AtomicInteger();
    /** Bytes the sockets read straight into receive memory ({@link InPlaceReads}). */
    private final AtomicLong readInPlace = new AtomicLong();
    /** Bytes of message data written to the sockets straight from the caller's memory ({@link #sendInPlace}). */
    private final AtomicLong sentInPlace = new AtomicLong();
    /** Bytes of eager messages written to the sockets straight from the caller's memory ({@link #sendEagerInPlace}). */
    private final AtomicLong sentEagerInPlace = new AtomicLong();
    /** Bytes of eager messages packed piece by piece as they were written ({@link #sendEagerInPieces}). */
    private final AtomicLong sentEagerInPieces = new AtomicLong();
    /** Such messages the rest of which went through Netty because the socket filled after their first piece. */
    private final AtomicLong eagerPiecesFilledSocket = new AtomicLong();
    /** Bytes of message data packed piece by piece as the socket took them ({@link #sendPackedLate}). */
    private final AtomicLong packedLate = new AtomicLong();
    /** Receiver side, per peer: the eager message being unpacked into a posted receive as it arrives, or null. */
    private final AtomicReferenceArray<EagerLanding> landingFrom;
    /** Sender side, per peer: eager bytes sent and not yet consumed by it (returned by CREDIT frames). */
    private final AtomicLongArray eagerInFlight;
    /** Receiver side, per peer: eager bytes consumed and not yet returned as credit. */
    private final AtomicLongArray creditToReturn;
    /** Where large messages to peers of this host are staged, or null (off, unusable, or TLS). */
    private final SharedMemory sharedMemory;
    /**
     * Arrays of eager messages that arrive before their receive, given back once the receive has taken them:
     * allocating one for each such message cost a 64 KiB allreduce at 4 ranks a fresh 64 KiB per call. Up to 8 MiB,
     * and a sixty-fourth of the heap.
     */
    private final Scratch heldWhole = new Scratch(Math.min(8L << 20, Runtime.getRuntime().maxMemory() / 64));
    /** Large direct buffers for rendezvous data, kept for reuse ({@code -Dpario.spareBufferBytes}). */
    private final SpareBuffers spareBuffers = new SpareBuffers(io.netty.buffer.ByteBufAllocator.DEFAULT,
        Long.getLong("pario.spareBufferBytes", 128L << 20));
    /** Per peer: whether it runs on this host, so a shared-memory file can reach it. */
    private final boolean[] sameHost;

    /**
     * The level of Netty's buffer leak detection while a rank runs: off, unless the JVM was started with one
     * ({@code -Dio.netty.leakDetection.level}, or its older name). At Netty's default level a buffer in 128 carries a
     * record whose stack trace is taken when it is made and again when it is released, and a rank makes a buffer
     * for nearly every message, and the stack traces took a tenth of a small collective's time
     * (docs/history/benchmarks-2026-11.md, "Netty's leak records off"). {@code SoakTest} runs
     * its ranks at the paranoid level and fails on any leak reported.
     *
     * @param level   the level property, or null
     * @param legacy  the older property, or null
     * @param current the level in effect
     * @return the level to run with
     */
    static ResourceLeakDetector.Level leakDetection(final String level, final String legacy,
                                                    final ResourceLeakDetector.Level current) {
        return level == null && legacy == null ? ResourceLeakDetector.Level.DISABLED : current;
    }

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
        ResourceLeakDetector.setLevel(leakDetection(System.getProperty("io.netty.leakDetection.level"),
            System.getProperty("io.netty.leakDetectionLevel"), ResourceLeakDetector.getLevel()));
        checkCongestionSetting(congestion);
        this.rank = config.rank();
        this.startupNanos = TimeUnit.MILLISECONDS.toNanos(config.startupTimeoutMillis());
        this.token = config.token();
        this.endpoint = new Endpoint(rank, this);
        this.outbound = new Channel[config.size()];
        this.inboundChannels = new Channel[config.size()];
        this.inbound = new CountDownLatch(config.size() - 1);
        this.failureTimeoutMillis = config.failureTimeoutMillis();
        this.eagerInFlight = new AtomicLongArray(config.size());
        this.creditToReturn = new AtomicLongArray(config.size());
        this.landingFrom = new AtomicReferenceArray<>(config.size());
        this.sameHost = new boolean[config.size()];
        this.sharedMemory = config.tls() == null && config.size() > 1 ? SharedMemory.open() : null;
        this.transport = Transports.chosen();
        this.group = WAITERS_DRIVE ? new DrivenEventLoop(transport.handlers(), "pario-io-" + rank,
                () -> owesProgress() || unwritten.get() > 0,
                () -> streams.get() > 0 || unwritten.get() > 0,
                LOOP_QUIET_NANOS)
            : new MultiThreadIoEventLoopGroup(Integer.getInteger("pario.ioThreads", 2), transport.handlers());
        boolean started = false;
        try {
            final ServerBootstrap sb = new ServerBootstrap().group(group).channel(transport.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_RCVBUF, socketBuffer)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(final SocketChannel ch) {
                        if (config.tls() != null) {
                            ch.pipeline().addLast(config.tls().server().newHandler(ch.alloc()));
                        }
                        final Frames.Decoder decoder = new Frames.Decoder(config.maxMessageBytes(),
                            new InboundLandings(ch), streams, inPlaceMinStreams);
                        if (config.tls() == null && IN_PLACE_READS) {
                            // the socket's bytes are the message's bytes: they may go straight into receive memory
                            ch.config().setRecvByteBufAllocator(
                                new InPlaceReads(ch.config().getRecvByteBufAllocator(), decoder, readInPlace));
                        }
                        ch.pipeline().addLast(
                            new IdleStateHandler(config.failureTimeoutMillis(), 0, 0, TimeUnit.MILLISECONDS),
                            decoder,
                            new Inbound(config.failureTimeoutMillis()));
                    }
                });
            server = sb.bind(config.bindHost(), 0).syncUninterruptibly().channel();
            final InetSocketAddress mine = new InetSocketAddress(config.advertisedHost(),
                ((InetSocketAddress) server.localAddress()).getPort());
            final InetSocketAddress[] table = exchange(config, mine);
            int here = 1;
            for (int r = 0; r < table.length; r++) {
                sameHost[r] = r != rank && sameHost(table[rank], table[r]);
                here += sameHost[r] ? 1 : 0;
            }
            crowded = here > hostCpus(System.getenv("PARIO_HOST_CPUS"), Runtime.getRuntime().availableProcessors());
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
                if (sharedMemory != null) {
                    sharedMemory.close();
                }
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

    /**
     * @return the congestion control {@link #congestion} asks for on the connection to rank {@code r}, or null for
     *         the system's default
     */
    private String congestionControlFor(final int r) {
        switch (congestion) {
            case "system":
                return null;
            case "auto":
                return sameHost[r] ? "cubic" : null;
            default:
                return congestion;
        }
    }

    /** @throws ParioException naming the property when it is neither auto, system nor a congestion control's name */
    private static void checkCongestionSetting(final String setting) {
        if ("auto".equals(setting) || "system".equals(setting)) {
            return;
        }
        if (setting.isEmpty() || setting.length() > Transports.CONGESTION_NAME_MAX
            || !setting.chars().allMatch(c -> c < 128 && (Character.isLetterOrDigit(c) || c == '_' || c == '-'))) {
            throw ParioException.argument("pario.tcpCongestion must be auto, system or the name of a TCP congestion "
                + "control (letters, digits, '_' or '-', at most " + Transports.CONGESTION_NAME_MAX
                + " characters), not '" + setting + "'");
        }
    }

    /**
     * Gives a connection about to open the congestion control asked for it; one the kernel refuses (not built in,
     * or not allowed to this user) leaves it at the system's default, logged once.
     */
    private void setCongestionControl(final SocketChannel ch) {
        final String algorithm = ch.attr(CONGESTION_CONTROL).get();
        final byte[] name = algorithm == null ? null : algorithm.getBytes(StandardCharsets.US_ASCII);
        final ChannelOption<ByteBuffer> option = name == null ? null : transport.congestionControl(name.length);
        if (option == null) {
            return;
        }
        try {
            ch.config().setOption(option, ByteBuffer.wrap(name));
        } catch (RuntimeException e) {
            if (CONGESTION_REFUSAL_LOGGED.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.WARNING, "TCP congestion control '" + algorithm + "' refused (" + e
                    + "); connections keep the system's default. Set pario.tcpCongestion=system to not ask for it.");
            }
        }
    }

    /**
     * @param peer another rank
     * @return the congestion control of the connection this rank opened to {@code peer}, as the kernel reports it,
     *         or null where the transport cannot tell (NIO)
     */
    public String congestionControl(final int peer) {
        final ChannelOption<ByteBuffer> query = transport.congestionControl(Transports.CONGESTION_NAME_MAX + 1);
        if (query == null || peer == rank) {
            return null;
        }
        // the kernel fills the name out with NULs
        final String name = StandardCharsets.US_ASCII.decode(outbound[peer].config().getOption(query)).toString();
        final int end = name.indexOf('\0');
        return end < 0 ? name : name.substring(0, end);
    }

    /** @return whether two ranks' advertised addresses are on one host: the same address, or both loopback */
    private static boolean sameHost(final InetSocketAddress a, final InetSocketAddress b) {
        final java.net.InetAddress x = a.getAddress();
        final java.net.InetAddress y = b.getAddress();
        return x != null && y != null && (x.equals(y) || x.isLoopbackAddress() && y.isLoopbackAddress());
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
        final Bootstrap b = new Bootstrap().group(group).channel(transport.channel())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_SNDBUF, socketBuffer)
            // only Gate.close closes these sockets (see there): never Netty on a failed write or read
            .option(ChannelOption.AUTO_CLOSE, false)
            .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(4 << 20, 16 << 20))
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, config.startupTimeoutMillis()))
            .handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(final SocketChannel ch) {
                    setCongestionControl(ch);
                    ch.attr(GATE).set(new Gate(ch, config.tls() == null && DIRECT_WRITES, unwritten));
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
                final String algorithm = congestionControlFor(r);
                pending[r] = (algorithm == null ? b : b.clone().attr(CONGESTION_CONTROL, algorithm)).connect(table[r]);
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

    /**
     * A thread that waits for a message drives the connections' event loop itself for up to {@link #DRIVE_NANOS}
     * ({@link DrivenEventLoop}); with the loop on threads of its own it only checks.
     */
    @Override
    public void waitBriefly(final CompletableFuture<?> f) {
        waitBriefly(f, false);
    }

    @Override
    public void waitBriefly(final CompletableFuture<?> f, final boolean prompt) {
        if (group instanceof DrivenEventLoop loop) {
            loop.driveUntil(f, DRIVE_NANOS, crowded, prompt);
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
        write(worldDest, Frames.data(outbound[worldDest].alloc(), m));
    }

    private static Gate gate(final Channel outboundChannel) {
        return outboundChannel.attr(GATE).get();
    }

    /** Writes a frame to rank {@code dest}'s connection, through its {@link Gate}. */
    private void write(final int dest, final ByteBuf frame, final ChannelFutureListener listener) {
        gate(outbound[dest]).write(frame, listener);
    }

    /** Writes a frame to rank {@code dest}'s connection; a failure makes {@code dest} depart. */
    private void write(final int dest, final ByteBuf frame) {
        write(dest, frame, f -> failedSend(dest, f));
    }
    /**
     * Largest message sent eagerly over a connection: larger ones, of any length, go by rendezvous, their data
     * waiting at the sender until the matching receive asks for it, so a receiver never holds large messages it has
     * not asked for. At and below it, the round trip that asking costs outweighs what waiting saves. ({@code
     * -Dpario.eagerMaxBytes}, at most 1 GiB)
     */
    static final long EAGER_MAX = Math.min(Message.CHUNK, Long.getLong("pario.eagerMaxBytes", 1 << 20));
    /**
     * Messages from this size to a rank of this host go by rendezvous through a shared-memory file, whatever
     * {@link #EAGER_MAX} says: the receiver unpacks straight from the file, with no socket copy.
     * ({@code -Dpario.sharedMemoryMinBytes})
     */
    static final long SHARED_MEMORY_MIN = Long.getLong("pario.sharedMemoryMinBytes", 256 << 10);
    /**
     * Smallest message staged in shared memory for which the rank owes its receiver progress, as for one waiting for
     * its receiver's request over the connection ({@code -Dpario.stagedOweMinBytes}, default 1 MiB; 0 makes every
     * staged message count). A smaller one is fetched from the file; all its receiver says over the connection is
     * that it is done with it, which the rank takes in at its next wait or send. Counting those, each wait that
     * ended before the receiver said so woke the background thread to drive the loop, on the cores the two ranks'
     * copies needed, and slowed exchanges of such messages. From a MiB the woken thread pays for itself, unpacking
     * the peer's next message while the rank's own thread combines or copies (docs/history/benchmarks-2026-11.md).
     */
    private static final long STAGED_OWE_MIN = Long.getLong("pario.stagedOweMinBytes", 1L << 20);
    /**
     * Eager bytes a sender may have in flight to one peer, not yet consumed by a receive there; beyond it, even
     * small messages wait at the sender (rendezvous), so a slow receiver holds at most this much unexpected data
     * per peer. ({@code -Dpario.eagerCreditBytes})
     */
    static final long EAGER_CREDIT = Long.getLong("pario.eagerCreditBytes", 4L << 20);
    /** A receiver returns credit once this much has been consumed: a quarter of the budget, one frame for many. */
    private static final long CREDIT_RETURN = EAGER_CREDIT / 4;
    /**
     * Whether the sockets may read message data straight into receive memory that is one run of a direct buffer
     * ({@link InPlaceReads}; {@code -Dpario.inPlaceReads=false} turns it off).
     */
    static final boolean IN_PLACE_READS = !"false".equals(System.getProperty("pario.inPlaceReads"));
    /**
     * On how many of the rank's connections data must stream into receives at once before the sockets read it in
     * place ({@code -Dpario.inPlaceMinStreams}, default 1: always; 2 reads a lone stream through the connection's
     * buffers, which measured faster on loopback under BBR congestion control, see {@link Frames.Decoder}).
     */
    private final int inPlaceMinStreams = Integer.getInteger("pario.inPlaceMinStreams", 1);
    /**
     * Rendezvous data is packed and sent in pieces of this size, each as soon as it is packed once the receiver has
     * asked, so that packing overlaps the transfer instead of coming before it ({@code
     * -Dpario.rendezvousPieceBytes}, default 4 MiB, at least 64 KiB). Smaller pieces measured slower for messages of
     * a few MiB (4 MiB broadcasts between 2 ranks, in 1 MiB pieces: about a quarter slower), where packing takes
     * little longer than the request's round trip anyway.
     */
    public static final int PIECE = Math.max(64 << 10, Integer.getInteger("pario.rendezvousPieceBytes", 4 << 20));
    /**
     * Pieces per block of a parked message's memory: 8 MiB worth ({@code -Dpario.rendezvousBlockBytes}), at least
     * one piece. Blocks rather than one buffer per message, so that a message beyond 2 GiB can wait at its sender,
     * and so that once its receiver asks, packing can stay a few blocks ahead of the socket ({@link #awaitRoom}):
     * the same few spare blocks serve the whole message, warm in the cache, instead of fresh memory of its size.
     */
    static final int BLOCK_PIECES = (int) Math.max(1, Long.getLong("pario.rendezvousBlockBytes", 8 << 20) / PIECE);
    /** What an eager message costs in credit: its bytes, and at least its envelope's worth. */
    private static long cost(final long bytes) {
        return Math.max(bytes, 64);
    }

    /**
     * The credit a receiver returns for an eager message it consumed: its cost, except for messages beyond 1 GiB,
     * which are sent in chunks without taking credit (returning some would let the sender exceed its budget).
     */
    private static long creditReturned(final long bytes) {
        return bytes > Message.CHUNK ? 0 : cost(bytes);
    }

    @Override
    public void send(final int worldDest, final int context, final int source, final int tag,
                     final org.pario.datatypes.Memory memory, final org.pario.datatypes.Datatype type,
                     final long count, final int[] group) {
        final long bytes = org.pario.datatypes.Packer.packedSize(type, count,
            org.pario.datatypes.DataRepresentation.NATIVE);
        if (worldDest == rank) {
            super.send(worldDest, context, source, tag, memory, type, count, group);
            return;
        }
        checkAlive(worldDest);
        final boolean viaSharedMemory = viaSharedMemory(worldDest, bytes);
        if (bytes > EAGER_MAX || viaSharedMemory || !reserveCredit(worldDest, cost(bytes))) {
            park(worldDest, context, source, tag, memory, type, count, bytes);
            return;
        }
        final ByteBuffer region;
        try {
            region = bytes >= eagerInPlaceMin && type.isContiguous()
                ? memory.directRegion(memory.origin() + type.lb(), (int) bytes, false) : null;
        } catch (RuntimeException e) {
            // nothing was sent: the credit it reserved is not spent
            unreserveCredit(worldDest, cost(bytes));
            throw e;
        }
        if (region != null) {
            sendEagerInPlace(worldDest, context, source, tag, type, region, bytes);
            return;
        }
        // only when less than one return of credit is outstanding besides this message: the peer has consumed the
        // earlier large messages and is likely waiting for this one (the credit of consumed small ones comes back
        // only a quarter of the budget at a time, so some is always out)
        if (bytes >= eagerPieceMin && eagerInFlight.get(worldDest) - cost(bytes) < CREDIT_RETURN && type.isContiguous()
            && covers(memory, memory.origin() + type.lb(), bytes)) {
            sendEagerInPieces(worldDest, context, source, tag, memory, type, count, (int) bytes);
            return;
        }
        // packed straight into one direct frame buffer, which a gate can write to the socket at once; a large one is
        // kept beyond the write (which releases it once) to serve a later message
        final ByteBuf frame;
        try {
            frame = Frames.dataFrom(size -> direct(size, "send", bytes, worldDest, ""), context, source, tag,
                memory, type, count, (int) bytes).retain();
        } catch (RuntimeException e) {
            // nothing was sent: the credit it reserved is not spent
            unreserveCredit(worldDest, cost(bytes));
            throw e;
        }
        write(worldDest, frame, f -> {
                spareBuffers.give(frame);
                failedSend(worldDest, f);
            });
    }

    /**
     * Smallest eager message written straight from the caller's memory when that is one run of a direct buffer
     * ({@code -Dpario.eagerInPlaceMinBytes}, default 64 KiB; above {@code pario.eagerMaxBytes} never): the frame's
     * header and the caller's bytes go to the socket in one gathering write, so the only copy on this side is the
     * kernel's, and the send returns once the socket has taken them all. Packing first cost a 1 MiB message most of
     * a copy of it before its first byte left; below 64 KiB the two make no difference
     * (docs/history/benchmarks-2026-11.md).
     */
    private final long eagerInPlaceMin = Long.getLong("pario.eagerInPlaceMinBytes", 64 << 10);

    /**
     * Writes an eager message's frame from the caller's direct memory and waits until the socket has taken it: the
     * caller may change that memory once the send returns. Its credit was reserved by the caller.
     */
    private void sendEagerInPlace(final int dest, final int context, final int source, final int tag,
                                  final org.pario.datatypes.Datatype type, final ByteBuffer region, final long bytes) {
        sentEagerInPlace.addAndGet(bytes);
        final CompletableFuture<Void> written = new CompletableFuture<>();
        write(dest, Frames.dataInPlace(outbound[dest].alloc(), context, source, tag, type, region), f -> {
            if (f.isSuccess()) {
                written.complete(null);
            } else {
                written.completeExceptionally(f.cause());
                failedSend(dest, f);
            }
        });
        waitBriefly(written);
        try {
            written.join();
        } catch (java.util.concurrent.CompletionException e) {
            throw sendFailed(dest, bytes, e.getCause());
        }
    }

    /**
     * Smallest eager message from one run of memory other than a direct buffer (a heap array) packed in pieces as it
     * leaves ({@code -Dpario.eagerPieceMinBytes}; above {@code pario.eagerMaxBytes} never), see {@link
     * #sendEagerInPieces}. Pieces pay where the receiver waits idle for the message, and cost a little where both
     * ranks send and receive at once, as in an alltoall of 512 KiB messages; hence more than 512 KiB. Messages sent
     * while earlier ones to the same peer are still unconsumed there (a stream, such as a pipelined bcast's
     * segments) go whole, as pieces slowed them (docs/history/benchmarks-2026-11.md).
     */
    private final long eagerPieceMin = Long.getLong("pario.eagerPieceMinBytes", (512 << 10) + 1);
    /** The pieces of such a message ({@code -Dpario.eagerPieceBytes}). */
    private final int eagerPiece = Math.max(4 << 10, Integer.getInteger("pario.eagerPieceBytes", 256 << 10));

    /**
     * Sends an eager message whose data is one run of memory the socket cannot read (a heap array) packed a piece
     * at a time, each piece written into the socket as soon as it is packed: the receiver reads and unpacks one
     * while this thread packs the next, where packing the whole message first kept the receiver idle until the last
     * byte was packed. The pieces go through one small buffer of the sending thread's ({@link Gate#writeFilling}), so
     * packing writes memory still in the core's cache and the kernel copies from there. The send returns once every
     * piece is in the socket or handed to Netty, as a packed send does. Its credit was reserved by the caller; the
     * memory holds the run ({@link #covers}), so packing a piece cannot fail once the first has left.
     */
    private void sendEagerInPieces(final int dest, final int context, final int source, final int tag,
                                   final org.pario.datatypes.Memory memory, final org.pario.datatypes.Datatype type,
                                   final long count, final int bytes) {
        final ByteBuf frame;
        try {
            frame = Frames.dataHeaderFor(size -> direct(size, "send", bytes, dest, ""), context, source, tag, type,
                bytes).retain();
        } catch (RuntimeException e) {
            unreserveCredit(dest, cost(bytes));
            throw e;
        }
        sentEagerInPieces.addAndGet(bytes);
        final int header = frame.writerIndex();
        final long origin = memory.origin();
        final boolean filled = gate(outbound[dest]).writeFilling(frame, header + bytes, eagerPiece,
            (target, at, length, from) -> org.pario.datatypes.Packer.pack(memory, origin, type, count,
                org.pario.datatypes.DataRepresentation.NATIVE, from - header, target.nioBuffer(at, length), 0,
                length),
            f -> {
                spareBuffers.give(frame);
                failedSend(dest, f);
            });
        if (filled) {
            eagerPiecesFilledSocket.incrementAndGet();
        }
    }

    /**
     * Whether collectives' large sends leave from the caller's memory ({@code -Dpario.sendInPlace}, default true):
     * written from it when it is a direct buffer, packed from it piece by piece as the socket takes them otherwise.
     */
    private final boolean sendInPlace = !"false".equals(System.getProperty("pario.sendInPlace"));
    /**
     * Smallest message a collective sends in place ({@code -Dpario.sendInPlaceMinBytes}). Packing a rendezvous
     * message overlaps its request's round trip, and the sender's call returns once the data is packed; in place,
     * the sender waits for the round trip and for its receiver to drain the data. For messages of a few MiB that
     * wait costs more than the copy saves, for 16 MiB the two are even, and from 32 MiB in place wins. Eager
     * messages of 256 KiB to 1 MiB sent in place (a header and the memory in one gathering write) gained nothing
     * clear (docs/history/benchmarks-2026-11.md).
     */
    private final long sendInPlaceMin = Math.max(EAGER_MAX + 1,
        Long.getLong("pario.sendInPlaceMinBytes", 32L << 20));
    /**
     * The same where this host runs more ranks than it has cores ({@code -Dpario.crowdedSendInPlaceMinBytes}): CPU
     * time is then what the ranks are short of, and a copy saved counts for more than the wait.
     */
    private final long crowdedSendInPlaceMin = Math.max(EAGER_MAX + 1,
        Long.getLong("pario.crowdedSendInPlaceMinBytes", 2L << 20));

    /**
     * A message of at least {@code -Dpario.sendInPlaceMinBytes} ({@code -Dpario.crowdedSendInPlaceMinBytes} where
     * ranks outnumber cores) whose data is one run of a direct buffer goes by rendezvous straight from that memory,
     * with no packing: its pieces are written from it once the receiver asks, so the only copy on this side is the
     * kernel's. Anything else is sent (and packed) as {@link #send} does.
     */
    @Override
    public CompletableFuture<Void> sendInPlace(final int worldDest, final int context, final int source,
                                               final int tag, final org.pario.datatypes.Memory memory,
                                               final org.pario.datatypes.Datatype type, final long count,
                                               final int[] group) {
        final long bytes = org.pario.datatypes.Packer.packedSize(type, count,
            org.pario.datatypes.DataRepresentation.NATIVE);
        // one run of memory to a peer over a connection: the only kind that may leave from the caller's memory
        final boolean oneRunOverTcp = sendInPlace && worldDest != rank && !viaSharedMemory(worldDest, bytes)
            && type.isContiguous();
        final long from = memory.origin() + type.lb();
        // a run beyond what one buffer can address is never one direct buffer either
        final ByteBuffer region = !oneRunOverTcp || bytes < (crowded ? crowdedSendInPlaceMin : sendInPlaceMin)
            || bytes > Integer.MAX_VALUE ? null
            : memory.directRegion(from, (int) bytes, false);
        if (region == null) {
            if (oneRunOverTcp && bytes >= packLateMin && covers(memory, from, bytes)) {
                return sendPackedLate(worldDest, context, source, tag, memory, type, count, bytes);
            }
            return super.sendInPlace(worldDest, context, source, tag, memory, type, count, group);
        }
        checkAlive(worldDest);
        sentInPlace.addAndGet(bytes);
        final long id = ids.incrementAndGet();
        return announceFromCaller(id, new Parked(worldDest, null, null, Unpooled.wrappedBuffer(region), bytes),
            context, source, tag, type);
    }

    /**
     * Announces a message whose data stays in the caller's memory until its receiver asks for it.
     *
     * @return the message's future: done once nothing reads that memory any more
     */
    private CompletableFuture<Void> announceFromCaller(final long id, final Parked p, final int context,
                                                       final int source, final int tag,
                                                       final org.pario.datatypes.Datatype type) {
        synchronized (p) {
            // nothing to pack ahead: the pieces are written (or packed) from the caller's memory when asked for
            p.packedPieces = p.pieces;
            p.packed = true;
        }
        announce(id, p, Frames.rts(outbound[p.dest].alloc(), context, source, tag, MessageAccess.basicName(type),
            p.bytes, id, null, 0));
        return p.written;
    }

    /**
     * Smallest message from memory other than one run of a direct buffer that a collective sends packed piece by
     * piece as the socket takes it ({@code -Dpario.packLateMinBytes}).
     */
    private final long packLateMin = Math.max(EAGER_MAX + 1, Long.getLong("pario.packLateMinBytes", 16L << 20));
    /**
     * The pieces such a message is packed and written in ({@code -Dpario.packLatePieceBytes}, default 1 MiB): small
     * enough that a piece is still in the core's cache (2 MiB of L2 here) when the kernel copies it into the socket,
     * large enough that writing it costs few system calls (256 KiB pieces saved as much kernel copying but spent
     * it again in writes and wake-ups).
     */
    private final int packLatePiece = Math.max(64 << 10, Integer.getInteger("pario.packLatePieceBytes", 1 << 20));
    /** Pieces of such a message packed and not yet written, at most. */
    private static final int PACK_LATE_WINDOW = 2;

    /** @return whether {@code memory} holds bytes {@code [from, from + bytes)} */
    private static boolean covers(final org.pario.datatypes.Memory memory, final long from, final long bytes) {
        return from >= 0 && from <= memory.byteSize() - bytes;
    }

    /**
     * A large message of a collective whose data is not one run of a direct buffer: announced at once, and packed
     * only once its receiver asks, a piece at a time as the socket takes the previous ones, into a small buffer the
     * kernel copies from while it is still in the core's cache. Packed up front, the whole message would go through
     * memory twice more before the kernel read it (the collective leaves its buffers alone until the send is done,
     * so the data cannot change in between).
     */
    private CompletableFuture<Void> sendPackedLate(final int worldDest, final int context, final int source,
                                                   final int tag, final org.pario.datatypes.Memory memory,
                                                   final org.pario.datatypes.Datatype type, final long count,
                                                   final long bytes) {
        checkAlive(worldDest);
        packedLate.addAndGet(bytes);
        final long id = ids.incrementAndGet();
        return announceFromCaller(id, new Parked(worldDest, new LateData(id, memory, type, count), bytes,
            packLatePiece), context, source, tag, type);
    }

    /** The data of a message packed as it leaves ({@link #sendPackedLate}). */
    private record LateData(long id, org.pario.datatypes.Memory memory, org.pario.datatypes.Datatype type,
                            long count) {
    }

    /** @return why a message of {@code bytes} to {@code dest} was not sent: the rank's loss, if it is lost */
    private ParioException sendFailed(final int dest, final long bytes, final Throwable cause) {
        final ParioException lostRank = failureIn(new int[] {dest});
        return lostRank != null ? lostRank : new ParioException(ErrorCategory.TRANSPORT, "rank " + rank
            + " could not send the data of a message of " + bytes + " bytes to rank " + dest + ": " + cause, cause);
    }

    /** @return whether a message of {@code bytes} to {@code dest} goes through a shared-memory arena */
    private boolean viaSharedMemory(final int dest, final long bytes) {
        return sharedMemory != null && sameHost[dest] && bytes >= SHARED_MEMORY_MIN;
    }

    private boolean reserveCredit(final int dest, final long cost) {
        if (eagerInFlight.addAndGet(dest, cost) <= EAGER_CREDIT) {
            return true;
        }
        unreserveCredit(dest, cost);
        return false;
    }

    /** Gives back credit reserved for a message that was not sent. */
    private void unreserveCredit(final int dest, final long cost) {
        eagerInFlight.addAndGet(dest, -cost);
    }

    /**
     * A write to {@code dest} failed: it departs, but only {@link #SEND_FAILURE_GRACE_MILLIS} later. A peer that
     * leaves after an error says why (ABORT) on its own connection before it closes ours, and that reason, naming
     * the rank that failed first, is what the caller must hear; a write can fail before anyone has read it.
     */
    private void failedSend(final int dest, final io.netty.util.concurrent.Future<? super Void> f) {
        if (!f.isSuccess() && !closed.get()) {
            final IOException failure = new IOException("sending to rank " + dest + " failed: " + f.cause());
            try {
                group.schedule(() -> depart(dest, failure), SEND_FAILURE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                depart(dest, failure);
            }
        }
    }

    /**
     * A message whose data waits at the sender for its receiver's CTS; taken once, by its last write or a release.
     * A message sent over the connection is announced before its data is packed, and its data is packed and sent in
     * pieces of {@link #PIECE} bytes, each an RDATA frame of its own: a CTS that comes while the data is being packed
     * is answered with the pieces packed so far, and the packing thread sends each later one as soon as it is packed
     * (or, when packing fails, the reason). The pieces live in direct blocks of at most {@link #BLOCK_PIECES} pieces
     * each, made as packing reaches them and given back as soon as their pieces are written, so a message of any
     * length (beyond 2 GiB too) needs no single buffer of its size, and its memory goes as its data leaves. A
     * message staged in shared memory is announced first too, and packed there in chunks its receiver unpacks as
     * they are published ({@link #packStaged}); its data, if asked for over the connection, goes as one frame once
     * packed. A message sent in place ({@link #sendInPlace}) has no blocks: each piece goes as a header
     * and a slice of the caller's memory. Nor has one packed as it leaves ({@link #sendPackedLate}): each piece is
     * packed into a buffer of its own once the socket has taken all but one of those before it.
     */
    private static final class Parked {
        final int dest;
        /** The shared-memory file's buffer, or null for a message whose data goes over the connection. */
        final ByteBuf shared;
        final SharedMemory.Segment segment;
        /** Blocks of pieces, each with room for an RDATA header in front of every piece; null until packed into. */
        final AtomicReferenceArray<ByteBuf> blocks;
        /** The message's bytes, and the pieces they are sent in (at least one, for an empty message). */
        final long bytes;
        final int pieces;
        private final AtomicBoolean taken = new AtomicBoolean();
        /**
         * Holds on each block: one for this record until it is taken, and one per piece of it being written; whoever
         * drops the last gives the block back.
         */
        final AtomicIntegerArray holds;
        /** Guarded by this: whether the data is packed, why packing failed, and a CTS that came before either. */
        private boolean packed;
        private String failure;
        private long waitingReceiveId = -1;
        /** Released while still being packed: the packing thread releases it when done. */
        private boolean abandoned;
        /** Guarded by this: pieces packed so far, and pieces written or handed to Netty. */
        private int packedPieces;
        private int sentPieces;
        /** Guarded by this: blocks whose record hold was dropped once every piece of them was handed to Netty. */
        private int blocksHandedOver;
        /** Completed when a block goes back; what a packing thread far ahead of the socket waits for. */
        volatile CompletableFuture<Void> blockBack = new CompletableFuture<>();
        /**
         * The caller's own memory, for a message sent in place ({@link #sendInPlace}): its pieces are written from
         * there, with no blocks; null otherwise.
         */
        final ByteBuf inPlace;
        /** For a message packed as it leaves ({@link #sendPackedLate}): where its data is; null otherwise. */
        final LateData late;
        /** The bytes of each piece but the last. */
        final int pieceBytes;
        /** Guarded by this: whether a thread packs and writes pieces of a message packed as it leaves. */
        private boolean packingLate;
        /**
         * For a message sent in place or packed as it leaves: done once no write reads the caller's memory any
         * more.
         */
        final CompletableFuture<Void> written;
        /**
         * Guarded by this, for a message sent in place or packed as it leaves: piece writes not yet complete, and the
         * first that failed.
         */
        private int writesOut;
        private Throwable writeFailure;

        Parked(final int dest, final ByteBuf shared, final SharedMemory.Segment segment, final long bytes) {
            this(dest, shared, segment, null, bytes);
        }

        Parked(final int dest, final ByteBuf shared, final SharedMemory.Segment segment, final ByteBuf inPlace,
               final long bytes) {
            this(dest, shared, segment, inPlace, null, bytes, PIECE);
        }

        Parked(final int dest, final LateData late, final long bytes, final int pieceBytes) {
            this(dest, null, null, null, late, bytes, pieceBytes);
        }

        private Parked(final int dest, final ByteBuf shared, final SharedMemory.Segment segment,
                       final ByteBuf inPlace, final LateData late, final long bytes, final int pieceBytes) {
            this.dest = dest;
            this.shared = shared;
            this.segment = segment;
            this.inPlace = inPlace;
            this.late = late;
            this.written = inPlace == null && late == null ? null : new CompletableFuture<>();
            this.bytes = bytes;
            this.pieceBytes = pieceBytes;
            this.pieces = segment != null || bytes == 0 ? 1
                : Math.toIntExact((bytes + pieceBytes - 1) / pieceBytes);
            final int blockCount = segment != null || written != null ? 0 : (pieces + BLOCK_PIECES - 1) / BLOCK_PIECES;
            this.blocks = new AtomicReferenceArray<>(blockCount);
            this.holds = new AtomicIntegerArray(blockCount);
            for (int b = 0; b < blockCount; b++) {
                holds.set(b, 1);
            }
        }

        boolean take() {
            return taken.compareAndSet(false, true);
        }

        /** @return whether it was released while still being packed */
        synchronized boolean abandoned() {
            return abandoned;
        }

        /** @return the block that holds piece {@code i} */
        static int blockOf(final int i) {
            return i / BLOCK_PIECES;
        }

        /** @return where piece {@code i}'s RDATA header goes in its block; its data follows the header */
        static int pieceAt(final int i) {
            return i % BLOCK_PIECES * (PIECE + Frames.RDATA_HEADER);
        }

        int pieceLength(final int i) {
            return (int) Math.min(pieceBytes, bytes - (long) i * pieceBytes);
        }

        /** @return the bytes of block {@code b}: its pieces, each with its header */
        int blockBytes(final int b) {
            final int first = b * BLOCK_PIECES;
            final int last = Math.min(pieces, first + BLOCK_PIECES) - 1;
            return pieceAt(last) + Frames.RDATA_HEADER + pieceLength(last);
        }
    }

    /**
     * Announces the message (RTS) and packs the data into a buffer that waits here. For a peer on this host the
     * buffer is a shared-memory file whose path the announcement carries (SHM), so the receiver can unpack from
     * it directly, chunk by chunk as they are packed. Otherwise, or when no file can be made, a direct buffer, so
     * that the CTS round trip overlaps the packing.
     */
    private void park(final int dest, final int context, final int source, final int tag,
                      final org.pario.datatypes.Memory memory, final org.pario.datatypes.Datatype type,
                      final long count, final long bytes) {
        final Channel ch = outbound[dest];
        final long id = ids.incrementAndGet();
        final boolean staged = viaSharedMemory(dest, bytes) && bytes <= Message.CHUNK;
        if (staged && group instanceof DrivenEventLoop loop) {
            // takes in the word of receivers done with earlier messages, so that their space, warm in the cache, is
            // used again instead of fresh memory further on
            loop.pollOnce();
        }
        final SharedMemory.Segment segment = staged ? sharedMemory.takeMessage(dest, (int) bytes) : null;
        final Parked p = new Parked(dest, segment == null ? null
            : Unpooled.wrappedBuffer(segment.data((int) bytes)).clear(), segment, bytes);
        final ByteBuf announcement = Frames.rts(ch.alloc(), context, source, tag, MessageAccess.basicName(type),
            bytes, id, segment == null ? null : segment.arena().file().toString(),
            segment == null ? 0 : segment.offset());
        if (!announce(id, p, announcement)) {
            return;
        }
        if (segment != null) {
            packStaged(id, p, memory, type, count);
            return;
        }
        for (int i = 0; i < p.pieces; i++) {
            final int length = p.pieceLength(i);
            try {
                final int b = Parked.blockOf(i);
                if (p.blocks.get(b) == null) {
                    awaitRoom(p, b);
                    p.blocks.set(b, takeBlock(p, b));
                }
                org.pario.datatypes.Packer.pack(memory, memory.origin(), type, count,
                    org.pario.datatypes.DataRepresentation.NATIVE, (long) i * PIECE,
                    p.blocks.get(b).nioBuffer(Parked.pieceAt(i) + Frames.RDATA_HEADER, length), 0, length);
            } catch (RuntimeException e) {
                packingFailed(id, p, e);
                throw e;
            }
            synchronized (p) {
                p.packedPieces = i + 1;
                if (p.abandoned) {
                    break;
                }
                if (p.waitingReceiveId >= 0) {
                    // its receiver asked while this was packing: the piece goes now, while the next is packed
                    writePieces(p);
                }
            }
            if (i + 1 < p.pieces && group instanceof DrivenEventLoop loop) {
                // moves on what the socket did not take of the pieces written so far, on this thread
                loop.pollOnce();
            }
        }
        final boolean abandoned;
        final boolean allSent;
        synchronized (p) {
            p.packed = true;
            abandoned = p.abandoned;
            allSent = p.sentPieces == p.pieces;
        }
        if (abandoned) {
            release(p);
        } else if (allSent) {
            // only once the last piece is queued: a goodbye written after the parked set is empty then follows it
            parked.remove(id);
            release(p);
        }
    }

    /**
     * Packs an announced message staged in shared memory, a chunk at a time, publishing after each how much is
     * packed: its receiver unpacks each chunk as soon as it is published, while this thread packs the next. A
     * receiver that could not map the file and asked over the connection gets the data once all is packed; one that
     * let the message go meanwhile (it refused it) stops the packing, which then gives the space back.
     */
    private void packStaged(final long id, final Parked p, final org.pario.datatypes.Memory memory,
                            final org.pario.datatypes.Datatype type, final long count) {
        final int bytes = (int) p.bytes;
        final ByteBuffer data = p.shared.nioBuffer(0, bytes);
        try {
            for (int at = 0; at < bytes; at += SharedMemory.CHUNK_BYTES) {
                final int length = Math.min(SharedMemory.CHUNK_BYTES, bytes - at);
                org.pario.datatypes.Packer.pack(memory, memory.origin(), type, count,
                    org.pario.datatypes.DataRepresentation.NATIVE, at, data, at, length);
                p.segment.publish(at + length);
                if (p.abandoned()) {
                    break;
                }
            }
        } catch (RuntimeException e) {
            // the receiver stops reading at this count, then asks over the connection and is told why
            p.segment.publish(SharedMemory.PACKING_FAILED);
            packingFailed(id, p, e);
            final boolean abandoned;
            synchronized (p) {
                p.packed = true;
                abandoned = p.abandoned;
            }
            if (abandoned) {
                release(p);
            }
            throw e;
        }
        p.shared.writerIndex(bytes);
        final boolean abandoned;
        final long waiting;
        synchronized (p) {
            p.packed = true;
            abandoned = p.abandoned;
            waiting = p.waitingReceiveId;
        }
        if (abandoned) {
            release(p);
        } else if (waiting >= 0) {
            sendParked(id, p, waiting);
        }
    }

    /**
     * Writes the pieces packed and not yet sent to the receive that asked for them, each as an RDATA frame of its
     * own (caller holds {@code p}'s lock, so pieces leave in order, and the request is known).
     */
    private void writePieces(final Parked p) {
        if (p.late != null) {
            packLate(p);
            return;
        }
        final long receiveId = p.waitingReceiveId;
        final Gate gate = gate(outbound[p.dest]);
        if (p.inPlace != null) {
            for (; p.sentPieces < p.packedPieces; p.sentPieces++) {
                final int length = p.pieceLength(p.sentPieces);
                // header and data in one frame, so no other frame can come between them
                final ByteBuf frame = Unpooled.wrappedBuffer(
                    Frames.rdataHeader(outbound[p.dest].alloc(), receiveId, length),
                    p.inPlace.retainedSlice((int) ((long) p.sentPieces * p.pieceBytes), length));
                p.writesOut++;
                gate.write(frame, f -> {
                        pieceWrittenFromCaller(p, f);
                        failedSend(p.dest, f);
                    });
            }
            return;
        }
        for (; p.sentPieces < p.packedPieces; p.sentPieces++) {
            final int i = p.sentPieces;
            final int b = Parked.blockOf(i);
            // a slice that shares the block and counts as a reference to it: the write releases it
            final ByteBuf frame = Frames.rdataInFront(p.blocks.get(b).retainedSlice(Parked.pieceAt(i),
                Frames.RDATA_HEADER + p.pieceLength(i)).readerIndex(Frames.RDATA_HEADER), receiveId);
            p.holds.incrementAndGet(b);
            gate.write(frame, f -> {
                    dropHold(p, b);
                    failedSend(p.dest, f);
                });
            if (i + 1 == p.pieces || Parked.blockOf(i + 1) != b) {
                // the block's last piece is on its way: the block goes back as soon as its writes are done
                p.blocksHandedOver = b + 1;
                dropHold(p, b);
            }
        }
    }

    /**
     * Packs and writes the next pieces of a message packed as it leaves, while fewer than {@link #PACK_LATE_WINDOW}
     * wait for the socket; each finished write calls this again (caller holds {@code p}'s lock). The record leaves
     * the parked set once its last piece is handed over.
     */
    private void packLate(final Parked p) {
        if (p.packingLate) {
            // a write finished within a write of the loop below: the loop goes on
            return;
        }
        p.packingLate = true;
        try {
            final Gate gate = gate(outbound[p.dest]);
            while (p.sentPieces < p.pieces && p.writesOut < PACK_LATE_WINDOW && p.writeFailure == null
                && !p.taken.get()) {
                final int length = p.pieceLength(p.sentPieces);
                final ByteBuf frame;
                try {
                    frame = direct(Frames.RDATA_HEADER + length, "send", p.bytes, p.dest, "");
                } catch (ParioException e) {
                    packLateFailed(p, e);
                    break;
                }
                try {
                    org.pario.datatypes.Packer.pack(p.late.memory(), p.late.memory().origin(), p.late.type(),
                        p.late.count(), org.pario.datatypes.DataRepresentation.NATIVE,
                        (long) p.sentPieces * p.pieceBytes, frame.nioBuffer(Frames.RDATA_HEADER, length), 0, length);
                } catch (RuntimeException e) {
                    frame.release();
                    packLateFailed(p, e);
                    break;
                }
                frame.writerIndex(Frames.RDATA_HEADER + length).readerIndex(Frames.RDATA_HEADER);
                // one reference for the write, which releases it, and one to give the buffer back for the next piece
                Frames.rdataInFront(frame, p.waitingReceiveId).retain();
                p.sentPieces++;
                p.writesOut++;
                gate.write(frame, f -> {
                        spareBuffers.give(frame);
                        pieceWrittenFromCaller(p, f);
                        failedSend(p.dest, f);
                    });
            }
            if ((p.sentPieces == p.pieces || p.writeFailure != null) && p.take()) {
                // only once the last piece is queued: a goodbye written after the parked set is empty follows it
                parked.remove(p.late.id());
            }
            finishFromCaller(p);
        } finally {
            p.packingLate = false;
        }
    }

    /**
     * Packing a piece of a message packed as it leaves failed (the checks before it was announced make that
     * unexpected): its receiver is told why no more data comes, and the send fails with the reason.
     */
    private void packLateFailed(final Parked p, final RuntimeException e) {
        p.failure = "rank " + rank + " could not send the data of this message: " + e.getMessage();
        p.writeFailure = e;
        refuseParked(p.late.id(), p, p.waitingReceiveId);
    }

    /** One piece of a message sent in place or packed as it leaves is written, or its write failed. */
    private void pieceWrittenFromCaller(final Parked p, final io.netty.util.concurrent.Future<? super Void> f) {
        synchronized (p) {
            p.writesOut--;
            if (!f.isSuccess() && p.writeFailure == null) {
                p.writeFailure = f.cause();
            }
            if (p.late != null) {
                packLate(p);
            } else {
                finishFromCaller(p);
            }
        }
    }

    /**
     * Completes the future of a message sent in place or packed as it leaves once its record is released and no
     * write of it is under way: from then on nothing reads the caller's memory (caller holds {@code p}'s lock).
     */
    private void finishFromCaller(final Parked p) {
        if (!p.taken.get() || p.writesOut > 0 || p.written.isDone()) {
            return;
        }
        if (p.failure != null && p.writeFailure instanceof ParioException e) {
            // packing failed: the caller hears that reason, as a sender that packs up front would
            p.written.completeExceptionally(e);
        } else if (p.writeFailure != null) {
            p.written.completeExceptionally(sendFailed(p.dest, p.bytes, p.writeFailure));
        } else if (p.sentPieces < p.pieces && departed(p.dest)) {
            p.written.completeExceptionally(sendFailed(p.dest, p.bytes,
                new IOException("rank " + p.dest + " left before it asked for the data")));
        } else {
            // every piece written, or the receiver let the data go (its receive ended another way)
            p.written.complete(null);
        }
    }

    /** Drops one hold on a block of a parked message, giving the block back with the last. */
    private void dropHold(final Parked p, final int b) {
        if (p.holds.decrementAndGet(b) == 0) {
            final ByteBuf block = p.blocks.get(b);
            if (block != null) {
                spareBuffers.give(block);
            }
            p.blockBack.complete(null);
        }
    }

    /**
     * Drops the record's hold on every block of a parked message it still holds: each goes back once its pieces are
     * written.
     */
    private void dropHolds(final Parked p) {
        final int from;
        synchronized (p) {
            from = p.blocksHandedOver;
            p.blocksHandedOver = p.holds.length();
        }
        for (int b = from; b < p.holds.length(); b++) {
            dropHold(p, b);
        }
    }

    /**
     * @return a new block for the pieces of block {@code b} of a parked message
     * @throws ParioException (MEMORY) when no direct memory is left for it: a message whose receive has not asked
     *     for it must be held whole, and the JVM's direct memory is bounded ({@code -XX:MaxDirectMemorySize}, by
     *     default the heap's maximum)
     */
    private ByteBuf takeBlock(final Parked p, final int b) {
        return direct(p.blockBytes(b), "hold", p.bytes, p.dest, " until its receive asks for the data ("
            + (long) b * BLOCK_PIECES * PIECE + " bytes of it packed; raise -XX:MaxDirectMemorySize, or post the "
            + "receive before the send)");
    }

    /**
     * @return a direct buffer of at least {@code size} bytes for a message of {@code messageBytes} to {@code dest}
     * @throws ParioException (MEMORY) when the JVM's direct memory is exhausted: "rank R has no direct memory left
     *     to VERB a message of N bytes for rank D" and the {@code detail}
     */
    private ByteBuf direct(final int size, final String verb, final long messageBytes, final int dest,
                           final String detail) {
        try {
            return spareBuffers.take(size);
        } catch (OutOfMemoryError e) {
            throw new ParioException(ErrorCategory.MEMORY, "rank " + rank + " has no direct memory left to " + verb
                + " a message of " + messageBytes + " bytes for rank " + dest + detail + ": " + e.getMessage(), e);
        }
    }

    /**
     * Before block {@code b} of a message whose receiver streams its data is packed, waits until block {@code b - 2}
     * has been written: packing stays at most two blocks ahead of the socket, so the message holds a few blocks of
     * memory however long it is, and those are spares reused from block to block rather than fresh memory whose
     * pages must be faulted in. A message whose receiver has not asked is packed whole (sends are buffered).
     */
    private void awaitRoom(final Parked p, final int b) {
        if (b < 2) {
            return;
        }
        while (true) {
            final CompletableFuture<Void> back = new CompletableFuture<>();
            p.blockBack = back;
            synchronized (p) {
                if (p.waitingReceiveId < 0 || p.abandoned) {
                    return;
                }
            }
            if (p.holds.get(b - 2) == 0 || departed(p.dest)) {
                return;
            }
            // a peer that stops reading is declared lost within the failure timeout, which fails the writes
            waitBriefly(back);
            back.join();
        }
    }

    /**
     * @return whether a parked message needs this rank's loop driven while no thread waits: one waiting for its
     *     receiver's request over the connection, or a large staged one (see {@link #STAGED_OWE_MIN})
     */
    private boolean owesProgress() {
        if (parked.isEmpty()) {
            return false;
        }
        for (final Parked p : parked.values()) {
            if (p.segment == null || p.bytes >= STAGED_OWE_MIN) {
                return true;
            }
        }
        return false;
    }

    /**
     * Records a parked message and announces it.
     *
     * @return false when its receiver has left: nothing is announced and the buffer is freed (a failed receiver
     *     fails this send)
     */
    private boolean announce(final long id, final Parked p, final ByteBuf announcement) {
        parked.put(id, p);
        if (p.segment == null && group instanceof DrivenEventLoop loop) {
            // its request may come while this thread does something else: the loop must not sleep through it. A
            // message staged in shared memory is fetched from there, and its receiver's word that it is done can
            // wait for this rank's next wait or send: waking the loop's thread for it cost the cores a 1 MiB message
            // needed
            loop.owing();
        }
        if (departed(p.dest)) {
            announcement.release();
            synchronized (p) {
                // nothing will be packed into it any more
                p.packed = true;
            }
            release(parked.remove(id));
            checkAlive(p.dest);
            return false;
        }
        write(p.dest, announcement);
        return true;
    }

    /**
     * Packing an announced message failed: its receiver, once it asks, is told why instead of getting data
     * (NODATA), so its receive fails rather than waits.
     */
    private void packingFailed(final long id, final Parked p, final RuntimeException e) {
        final long waiting;
        synchronized (p) {
            p.failure = "rank " + rank + " could not send the data of this message: " + e.getMessage();
            waiting = p.waitingReceiveId;
        }
        // a staged message's space goes once its receiver, which may still read what was published, has asked
        if (p.segment == null && p.take()) {
            dropHolds(p);
        }
        if (waiting >= 0) {
            refuseParked(id, p, waiting);
        }
    }

    /** Tells the receive that asked for a message whose packing failed why no data comes. */
    private void refuseParked(final long id, final Parked p, final long receiveId) {
        if (!departed(p.dest)) {
            write(p.dest, Frames.noData(outbound[p.dest].alloc(), receiveId, p.failure), f -> { });
        }
        parked.remove(id);
        if (p.segment != null) {
            release(p);
        }
    }

    private void release(final Parked p) {
        if (p == null) {
            return;
        }
        synchronized (p) {
            if (!p.packed && p.failure == null) {
                // the packing thread still writes into the buffer: it must not serve another message yet; if it
                // waits for the socket to drain, it stops waiting
                p.abandoned = true;
                p.blockBack.complete(null);
                return;
            }
        }
        if (p.take()) {
            if (p.segment != null) {
                p.shared.release();
                p.segment.release();
            } else if (p.written != null) {
                synchronized (p) {
                    finishFromCaller(p);
                }
            } else {
                dropHolds(p);
            }
        }
    }

    /** A peer asks for (or lets us drop) the data of a parked message: sent as one RDATA frame. */
    private void clearToSend(final int peer, final Frames.Cts cts) {
        final Parked p = parked.get(cts.sendId());
        if (p == null || p.dest != peer) {
            LOG.log(System.Logger.Level.WARNING, "rank " + rank + " ignored a request from rank " + peer
                + " for data it does not hold (send " + cts.sendId() + ")");
            return;
        }
        if (cts.receiveId() < 0) {
            release(parked.remove(cts.sendId()));
            return;
        }
        final String failure;
        synchronized (p) {
            failure = p.failure;
            if (failure == null && p.segment == null && !p.abandoned) {
                // the pieces packed so far go now; the packing thread sends the others as it packs them
                p.waitingReceiveId = cts.receiveId();
                writePieces(p);
                if (!p.packed || p.abandoned || p.late != null) {
                    // a message packed as it leaves leaves the parked set with its last piece
                    return;
                }
            } else if (!p.packed && failure == null) {
                p.waitingReceiveId = cts.receiveId();
                return;
            }
        }
        if (failure != null) {
            refuseParked(cts.sendId(), p, cts.receiveId());
        } else if (p.segment == null) {
            // only once the last piece is queued: a goodbye written after the parked set is empty then follows it
            parked.remove(cts.sendId());
            release(p);
        } else {
            sendParked(cts.sendId(), p, cts.receiveId());
        }
    }

    /**
     * Writes the data of a message staged in shared memory, whose receiver could not map the file, to the receive
     * that asked for it, as one RDATA frame.
     */
    private void sendParked(final long id, final Parked p, final long receiveId) {
        if (!p.take()) {
            return;
        }
        final int peer = p.dest;
        final Channel ch = outbound[peer];
        // header and data in one write, so no other frame can come between them
        final ByteBuf frame = Unpooled.wrappedBuffer(Frames.rdataHeader(ch.alloc(), receiveId,
            p.shared.readableBytes()), p.shared);
        write(peer, frame, f -> {
                p.segment.release();
                failedSend(peer, f);
            });
        // only once the write is queued: a goodbye written after the parked set is empty then follows the data
        parked.remove(id);
    }

    /** The receive side of a parked message: asks for its data when a receive has matched it. */
    private final class RemotePull implements org.pario.comm.internal.Pull {
        private final int peer;
        private final long sendId;
        private final long bytes;
        /** The shared-memory file that holds the data too, or null; and where in it. */
        private final String shmPath;
        private final long shmOffset;

        RemotePull(final int peer, final long sendId, final long bytes, final String shmPath, final long shmOffset) {
            this.peer = peer;
            this.sendId = sendId;
            this.bytes = bytes;
            this.shmPath = shmPath;
            this.shmOffset = shmOffset;
        }

        @Override
        public CompletableFuture<Void> fetch(final org.pario.datatypes.Memory memory,
                                             final org.pario.datatypes.Datatype type, final long count) {
            if (shmPath != null && sharedMemory != null) {
                final CompletableFuture<Void> local = fromSharedMemory(memory, type, count);
                if (local != null) {
                    return local;
                }
            }
            final Incoming in = new Incoming(peer, memory, type, count, bytes);
            final long id = ids.incrementAndGet();
            incoming.put(id, in);
            // before the request goes: the data may arrive, and its sender leave, before this thread goes on
            in.done.whenComplete((v, e) -> incoming.remove(id));
            if (departed(peer)) {
                failTransfer(in.done, peer);
                return in.done;
            }
            final Channel ch = outbound[peer];
            write(peer, Frames.cts(ch.alloc(), sendId, id));
            return in.done;
        }

        /**
         * Unpacks the data from the sender's shared-memory file and lets the sender drop it.
         *
         * @return the completed (or, if unpacking failed, failed) transfer, or null when the file cannot be
         *     mapped here and the data must come over the connection
         */
        private CompletableFuture<Void> fromSharedMemory(final org.pario.datatypes.Memory memory,
                                                         final org.pario.datatypes.Datatype type, final long count) {
            final SharedMemory.Staged staged;
            try {
                staged = sharedMemory.staged(shmPath, shmOffset, bytes);
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "rank " + rank + " fetches over the connection: " + e);
                return null;
            }
            final java.nio.ByteBuffer source = staged.data();
            final long stallNanos = TimeUnit.MILLISECONDS.toNanos(failureTimeoutMillis);
            final java.util.function.BooleanSupplier senderLeft = () -> departed(peer);
            long unpacked = 0;
            try {
                while (unpacked < bytes) {
                    final long packed = staged.awaitMore(unpacked, stallNanos, senderLeft);
                    if (packed == SharedMemory.PACKING_FAILED) {
                        // the sender says why over the connection
                        LOG.log(System.Logger.Level.DEBUG, "rank " + peer + " could not pack send " + sendId);
                        return null;
                    }
                    if (packed < 0) {
                        // a sender that still runs stops packing and frees the space
                        discard();
                        return CompletableFuture.failedFuture(stopped(packed, unpacked));
                    }
                    org.pario.datatypes.Packer.unpack(source, (int) unpacked, (int) (packed - unpacked), memory,
                        memory.origin(), type, count, org.pario.datatypes.DataRepresentation.NATIVE, unpacked);
                    unpacked = packed;
                }
            } catch (RuntimeException e) {
                discard();
                return CompletableFuture.failedFuture(e);
            }
            discard();
            return CompletableFuture.completedFuture(null);
        }

        /** @return why a receive gave up waiting for the next chunk of a staged message */
        private ParioException stopped(final long why, final long unpacked) {
            final String arrived = " (" + unpacked + " of its " + bytes + " bytes in shared memory had arrived)";
            if (departed(peer)) {
                final ParioException gone = lost(peer);
                return new ParioException(gone.category(), gone.getMessage() + arrived, gone);
            }
            return new ParioException(ErrorCategory.TRANSPORT, "rank " + peer + (why == SharedMemory.SENDER_GONE
                ? "'s process ended" : " packed nothing more for " + failureTimeoutMillis + " ms")
                + " while it packed a message for this rank" + arrived);
        }

        @Override
        public void discard() {
            if (!departed(peer)) {
                final Channel ch = outbound[peer];
                write(peer, Frames.cts(ch.alloc(), sendId, -1), f -> { });
            }
        }
    }

    /**
     * Arriving bytes of one message, unpacked in order into a receive buffer laid out as {@code count x type}. A
     * failed unpack skips the rest of the message's bytes, so the connection stays in step.
     */
    private abstract static class Unpacking implements Frames.Landing {
        final int peer;
        final long total;
        private final org.pario.datatypes.Memory memory;
        private final org.pario.datatypes.Datatype type;
        private final long count;
        private long received;
        private RuntimeException failure;
        /** The receive memory as one run of a direct buffer, null if it is not; looked up at the first read. */
        private ByteBuffer region;
        private boolean regionLookedUp;
        /** The last buffer over the receive memory given to the socket: its bytes are in place already. */
        private ByteBuf inPlace;

        Unpacking(final int peer, final org.pario.datatypes.Memory memory, final org.pario.datatypes.Datatype type,
                  final long count, final long total) {
            this.peer = peer;
            this.memory = memory;
            this.type = type;
            this.count = count;
            this.total = total;
        }

        @Override
        public final void accept(final ByteBuf in, final int n) {
            if (failure == null && !given() && in != inPlace) {
                try {
                    org.pario.datatypes.Packer.unpack(in.nioBuffer(in.readerIndex(), n), 0, n, memory,
                        memory.origin(), type, count, org.pario.datatypes.DataRepresentation.NATIVE, received);
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
            in.skipBytes(n);
            received += n;
            if (received == total) {
                complete(failure);
            }
        }

        @Override
        public final ByteBuf space(final long left) {
            if (failure != null || given()) {
                return null;
            }
            if (!regionLookedUp) {
                regionLookedUp = true;
                // a run beyond what one buffer can address is never one direct buffer either
                if (type.isContiguous() && total <= Integer.MAX_VALUE) {
                    try {
                        region = memory.directRegion(memory.origin() + type.lb(), (int) total, true);
                    } catch (ParioException e) {
                        // a buffer too short for the message: unpacking reports it
                        region = null;
                    }
                }
            }
            if (region == null) {
                return null;
            }
            inPlace = Unpooled.wrappedBuffer(region.slice((int) received, (int) left)).clear();
            return inPlace;
        }

        /** @return how many of the message's bytes have arrived */
        final long received() {
            return received;
        }

        /** @return true when the receive has already been given an outcome: bytes still arriving are skipped */
        boolean given() {
            return false;
        }

        /** Every byte has arrived; {@code failure} is null when all of them landed. */
        abstract void complete(RuntimeException failure);
    }

    /** A receive buffer waiting for parked data: RDATA bytes are unpacked into it as they arrive. */
    private static final class Incoming extends Unpacking {
        final CompletableFuture<Void> done = new CompletableFuture<>();

        Incoming(final int peer, final org.pario.datatypes.Memory memory, final org.pario.datatypes.Datatype type,
                 final long count, final long total) {
            super(peer, memory, type, count, total);
        }

        @Override
        boolean given() {
            return done.isDone();
        }

        /**
         * A receive whose unpacking failed fails only once the rest of the message has arrived and been skipped:
         * completing it removes its id, and the pieces still coming for that id would then close the connection.
         */
        @Override
        void complete(final RuntimeException failure) {
            if (failure == null) {
                done.complete(null);
            } else {
                done.completeExceptionally(failure);
            }
        }
    }

    /** Where data arriving on one inbound connection goes; the peer is known once its hello has come. */
    private final class InboundLandings implements Frames.Landings {
        private final Channel channel;

        InboundLandings(final Channel channel) {
            this.channel = channel;
        }

        @Override
        public Scratch arrays() {
            return heldWhole;
        }

        @Override
        public Frames.Landing open(final long receiveId, final long length) {
            return land(receiveId, length);
        }

        @Override
        public void refused(final long receiveId, final String reason) {
            final Incoming in = incoming.get(receiveId);
            if (in != null) {
                in.done.completeExceptionally(new ParioException(ErrorCategory.TRANSPORT, reason));
            }
        }

        @Override
        public Frames.Landing expect(final int context, final int source, final int tag, final long length,
                                     final String type) {
            final Integer peer = channel.attr(PEER).get();
            if (peer == null) {
                return null;
            }
            final Endpoint.Claim claim = endpoint.claim(context, source, tag, length, type);
            if (claim == null) {
                return null;
            }
            landedInPlace.incrementAndGet();
            final EagerLanding landing = new EagerLanding(peer, claim, length);
            if (length == 0) {
                landing.complete(null);
            } else {
                landingFrom.set(peer, landing);
            }
            return landing;
        }
    }

    /**
     * An eager message a posted receive took when its envelope arrived: its bytes are unpacked into that
     * receive's buffer as they come, with no copy held in between.
     */
    private final class EagerLanding extends Unpacking {
        private final Endpoint.Claim claim;

        EagerLanding(final int peer, final Endpoint.Claim claim, final long total) {
            super(peer, claim.target().memory(), claim.target().type(), claim.target().count(), total);
            this.claim = claim;
        }

        @Override
        void complete(final RuntimeException failure) {
            landingFrom.compareAndSet(peer, this, null);
            final long cost = creditReturned(total);
            if (failure != null) {
                consumed(peer, cost);
                claim.failed(failure);
            } else {
                claim.landed(() -> consumed(peer, cost));
            }
        }
    }

    /**
     * The decoder's lookup: the receive that asked for this data, if it did and still expects that many bytes (the
     * data comes in pieces, in order, each its own frame).
     */
    private Frames.Landing land(final long receiveId, final long length) {
        final Incoming in = incoming.get(receiveId);
        if (in == null || length > in.total - in.received()) {
            return null;
        }
        if (length == 0) {
            in.done.complete(null);
        }
        return in;
    }

    /** An eager message from {@code peer} was consumed: return its credit, a quarter of the budget at a time. */
    private void consumed(final int peer, final long cost) {
        if (creditToReturn.addAndGet(peer, cost) >= CREDIT_RETURN && !departed(peer) && !closed.get()) {
            final long back = creditToReturn.getAndSet(peer, 0);
            if (back > 0) {
                final Channel ch = outbound[peer];
                write(peer, Frames.credit(ch.alloc(), back), f -> { });
            }
        }
    }

    /** A rank left: drop the data parked for it and fail the receives waiting for its data. */
    @Override
    protected void onDeparture(final int worldRank, final Throwable failure) {
        parked.entrySet().removeIf(e -> {
            if (e.getValue().dest == worldRank) {
                release(e.getValue());
                return true;
            }
            return false;
        });
        for (final Incoming in : incoming.values()) {
            if (in.peer == worldRank) {
                failTransfer(in.done, worldRank);
            }
        }
        final EagerLanding landing = landingFrom.getAndSet(worldRank, null);
        if (landing != null) {
            landing.claim.failed(lost(worldRank));
        }
    }

    /** Waits (at most the failure timeout) until every parked message has been fetched or its receiver left. */
    private void drainParked() {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(failureTimeoutMillis);
        while (!parked.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!parked.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "rank " + rank + " leaves with " + parked.size() + " message(s) "
                + "no receive has asked for");
        }
        parked.values().forEach(this::release);
        parked.clear();
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
        if (abortReason == null && !closed.get()) {
            // a normal finish: messages whose data still waits here must reach their receives first
            drainParked();
        }
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (final Channel ch : outbound) {
            if (ch != null && ch.isActive()) {
                final Gate gate = gate(ch);
                gate.write(abortReason == null ? Frames.bye(ch.alloc()) : Frames.abort(ch.alloc(), abortReason),
                    f -> gate.close());
            }
        }
        awaitClosed(outbound);
        server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        parked.values().forEach(this::release);
        parked.clear();
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
        final long[] unwritten = new long[channels.length];
        java.util.Arrays.fill(unwritten, -1);
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
                final io.netty.channel.ChannelOutboundBuffer buffer = ch.unsafe().outboundBuffer();
                final long left = buffer == null ? 0 : buffer.totalPendingWriteBytes();
                if (left != unwritten[i]) {
                    unwritten[i] = left;
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

    /** Registers a peer's connection; a second connection claiming the same rank is refused. */
    private synchronized boolean claim(final int peer, final Channel ch) {
        if (inboundChannels[peer] != null) {
            return false;
        }
        inboundChannels[peer] = ch;
        return true;
    }

    /** @return true once this rank has started to leave the job */
    public boolean leaving() {
        return leaving;
    }

    /** @return how many eager messages were unpacked into an already posted receive as they arrived */
    public long messagesLandedInPlace() {
        return landedInPlace.get();
    }

    /** @return how many bytes of message data the sockets read straight into receive memory, with no copy after */
    public long bytesReadInPlace() {
        return readInPlace.get();
    }

    /** @return how many bytes of message data collectives sent straight from the caller's memory, unpacked */
    public long bytesSentInPlace() {
        return sentInPlace.get();
    }

    /** @return how many bytes of eager messages were written straight from the caller's direct memory */
    public long bytesSentEagerInPlace() {
        return sentEagerInPlace.get();
    }

    /** @return how many bytes of eager messages were packed in pieces as they were written */
    public long bytesSentEagerInPieces() {
        return sentEagerInPieces.get();
    }

    /** @return how many eager messages sent in pieces filled their socket part way, their rest going through Netty */
    public long eagerMessagesThatFilledTheSocket() {
        return eagerPiecesFilledSocket.get();
    }

    /** @return bytes of collectives' messages packed piece by piece as the socket took them */
    public long bytesPackedLate() {
        return packedLate.get();
    }

    /** @return bytes of arrays kept for eager messages that arrive before their receive */
    public long arraysKeptForMessages() {
        return heldWhole.held();
    }

    /** @return how many messages' data waits here for their receivers to ask for it */
    public int parkedMessages() {
        return parked.size();
    }

    @Override
    public String transport() {
        return "TCP (" + transport.name() + ")";
    }

    /** @return the directory this rank stages shared-memory messages in, or null when it does not */
    public java.nio.file.Path sharedMemoryDirectory() {
        return sharedMemory == null ? null : sharedMemory.directory();
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
                final long cost = creditReturned(MessageAccess.bytes(m));
                endpoint.deliver(MessageAccess.whenConsumed(m, () -> consumed(peer, cost)));
            } else if (msg instanceof Frames.Rts r) {
                endpoint.deliver(MessageAccess.parked(r.context(), r.source(), r.tag(), r.length(), r.type(),
                    new RemotePull(peer, r.sendId(), r.length(), r.shmPath(), r.shmOffset())));
            } else if (msg instanceof Frames.Cts c) {
                clearToSend(peer, c);
            } else if (msg instanceof Frames.Credit c) {
                eagerInFlight.addAndGet(peer, -c.bytes());
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
            final Gate gate = gate(ctx.channel());
            ctx.writeAndFlush(Frames.hello(ctx.alloc(), rank, token)).addListener(f -> gate.helloDone());
            ctx.fireChannelActive();
        }

        @Override
        protected void channelRead0(final ChannelHandlerContext ctx, final Object msg) {
            // peers never write on connections we opened
        }

        @Override
        public void userEventTriggered(final ChannelHandlerContext ctx, final Object evt) {
            if (evt instanceof IdleStateEvent e && e.state() == IdleState.WRITER_IDLE && !closed.get()) {
                gate(ctx.channel()).write(Frames.heartbeat(ctx.alloc()), f -> { });
            }
        }

        @Override
        public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
            gate(ctx.channel()).close();
        }
    }
}
