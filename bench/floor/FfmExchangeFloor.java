import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What a {@code double[]} ping-pong over loopback TCP would cost if the kernel could read into and write from the
 * array itself, as it can from Java 22 on through the foreign function API ({@code Linker.Option.critical(true)}
 * with a heap segment), but not on Java 17, which Pario targets: there every heap byte is copied through direct
 * memory on each side ({@code org.pario.bench.ExchangeFloor heap}). The same exchange as {@code ExchangeFloor}
 * (half a round trip of the message both ways, polled sockets, cubic, no delay, pieces and reads of the same sizes),
 * with {@code read(2)} and {@code write(2)} called on the array's memory. A single-file program outside the Maven
 * build, which stays on Java 17; it needs Java 22 or later and opens {@code sun.nio.ch} to learn the socket's
 * descriptor.
 *
 * <p>Usage: {@code JAVA22/bin/java --enable-native-access=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED
 * bench/floor/FfmExchangeFloor.java SIZE ITERATIONS [PIECE [READ]]} (defaults 256 KiB and 64 KiB); it starts the
 * other JVM itself and prints the mean µs a message of each of 7 rounds, then the median of the last 5.
 */
public final class FfmExchangeFloor {
    private static final int ROUNDS = 7;
    private static final int COUNTED = 5;
    /** Linux's {@code IPPROTO_TCP} and {@code TCP_CONGESTION}. */
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_CONGESTION = 13;
    private static final MethodHandle READ;
    private static final MethodHandle WRITE;
    private static final MethodHandle SETSOCKOPT;

    static {
        final Linker linker = Linker.nativeLinker();
        final SymbolLookup libc = linker.defaultLookup();
        final FunctionDescriptor io = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG);
        // critical: the call may take a heap segment, the array itself, and is short enough to hold the GC off
        READ = linker.downcallHandle(libc.find("read").orElseThrow(), io, Linker.Option.critical(true));
        WRITE = linker.downcallHandle(libc.find("write").orElseThrow(), io, Linker.Option.critical(true));
        SETSOCKOPT = linker.downcallHandle(libc.find("setsockopt").orElseThrow(), FunctionDescriptor.of(
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    }

    private FfmExchangeFloor() {
    }

    public static void main(final String[] args) throws Throwable {
        final boolean answering = args.length > 1 && args[0].equals("--answer");
        final String[] a = answering ? Arrays.copyOfRange(args, 2, args.length) : args;
        if (a.length < 2 || a.length > 4) {
            System.err.println("usage: FfmExchangeFloor SIZE ITERATIONS [PIECE [READ]]");
            System.exit(2);
        }
        final int size = Integer.parseInt(a[0]);
        final int iterations = Integer.parseInt(a[1]);
        final long piece = a.length > 2 ? Long.parseLong(a[2]) : 256 << 10;
        final long read = a.length > 3 ? Long.parseLong(a[3]) : 64 << 10;
        if (size % Double.BYTES != 0) {
            throw new IllegalArgumentException("the size must be a whole number of doubles, not " + size);
        }
        final SocketChannel channel;
        Process other = null;
        if (answering) {
            channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[1])));
        } else {
            try (ServerSocketChannel server = ServerSocketChannel.open()) {
                server.bind(new InetSocketAddress("127.0.0.1", 0));
                final int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
                final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
                final String source = Path.of(FfmExchangeFloor.class.getProtectionDomain().getCodeSource()
                    .getLocation().toURI()).toString();
                final List<String> command = new java.util.ArrayList<>(List.of(java,
                    "--enable-native-access=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", source,
                    "--answer", Integer.toString(port)));
                command.addAll(List.of(a));
                other = new ProcessBuilder(command).inheritIO().start();
                channel = server.accept();
            }
        }
        channel.socket().setTcpNoDelay(true);
        channel.configureBlocking(false);
        final java.lang.reflect.Method fdOf = channel.getClass().getDeclaredMethod("getFDVal");
        fdOf.setAccessible(true);
        final int fd = (int) fdOf.invoke(channel);
        try (Arena arena = Arena.ofConfined()) {
            if ((int) SETSOCKOPT.invokeExact(fd, IPPROTO_TCP, TCP_CONGESTION, arena.allocateFrom("cubic"), 5) != 0) {
                throw new IOException("cannot set cubic congestion control");
            }
        }
        final double[] values = new double[size / Double.BYTES];
        Arrays.setAll(values, i -> i);
        final MemorySegment memory = MemorySegment.ofArray(values);
        final double[] rounds = new double[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            final long start = System.nanoTime();
            for (int i = 0; i < iterations; i++) {
                if (answering) {
                    receive(fd, memory, read);
                    send(fd, memory, piece);
                } else {
                    send(fd, memory, piece);
                    receive(fd, memory, read);
                }
            }
            rounds[r] = (System.nanoTime() - start) / 1e3 / iterations / 2;
            if (!answering) {
                System.out.printf(Locale.ROOT, "ffm-heap %d B, pieces %d, reads %d: round %d %.1f us a message%n",
                    size, piece, read, r, rounds[r]);
            }
        }
        if (!answering) {
            final double[] counted = Arrays.copyOfRange(rounds, ROUNDS - COUNTED, ROUNDS);
            Arrays.sort(counted);
            System.out.printf(Locale.ROOT, "ffm-heap %d B, pieces %d, reads %d: median %.1f us a message%n", size,
                piece, read, counted[COUNTED / 2]);
        }
        channel.close();
        if (other != null && !other.waitFor(30, TimeUnit.SECONDS)) {
            other.destroyForcibly();
        }
    }

    /** Writes the array a piece at a time straight from its memory, polling while the socket is full. */
    private static void send(final int fd, final MemorySegment memory, final long piece) throws Throwable {
        for (long at = 0; at < memory.byteSize(); ) {
            final long n = (long) WRITE.invokeExact(fd, memory.asSlice(at), Math.min(piece, memory.byteSize() - at));
            if (n > 0) {
                at += n;
            }
        }
    }

    /** Reads into the array's memory as bytes arrive, polling while none have. */
    private static void receive(final int fd, final MemorySegment memory, final long read) throws Throwable {
        for (long at = 0; at < memory.byteSize(); ) {
            final long n = (long) READ.invokeExact(fd, memory.asSlice(at), Math.min(read, memory.byteSize() - at));
            if (n > 0) {
                at += n;
            } else if (n == 0) {
                throw new IOException("the other JVM left");
            }
        }
    }
}
