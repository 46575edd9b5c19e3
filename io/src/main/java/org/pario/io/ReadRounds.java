package org.pario.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.Request;
import org.pario.comm.Status;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/**
 * The rounds of a two-phase collective read: each aggregator reads its round window (the next one read ahead while
 * this one is sent), cuts it into each rank's piece with the rank's filetype cursor, and sends it; the rank unpacks
 * its pieces into its memory.
 */
final class ReadRounds {
    private ReadRounds() {
    }

    /**
     * A read's ranks agree on its outcome after this many rounds, and after its last. A read destroys nothing, so a
     * failure need not stop the next round: a failed rank goes on sending and receiving its pieces (the aggregator
     * reading no more), so that nothing is left in flight, and the agreement that follows fails every rank with the
     * first failing rank's error, at most this many rounds later. An agreement every round cost a CYCLIC(1) read of
     * 1 GiB on 4 JVM ranks a tenth of its time (every rank waits for the last to arrive, 64 times;
     * docs/history/benchmarks-2026-12.md).
     */
    static final long AGREE_EVERY_ROUNDS = 16;

    static long read(final RoundContext c, final TwoPhasePlan plan, final FileView v, final Memory m,
                     final long count, final Datatype type, final DataRepresentation rep) {
        final int me = c.comm().rank();
        final int n = c.comm().size();
        Throwable failure = null;
        final long fileSize;
        try {
            fileSize = c.storage().size();
        } catch (IOException e) {
            throw new ParioException(ErrorCategory.IO, "size failed: " + e, e);
        }
        // stream bytes at or past the end of the file are not read, on any rank
        final long[] limits = new long[n];
        for (int r = 0; r < n; r++) {
            // a rank whose last byte lies inside the file reads all of its stream: no seeking through its view
            limits[r] = plan.ends[r] <= plan.starts[r] ? 0 : plan.his[r] <= fileSize ? plan.ends[r]
                : TwoPhasePlan.streamAt(c.view(r), plan.starts[r], plan.ends[r], fileSize);
        }
        final CompletableFuture<?>[] pending = new CompletableFuture<?>[2];
        // where the memory is the stream itself, pieces from other ranks land in it straight, with no unpacking
        final Memory stream = Views.streamMemory(m, type, rep, plan.ends[me] - plan.starts[me]);
        try {
            if (c.aggregatorIndex() >= 0 && plan.rounds > 0) {
                pending[0] = readAhead(c, plan, 0, limits, fileSize);
            }
            for (long round = 0; round < plan.rounds; round++) {
                // null where this rank is the aggregator: it places its own piece without a message to itself
                final List<Request<Status>> receives = new ArrayList<>();
                final List<long[]> mine = new ArrayList<>();
                final List<ByteBuffer> buffers = new ArrayList<>();
                ByteBuffer own = null;
                for (int a = 0; a < c.aggregators().length; a++) {
                    final long[] p = clip(c.piece(plan, me, plan.windowStart(a, round), plan.windowEnd(a, round)),
                        limits[me]);
                    final int len = (int) (p[1] - p[0]);
                    if (len > 0) {
                        final boolean fromMe = c.aggregators()[a] == me;
                        if (stream != null) {
                            // in place, nothing to unpack: another aggregator's piece lands in the memory, this
                            // rank's own is placed there below with nothing to receive either
                            if (!fromMe) {
                                receives.add(c.comm().irecv(stream.at(p[0] - plan.starts[me]), len, Datatype.BYTE,
                                    c.aggregators()[a], TwoPhase.TAG_READ));
                                mine.add(p);
                                buffers.add(null);
                            }
                            continue;
                        }
                        final ByteBuffer b = c.buffers().readBuffer(a, len);
                        receives.add(fromMe ? null : c.comm().irecv(b, len, Datatype.BYTE, c.aggregators()[a],
                            TwoPhase.TAG_READ));
                        mine.add(p);
                        buffers.add(b);
                        own = fromMe ? b : own;
                    }
                }
                if (c.aggregatorIndex() >= 0) {
                    final int slot = (int) (round & 1);
                    failure = WriteRounds.settle(pending, slot, failure);
                    if (round + 1 < plan.rounds && failure == null) {
                        pending[1 - slot] = readAhead(c, plan, round + 1, limits, fileSize);
                    }
                    final long ws = plan.windowStart(c.aggregatorIndex(), round);
                    final long we = plan.windowEnd(c.aggregatorIndex(), round);
                    final ByteBuffer window = c.buffers().window(slot, ws, c.windowBytes());
                    sendWindow(c, plan, limits, ws, we, window, own, stream, failure != null);
                }
                for (int i = 0; i < receives.size(); i++) {
                    if (receives.get(i) != null) {
                        receives.get(i).join();
                    }
                    if (failure == null && buffers.get(i) != null) {
                        try {
                            final long[] p = mine.get(i);
                            Packer.unpack(buffers.get(i), 0, (int) (p[1] - p[0]), m, m.origin(), type,
                                count, rep, p[0] - plan.starts[me]);
                        } catch (RuntimeException e) {
                            failure = e;
                        }
                    }
                }
                if (round + 1 == plan.rounds || (round + 1) % AGREE_EVERY_ROUNDS == 0) {
                    Agreement.agree(c.comm(), failure);
                }
                c.roundDone(round, plan.rounds);
            }
        } finally {
            WriteRounds.quietly(pending);
        }
        return Math.max(0, limits[me] - plan.starts[me]);
    }

    /**
     * The aggregator's part of a round: each rank's piece cut out of the window and sent, and its own piece placed,
     * straight into its memory where that is its stream.
     *
     * @param own    where the aggregator's own piece goes when its memory is not its stream
     * @param stream the aggregator's memory where it is its stream ({@link Views#streamMemory}), else null
     * @param failed whether the round has failed already: pieces are then sent as they are, not cut out, so that no
     *               rank waits for one, and the round's agreement fails every rank
     */
    private static void sendWindow(final RoundContext c, final TwoPhasePlan plan, final long[] limits,
                                   final long ws, final long we, final ByteBuffer window, final ByteBuffer own,
                                   final Memory stream, final boolean failed) {
        final int me = c.comm().rank();
        for (int r = 0; r < c.comm().size(); r++) {
            final long[] p = clip(c.piece(plan, r, ws, we), limits[r]);
            final int len = (int) (p[1] - p[0]);
            if (len <= 0) {
                continue;
            }
            if (r == me) {
                if (!failed) {
                    if (stream != null) {
                        Placement.place(c.view(me), p[0], p[1], stream, stream.origin() + p[0] - plan.starts[me],
                            window, ws, false, null);
                    } else {
                        Placement.place(c.view(me), p[0], p[1], own, 0, window, ws, false, null);
                    }
                }
                continue;
            }
            final ByteBuffer out = c.buffers().outgoing(len);
            if (!failed) {
                Placement.place(c.view(r), p[0], p[1], out, 0, window, ws, false, null);
            }
            c.comm().send(out, len, Datatype.BYTE, r, TwoPhase.TAG_READ);
        }
    }

    /** The bytes of an aggregator's round window a read needs: from its first to its last wanted byte. */
    static long[] readSpan(final RoundContext c, final long[][] pieces) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (int r = 0; r < pieces.length; r++) {
            if (pieces[r][1] > pieces[r][0]) {
                first = Math.min(first, TwoPhasePlan.fileOffsetOf(c.view(r), pieces[r][0]));
                last = Math.max(last, TwoPhasePlan.fileOffsetOf(c.view(r), pieces[r][1] - 1) + 1);
            }
        }
        return first == Long.MAX_VALUE ? null : new long[] {first, last};
    }

    static long[] clip(final long[] p, final long limit) {
        return new long[] {p[0], Math.max(p[0], Math.min(p[1], limit))};
    }

    /** Starts reading an aggregator's window of a round into its buffer, in the background. */
    static CompletableFuture<?> readAhead(final RoundContext c, final TwoPhasePlan plan, final long round,
                                          final long[] limits, final long fileSize) {
        final long ws = plan.windowStart(c.aggregatorIndex(), round);
        final long we = plan.windowEnd(c.aggregatorIndex(), round);
        final long[][] pieces = new long[c.comm().size()][];
        for (int r = 0; r < pieces.length; r++) {
            pieces[r] = clip(c.piece(plan, r, ws, we), limits[r]);
        }
        final long[] span = readSpan(c, pieces);
        if (span == null) {
            return null;
        }
        final ByteBuffer window = c.buffers().window((int) (round & 1), ws, c.windowBytes());
        final long from = span[0];
        final int length = (int) (Math.min(span[1], fileSize) - from);
        return CompletableFuture.runAsync(() -> {
            try {
                c.storage().read(from, window.slice((int) (from - ws), Math.max(0, length)));
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        }, c.storageIo());
    }
}
