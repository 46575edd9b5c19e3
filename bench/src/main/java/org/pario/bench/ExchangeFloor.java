package org.pario.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.RawUnixChannelOption;
import io.netty.util.internal.PlatformDependent;

/**
 * The floor of a ping-pong over loopback TCP between two JVMs with the socket handled as Pario handles it (Netty's
 * epoll socket, polled without sleeping, cubic congestion control, no delay) and nothing else in the way: what
 * plain Java can reach from direct memory and from a {@code double[]}, beside the C stacks' ping-pong
 * (bench/c/comm_bench.c) and Pario's ({@code pario bench comm}), all timed as half a round trip of the message both
 * ways.
 *
 * <p>{@code direct} writes the message from a direct buffer in pieces of {@code PIECE} bytes and reads it into one
 * in reads of at most {@code READ} bytes, the kernel's copies only, as a C program's. {@code heap} is the best a
 * heap array allows without native code: each piece is copied out of the {@code double[]} into one small direct
 * buffer used again for every piece (still in the cache when the kernel copies it into the socket) and written at
 * once, and each read lands in another small buffer whose whole doubles are copied into the array at once, so the
 * two extra copies overlap the transfer as far as one thread a side allows.
 *
 * <p>Usage: {@code java -cp benchmarks.jar org.pario.bench.ExchangeFloor SIZE direct|heap ITERATIONS [PIECE [READ]]}
 * (defaults 256 KiB pieces, 64 KiB reads); it starts the other JVM itself and prints, for each of
 * {@value #ROUNDS} rounds of {@code ITERATIONS} round trips, the mean µs a message, then the median of the last
 * {@value #COUNTED}.
 */
public final class ExchangeFloor {
    private static final int ROUNDS = 7;
    private static final int COUNTED = 5;
    /** Linux's {@code IPPROTO_TCP} and {@code TCP_CONGESTION}. */
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_CONGESTION = 13;

    private ExchangeFloor() {
    }

    /**
     * Runs the exchange, starting the other JVM, and prints the first's figures.
     *
     * @param args {@code SIZE direct|heap ITERATIONS [PIECE [READ]]}; the other JVM gets {@code --answer PORT} and
     *             the same
     * @throws Exception when a socket or the other JVM fails
     */
    public static void main(final String[] args) throws Exception {
        final boolean answering = args.length > 1 && args[0].equals("--answer");
        final String[] a = answering ? Arrays.copyOfRange(args, 2, args.length) : args;
        if (a.length < 3 || a.length > 5 || !List.of("direct", "heap").contains(a[1])) {
            System.err.println("usage: ExchangeFloor SIZE direct|heap ITERATIONS [PIECE [READ]]");
            System.exit(2);
        }
        final int size = Integer.parseInt(a[0]);
        if (size % Double.BYTES != 0) {
            throw new IllegalArgumentException("the size must be a whole number of doubles, not " + size);
        }
        final boolean heap = a[1].equals("heap");
        final int iterations = Integer.parseInt(a[2]);
        final int piece = a.length > 3 ? Integer.parseInt(a[3]) : 256 << 10;
        final int read = a.length > 4 ? Integer.parseInt(a[4]) : 64 << 10;
        if (piece % Double.BYTES != 0 || read < Double.BYTES) {
            throw new IllegalArgumentException("pieces must be whole doubles and reads at least one");
        }
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try {
            final Channel channel;
            Process other = null;
            if (answering) {
                channel = new Bootstrap().group(group).channel(EpollSocketChannel.class)
                    .option(ChannelOption.AUTO_READ, false).option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(final Channel ch) {
                        }
                    })
                    .connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[1]))).sync().channel();
            } else {
                final CompletableFuture<Channel> accepted = new CompletableFuture<>();
                final Channel server = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
                    .childOption(ChannelOption.AUTO_READ, false).childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(final Channel ch) {
                            accepted.complete(ch);
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
                final int port = ((InetSocketAddress) server.localAddress()).getPort();
                final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
                final List<String> command = new java.util.ArrayList<>(List.of(java, "-Xmx2g", "-cp",
                    System.getProperty("java.class.path"), ExchangeFloor.class.getName(), "--answer",
                    Integer.toString(port)));
                command.addAll(List.of(a));
                other = new ProcessBuilder(command).inheritIO().start();
                channel = accepted.get(60, TimeUnit.SECONDS);
                server.close();
            }
            final ByteBuffer cubic = ByteBuffer.allocateDirect(5).put("cubic".getBytes(StandardCharsets.US_ASCII))
                .flip();
            channel.config().setOption(new RawUnixChannelOption("TCP_CONGESTION", IPPROTO_TCP, TCP_CONGESTION, 5),
                cubic);
            final Side side = new Side(((EpollSocketChannel) channel).fd(), size, heap, piece, read);
            final double[] rounds = new double[ROUNDS];
            for (int r = 0; r < ROUNDS; r++) {
                final long start = System.nanoTime();
                for (int i = 0; i < iterations; i++) {
                    if (answering) {
                        side.receive();
                        side.send();
                    } else {
                        side.send();
                        side.receive();
                    }
                }
                rounds[r] = (System.nanoTime() - start) / 1e3 / iterations / 2;
                if (!answering) {
                    System.out.printf(Locale.ROOT, "%s %d B, pieces %d, reads %d: round %d %.1f us a message%n",
                        a[1], size, piece, read, r, rounds[r]);
                }
            }
            if (!answering) {
                final double[] counted = Arrays.copyOfRange(rounds, ROUNDS - COUNTED, ROUNDS);
                Arrays.sort(counted);
                System.out.printf(Locale.ROOT, "%s %d B, pieces %d, reads %d: median %.1f us a message%n", a[1],
                    size, piece, read, counted[COUNTED / 2]);
            }
            channel.close().sync();
            if (other != null && !other.waitFor(30, TimeUnit.SECONDS)) {
                other.destroyForcibly();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /** One JVM's end of the exchange: its socket, its memory, and how it moves a message. */
    private static final class Side {
        private final FileDescriptor socket;
        private final int size;
        private final boolean heap;
        private final int piece;
        private final int read;
        private final ByteBuffer message;
        private final long messageAddress;
        private final double[] values;
        private final ByteBuffer pieceBuffer;
        private final DoubleBuffer pieceDoubles;
        private final long pieceAddress;
        private final ByteBuffer landing;
        private final long landingAddress;

        Side(final FileDescriptor socket, final int size, final boolean heap, final int piece, final int read) {
            this.socket = socket;
            this.size = size;
            this.heap = heap;
            this.piece = piece;
            this.read = read;
            message = heap ? null : ByteBuffer.allocateDirect(size).order(ByteOrder.nativeOrder());
            messageAddress = heap ? 0 : PlatformDependent.directBufferAddress(message);
            values = heap ? new double[size / Double.BYTES] : null;
            pieceBuffer = ByteBuffer.allocateDirect(piece).order(ByteOrder.nativeOrder());
            pieceDoubles = pieceBuffer.asDoubleBuffer();
            pieceAddress = PlatformDependent.directBufferAddress(pieceBuffer);
            // room for a read and the few bytes of a double the read before left over
            landing = ByteBuffer.allocateDirect(read + Double.BYTES).order(ByteOrder.nativeOrder());
            landingAddress = PlatformDependent.directBufferAddress(landing);
            if (heap) {
                Arrays.setAll(values, i -> i);
            }
        }

        void send() throws IOException {
            for (int at = 0; at < size; at += piece) {
                final int length = Math.min(piece, size - at);
                if (heap) {
                    pieceDoubles.put(0, values, at / Double.BYTES, length / Double.BYTES);
                    writeFully(pieceAddress, length);
                } else {
                    writeFully(messageAddress + at, length);
                }
            }
        }

        void receive() throws IOException {
            if (!heap) {
                for (int at = 0; at < size; ) {
                    at += readSome(messageAddress + at, Math.min(read, size - at));
                }
                return;
            }
            int held = 0;
            for (int at = 0; at < size; ) {
                held += readSome(landingAddress + held, Math.min(read, size - at - held));
                final int whole = held / Double.BYTES;
                landing.asDoubleBuffer().get(0, values, at / Double.BYTES, whole);
                at += whole * Double.BYTES;
                final int rest = held - whole * Double.BYTES;
                for (int i = 0; i < rest; i++) {
                    landing.put(i, landing.get(whole * Double.BYTES + i));
                }
                held = rest;
            }
        }

        private void writeFully(final long address, final int length) throws IOException {
            for (int done = 0; done < length; ) {
                done += socket.writeAddress(address + done, 0, length - done);
            }
        }

        /** Polls until at least one byte has arrived; returns how many were read. */
        private int readSome(final long address, final int length) throws IOException {
            while (true) {
                final int n = socket.readAddress(address, 0, length);
                if (n > 0) {
                    return n;
                }
                if (n < 0) {
                    throw new IOException("the other JVM left");
                }
            }
        }
    }
}
