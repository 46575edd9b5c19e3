package org.pario.bench;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;

import org.pario.comm.Communicator;
import org.pario.comm.Pario;
import org.pario.datatypes.Datatype;

/**
 * Where the time of one message goes between two ranks: rank 0 sends {@code size} bytes of a {@code double[]} to
 * rank 1, which answers with 8 bytes, {@code iterations} times, the same exchange as {@link SocketFloor} through
 * Pario. Both ranks note when each call returns ({@link System#nanoTime()}, one clock for all processes of a Linux
 * host), and rank 0 prints the median and mean, after the first fifth of the rounds, of: its send call, the time
 * from its return to the end of rank 1's receive, from there to the end of rank 0's receive of the answer, and the
 * whole round.
 *
 * <p>Usage: {@code pario launch -n 2 -- java -cp benchmarks.jar org.pario.bench.MessageTimeline SIZE ITERATIONS
 * [direct]} (with {@code -Dpario.sharedMemory=false} for the TCP path); {@code direct} sends from and receives into
 * a direct {@code ByteBuffer} instead of a {@code double[]}.
 */
public final class MessageTimeline {
    private MessageTimeline() {
    }

    /**
     * Runs the exchange on two ranks and prints rank 0's figures.
     *
     * @param args {@code SIZE ITERATIONS [direct]}
     */
    public static void main(final String[] args) {
        if (args.length < 2 || args.length > 3 || args.length == 3 && !"direct".equals(args[2])) {
            System.err.println("usage: MessageTimeline SIZE ITERATIONS [direct]");
            System.exit(2);
        }
        final int size = Integer.parseInt(args[0]);
        final int iterations = Integer.parseInt(args[1]);
        try (Communicator world = Pario.init()) {
            if (world.size() != 2) {
                throw new IllegalArgumentException("runs on 2 ranks, not " + world.size());
            }
            final int count = size / 8;
            final Object message = args.length == 3 ? ByteBuffer.allocateDirect(size) : new double[count];
            final double[] answer = new double[1];
            // per round: when the rank's first call began, when it returned, when its second call returned
            final long[] times = new long[3 * iterations];
            for (int i = 0; i < iterations; i++) {
                times[3 * i] = System.nanoTime();
                if (world.rank() == 0) {
                    world.send(message, count, Datatype.DOUBLE, 1, 0);
                    times[3 * i + 1] = System.nanoTime();
                    world.recv(answer, 1, Datatype.DOUBLE, 1, 0);
                } else {
                    world.recv(message, count, Datatype.DOUBLE, 0, 0);
                    times[3 * i + 1] = System.nanoTime();
                    world.send(answer, 1, Datatype.DOUBLE, 0, 0);
                }
                times[3 * i + 2] = System.nanoTime();
            }
            if (world.rank() == 1) {
                world.send(times, times.length, Datatype.INT64_T, 0, 1);
                return;
            }
            final long[] receiver = new long[times.length];
            world.recv(receiver, receiver.length, Datatype.INT64_T, 1, 1);
            final int from = iterations / 5;
            final long[][] phases = new long[4][iterations - from];
            for (int i = from; i < iterations; i++) {
                final long sent = times[3 * i + 1];
                final long received = receiver[3 * i + 1];
                phases[0][i - from] = sent - times[3 * i];
                phases[1][i - from] = received - sent;
                phases[2][i - from] = times[3 * i + 2] - received;
                phases[3][i - from] = times[3 * i + 2] - times[3 * i];
            }
            final String[] names = {"send call", "until received", "answer", "round"};
            final StringBuilder line = new StringBuilder(size + " B" + (args.length == 3 ? " direct" : "")
                + ", median / mean us:");
            for (int p = 0; p < phases.length; p++) {
                final double mean = Arrays.stream(phases[p]).average().orElse(0) / 1e3;
                Arrays.sort(phases[p]);
                line.append(String.format(Locale.ROOT, " %s %.0f / %.0f;", names[p],
                    phases[p][phases[p].length / 2] / 1e3, mean));
            }
            System.out.println(line);
        }
    }
}
