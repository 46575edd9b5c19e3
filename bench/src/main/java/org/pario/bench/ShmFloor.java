package org.pario.bench;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * The floor under Pario's shared-memory path: two processes ping-pong a {@code double[]} through one file in
 * {@code /dev/shm} with plain Java and nothing else, each message copied into the mapping by its sender and out of
 * it by its receiver, as Pario's staged messages are. In {@code slot} mode each direction has one slot of the
 * message's size and the sender publishes how much it has copied after every chunk, the receiver copying each chunk
 * out once published (a chunk of the message's size: one copy after the other); in {@code ring} mode each direction
 * has a ring of {@code CELLS} cells of one chunk, which the sender may fill only as the receiver empties them, as the
 * C stacks' shared-memory channels do. Prints rank 0's mean microseconds per message, once per round.
 *
 * <p>Usage, one process per side: {@code java -cp benchmarks.jar org.pario.bench.ShmFloor SIDE slot|ring BYTES
 * CHUNK CELLS MESSAGES} with SIDE 0 and 1 started together (CELLS is ignored in slot mode), for instance
 * {@code for s in 1 0; do java -cp bench/target/benchmarks.jar org.pario.bench.ShmFloor $s slot 1048576 65536 0
 * 2000 & done; wait}.
 */
public final class ShmFloor {
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
        ByteOrder.nativeOrder());
    private static final int ROUNDS = 5;
    /** Where the two directions' counts live, each on a cache line of its own; the data follows. */
    private static final int COUNTS = 4096;

    private ShmFloor() {
    }

    /**
     * Runs one side.
     *
     * @param args {@code SIDE slot|ring BYTES CHUNK CELLS MESSAGES}
     * @throws IOException if the file cannot be made or mapped
     */
    public static void main(final String[] args) throws IOException {
        if (args.length != 6 || !(args[1].equals("slot") || args[1].equals("ring"))) {
            System.err.println("usage: ShmFloor SIDE slot|ring BYTES CHUNK CELLS MESSAGES");
            System.exit(2);
        }
        final int side = Integer.parseInt(args[0]);
        final boolean ring = args[1].equals("ring");
        final int bytes = Integer.parseInt(args[2]);
        final int chunk = Math.min(bytes, Integer.parseInt(args[3]));
        final int cells = ring ? Integer.parseInt(args[4]) : 1;
        final int messages = Integer.parseInt(args[5]);
        final int space = ring ? chunk * cells : bytes;
        final Path file = Path.of("/dev/shm/pario-shm-floor");
        final MappedByteBuffer shared;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
            StandardOpenOption.WRITE)) {
            shared = ch.map(FileChannel.MapMode.READ_WRITE, 0, COUNTS + 2L * space);
        }
        final double[] mine = new double[bytes / 8];
        final double[] theirs = new double[bytes / 8];
        for (int i = 0; i < mine.length; i++) {
            mine[i] = i;
        }
        // direction d: chunks published at 256 d, chunks taken at 256 d + 128 (ring only), data at COUNTS + d space
        final DoubleBuffer[] data = new DoubleBuffer[2];
        for (int d = 0; d < 2; d++) {
            data[d] = shared.slice(COUNTS + d * space, space).order(ByteOrder.nativeOrder()).asDoubleBuffer();
        }
        final long[] published = new long[2];
        for (int round = 0; round < ROUNDS; round++) {
            final long start = System.nanoTime();
            for (int m = 0; m < messages; m++) {
                for (int d = 0; d < 2; d++) {
                    for (int at = 0; at < bytes; at += chunk) {
                        final int length = Math.min(chunk, bytes - at);
                        final long k = published[d];
                        final int cell = ring ? (int) (k % cells) * chunk : at;
                        if (d == side) {
                            while (ring && k - (long) LONGS.getAcquire(shared, 256 * d + 128) >= cells) {
                                Thread.onSpinWait();
                            }
                            data[d].put(cell / 8, mine, at / 8, length / 8);
                            LONGS.setRelease(shared, 256 * d, k + 1);
                        } else {
                            while ((long) LONGS.getAcquire(shared, 256 * d) <= k) {
                                Thread.onSpinWait();
                            }
                            data[d].get(cell / 8, theirs, at / 8, length / 8);
                            LONGS.setRelease(shared, 256 * d + 128, k + 1);
                        }
                        published[d] = k + 1;
                    }
                }
            }
            if (side == 0) {
                System.out.printf(Locale.ROOT, "%s %d B, chunks of %d%s: %.1f us per message%n", args[1], bytes,
                    chunk, ring ? " in " + cells + " cells" : "", (System.nanoTime() - start) / 1e3 / messages / 2);
            }
        }
        if (side == 0) {
            Files.deleteIfExists(file);
        }
    }
}
