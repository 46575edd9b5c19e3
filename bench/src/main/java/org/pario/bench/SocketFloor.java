package org.pario.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What plain Java reaches between two JVMs over loopback TCP, with nothing of Pario in the way: the floor under
 * Pario's large-message times. One JVM sends a message of {@code size} bytes over a blocking socket channel and the
 * other answers with 8 bytes, {@code iterations} times; the sender prints the median and mean of the round trips
 * after the first fifth. In {@code direct} mode the message goes from and into direct buffers, as a C program's
 * would (two copies, both by the kernel); in {@code heap} mode it is first copied out of a {@code double[]} into a
 * direct buffer and after arrival back into one (four copies, as with any Java heap array: the JDK copies heap
 * buffers through direct ones too); in {@code pieces} mode the same four copies go {@link #PIECE} bytes at a time,
 * each piece written as soon as it is copied out and copied in as soon as it has arrived, so that the two JVMs'
 * copies overlap the transfer instead of coming before and after it; {@code spin} is {@code direct} over non-blocking
 * channels that both sides poll without ever sleeping, as the C stacks' progress loops do.
 *
 * <p>Usage: {@code java -cp benchmarks.jar org.pario.bench.SocketFloor SIZE direct|heap|pieces|spin ITERATIONS}; it
 * starts the receiving JVM itself.
 */
public final class SocketFloor {
    /** Bytes a {@code pieces} exchange copies and moves at a time. */
    static final int PIECE = 1 << 20;

    private SocketFloor() {
    }

    /**
     * Runs the exchange, starting the receiving JVM, and prints the sender's figures.
     *
     * @param args {@code SIZE direct|heap|pieces ITERATIONS}; the receiving JVM gets {@code --receiver PORT SIZE MODE
     *             ITERATIONS}
     * @throws Exception when a socket or the receiving JVM fails
     */
    public static void main(final String[] args) throws Exception {
        if (args.length == 5 && args[0].equals("--receiver")) {
            receive(Integer.parseInt(args[1]), Integer.parseInt(args[2]), args[3], Integer.parseInt(args[4]));
            return;
        }
        if (args.length != 3 || !List.of("direct", "heap", "pieces", "spin").contains(args[1])) {
            System.err.println("usage: SocketFloor SIZE direct|heap|pieces|spin ITERATIONS");
            System.exit(2);
        }
        final int size = Integer.parseInt(args[0]);
        if (size % Double.BYTES != 0) {
            throw new IllegalArgumentException("the size must be a whole number of doubles, not " + size);
        }
        final String mode = args[1];
        final int iterations = Integer.parseInt(args[2]);
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            final int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            final Process receiver = new ProcessBuilder(java, "-Xmx2g", "-cp", System.getProperty("java.class.path"),
                SocketFloor.class.getName(), "--receiver", Integer.toString(port), Integer.toString(size), args[1],
                Integer.toString(iterations)).inheritIO().start();
            try (SocketChannel ch = server.accept()) {
                ch.socket().setTcpNoDelay(true);
                ch.configureBlocking(!mode.equals("spin"));
                final long[] rounds = send(ch, size, mode, iterations);
                final long[] kept = Arrays.copyOfRange(rounds, iterations / 5, iterations);
                Arrays.sort(kept);
                System.out.printf(Locale.ROOT, "%s %d B: median %.1f us, mean %.1f us per message and 8 B answer%n",
                    args[1], size, kept[kept.length / 2] / 1e3, Arrays.stream(kept).average().orElse(0) / 1e3);
            } finally {
                if (!receiver.waitFor(30, TimeUnit.SECONDS)) {
                    receiver.destroyForcibly();
                }
            }
        }
    }

    private static long[] send(final SocketChannel ch, final int size, final String mode, final int iterations)
        throws IOException {
        final Buffers b = new Buffers(size);
        final long[] rounds = new long[iterations];
        for (int i = 0; i < iterations; i++) {
            final long start = System.nanoTime();
            b.message.clear();
            if (mode.equals("pieces")) {
                for (int at = 0; at < size; at += PIECE) {
                    final int length = Math.min(PIECE, size - at);
                    b.pieceDoubles.put(0, b.values, at / 8, length / 8);
                    writeFully(ch, b.piece.clear().limit(length));
                }
            } else {
                if (mode.equals("heap")) {
                    b.message.asDoubleBuffer().put(b.values);
                }
                writeFully(ch, b.message);
            }
            b.answer.clear();
            readFully(ch, b.answer);
            rounds[i] = System.nanoTime() - start;
        }
        return rounds;
    }

    /** The other JVM: receives each message whole, then answers. */
    private static void receive(final int port, final int size, final String mode, final int iterations)
        throws IOException {
        final Buffers b = new Buffers(size);
        try (SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            ch.socket().setTcpNoDelay(true);
            ch.configureBlocking(!mode.equals("spin"));
            for (int i = 0; i < iterations; i++) {
                b.message.clear();
                if (mode.equals("pieces")) {
                    for (int at = 0; at < size; at += PIECE) {
                        final int length = Math.min(PIECE, size - at);
                        readFully(ch, b.piece.clear().limit(length));
                        b.pieceDoubles.get(0, b.values, at / 8, length / 8);
                    }
                } else {
                    readFully(ch, b.message);
                    if (mode.equals("heap")) {
                        b.message.flip();
                        b.message.asDoubleBuffer().get(b.values);
                    }
                }
                b.answer.clear();
                writeFully(ch, b.answer);
            }
        }
    }

    /**
     * One side's buffers: the whole message, one piece's buffer (used again for every piece, so each piece is still
     * in the cache when it is moved on), the heap array and the answer.
     */
    private static final class Buffers {
        final ByteBuffer message;
        final ByteBuffer piece = ByteBuffer.allocateDirect(PIECE).order(ByteOrder.nativeOrder());
        final DoubleBuffer pieceDoubles = piece.asDoubleBuffer();
        final double[] values;
        final ByteBuffer answer = ByteBuffer.allocateDirect(8);

        Buffers(final int size) {
            message = ByteBuffer.allocateDirect(size).order(ByteOrder.nativeOrder());
            values = new double[size / 8];
        }
    }

    private static void writeFully(final SocketChannel ch, final ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    private static void readFully(final SocketChannel ch, final ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new IOException("the other JVM left");
            }
        }
    }
}
