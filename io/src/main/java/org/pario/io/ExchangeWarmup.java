package org.pario.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.datatypes.Datatype;
import org.pario.io.storage.Storage;

/**
 * Collective writes and reads of the ranks' data through their views, run in the background over a copy of the
 * communicator into a storage that keeps nothing: the exchange between ranks and aggregators, the placement into
 * windows and back, on every rank, while the application computes.
 *
 * <p>What for: a JVM's first collective write runs the exchange's code for the first time, interpreted until the
 * compiler has taken it, and every JVM of the host compiles the same code at the same time on the same cores;
 * {@link DataPathWarmup} runs the packing and placement on one rank alone, but the exchange needs the peers. Run
 * here while the job computes, that code is compiled by the first checkpoint (docs/benchmarks.md, "Checkpoints",
 * says by how much).
 *
 * <p>Rounds grow from 1 MiB of all ranks' data to 32 MiB, 256 MiB in all, each written and read back; then
 * {@value #REPEATED_ROUNDS} more rounds of 1 MiB each. Those are for the messages rather than the bytes: a checkpoint
 * sends some hundreds of pieces and agreements, and a method the compiler has not seen 200 times runs interpreted
 * until it is compiled, in the middle of the checkpoint and on the cores it uses, in every JVM of the host at once
 * (a first CYCLIC(1) checkpoint of 1 GiB on 4 JVMs met some 150-260 first compilations of the message paths, 60-130
 * ms of compiler time in each JVM, before these rounds; 45-80 after). Before each write and each read the ranks
 * agree whether to go on: {@link #stop()} or the stop condition on any rank ends the
 * warm-up on all of them at the next step, so the write or read in flight is all a collective call that comes sooner
 * shares the cores with. The first rounds are small for that reason. A failure (a rank gone) ends it quietly on every
 * rank; the application's own calls meet the same failure and report it.
 */
public final class ExchangeWarmup implements AutoCloseable {
    /** All ranks' stream bytes in the first round; each round doubles it up to {@link #ROUND_BYTES}. */
    private static final long FIRST_ROUND_BYTES = 1L << 20;
    private static final long ROUND_BYTES = 32L << 20;
    /** All ranks' stream bytes over all rounds, written and read each. */
    private static final long TOTAL_BYTES = 256L << 20;
    /** Rounds of {@link #FIRST_ROUND_BYTES} after the growing ones. */
    static final int REPEATED_ROUNDS = 64;
    /** How long {@link #close()} waits for the rounds to end. */
    private static final long CLOSE_WAIT_MILLIS = 10_000;

    private final Communicator copy;
    private final Discarding storage = new Discarding();
    /** What the file's storage is seen through: the caller's decorators over the storage that keeps nothing. */
    private final UnaryOperator<Storage> decorate;
    private final Thread thread;
    private final AtomicInteger rounds = new AtomicInteger();
    /** Asked before every round besides {@link #stop()}. */
    private final BooleanSupplier stopWhen;
    private volatile boolean stopWanted;

    private ExchangeWarmup(final Communicator copy, final Hints hints, final FileView view, final Object buffer,
                           final long count, final Datatype type, final BooleanSupplier stopWhen,
                           final UnaryOperator<Storage> decorate) {
        this.copy = copy;
        this.stopWhen = stopWhen;
        this.decorate = decorate;
        this.thread = new Thread(() -> run(hints, view, buffer, count, type), "pario-exchange-warmup-"
            + copy.rank());
        thread.setDaemon(true);
    }

    /**
     * Starts the rounds; collective over {@code comm}, which it copies with {@link Communicator#dupForThread()}.
     *
     * @param comm   the ranks whose collective calls are to be warmed
     * @param hints  the hints those calls will use (cb_buffer_size, cb_nodes and the like shape the exchange)
     * @param view   this rank's view in those calls
     * @param buffer a buffer of this rank's own for the rounds, of {@code count} elements of {@code type}; its
     *               contents are overwritten; {@link #sampleCount} elements are as many as any round moves
     * @param count  elements of {@code buffer}, {@code >= 0}: each round moves at most that many
     * @param type   the buffer's datatype, as the calls will use it
     * @param stopWhen asked on this rank before every round; true ends the rounds, as {@link #stop()} does
     * @return the running warm-up
     */
    public static ExchangeWarmup start(final Communicator comm, final Hints hints, final FileView view,
                                       final Object buffer, final long count, final Datatype type,
                                       final BooleanSupplier stopWhen) {
        return start(comm, hints, view, buffer, count, type, stopWhen, UnaryOperator.identity());
    }

    /**
     * Starts the rounds over a storage seen through {@code decorate}, as the calls to be warmed will see theirs (a
     * checkpoint sums what it writes and reads as it goes); see {@link #start(Communicator, Hints, FileView, Object,
     * long, Datatype, BooleanSupplier)}.
     *
     * @param decorate given the storage that keeps nothing, returns what the rounds' file writes and reads through
     */
    public static ExchangeWarmup start(final Communicator comm, final Hints hints, final FileView view,
                                       final Object buffer, final long count, final Datatype type,
                                       final BooleanSupplier stopWhen, final UnaryOperator<Storage> decorate) {
        final ExchangeWarmup w = new ExchangeWarmup(comm.dupForThread(), hints, view, buffer, count, type,
            stopWhen, decorate);
        w.thread.start();
        return w;
    }

    /**
     * @param ranks     the communicator's size
     * @param type      the buffer's datatype
     * @param available the elements this rank has
     * @return the elements of a buffer that holds this rank's part of the largest round
     */
    public static long sampleCount(final int ranks, final Datatype type, final long available) {
        return Math.min(available, perRank(ROUND_BYTES, ranks, type));
    }

    /** @return the elements one rank moves in a round of {@code roundBytes} of all ranks' data, at least 1 */
    private static long perRank(final long roundBytes, final int ranks, final Datatype type) {
        return Math.max(1, roundBytes / ranks / Math.max(1, type.size()));
    }

    /** Asks for the end at the next round, on every rank; returns at once. */
    public void stop() {
        stopWanted = true;
    }

    /** @return the rounds done so far on this rank */
    public int rounds() {
        return rounds.get();
    }

    /** @return the bytes this rank's storage was given to write, as an aggregator */
    long bytesWritten() {
        return storage.written();
    }

    /**
     * Waits for the thread to end.
     *
     * @param millis the most to wait
     * @return whether it has ended
     */
    public boolean await(final long millis) throws InterruptedException {
        thread.join(millis);
        return !thread.isAlive();
    }

    /** Stops the rounds and waits for their end (at most 10 s: a rank that never comes cannot hold this one). */
    @Override
    public void close() {
        stop();
        try {
            await(CLOSE_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run(final Hints hints, final FileView view, final Object buffer, final long count,
                     final Datatype type) {
        try (Communicator c = copy; ParallelFile f = ParallelFile.onStorage(c, "exchange warm-up",
            EnumSet.of(Mode.RDWR), decorate.apply(storage), hints)) {
            f.setView(view.disp(), view.etype(), view.filetype(), view.datarep());
            long round = FIRST_ROUND_BYTES;
            for (long done = 0; done < TOTAL_BYTES; done += round, round = Math.min(2 * round, ROUND_BYTES)) {
                if (stopAgreed(c)) {
                    return;
                }
                final long n = Math.min(count, perRank(round, c.size(), type));
                f.writeAtAll(0, buffer, n, type);
                // asked again between the write and the read: a call that begins meanwhile shares the cores with
                // half a round, not a whole one
                if (stopAgreed(c)) {
                    return;
                }
                f.readAtAll(0, buffer, n, type);
                rounds.incrementAndGet();
            }
            final long small = Math.min(count, perRank(FIRST_ROUND_BYTES, c.size(), type));
            for (int k = 0; k < REPEATED_ROUNDS; k++) {
                if (stopAgreed(c)) {
                    return;
                }
                f.writeAtAll(0, buffer, small, type);
                f.readAtAll(0, buffer, small, type);
                rounds.incrementAndGet();
            }
        } catch (RuntimeException | Error ignored) {
            // a warm-up only: a rank gone or a view the file refuses fails the application's own call as well
        }
    }

    /** @return whether any rank wants the rounds to end; collective */
    private boolean stopAgreed(final Communicator c) {
        return c.allreduce(stopWanted || stopWhen.getAsBoolean() ? 1 : 0, Op.MAX) != 0;
    }

    /** Keeps nothing: writes are dropped, reads leave the buffer as it is, up to the end of what was written. */
    private static final class Discarding implements Storage {
        private long end;
        private long written;

        synchronized long written() {
            return written;
        }

        @Override
        public Set<Capability> capabilities() {
            return EnumSet.of(Capability.POSITIONAL_WRITE, Capability.POSITIONAL_READ, Capability.TRUNCATE,
                Capability.LOCK);
        }

        @Override
        public long preferredBlockSize() {
            return 4096;
        }

        @Override
        public boolean prefersDirectBuffers() {
            return true;
        }

        @Override
        public synchronized long size() {
            return end;
        }

        @Override
        public long read(final long position, final ByteBuffer dst) {
            final long n = Math.min(dst.remaining(), Math.max(0, size() - position));
            dst.position(dst.position() + (int) n);
            return n;
        }

        @Override
        public synchronized void write(final long position, final ByteBuffer src) {
            end = Math.max(end, position + src.remaining());
            written += src.remaining();
            src.position(src.limit());
        }

        @Override
        public synchronized void truncate(final long size) {
            end = size;
        }

        @Override
        public void sync() {
        }

        @Override
        public AutoCloseable lock(final long position, final long length) {
            return () -> { };
        }

        @Override
        public void close() throws IOException {
        }
    }
}
