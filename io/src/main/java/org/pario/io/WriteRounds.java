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
 * The rounds of a two-phase collective write on storage that takes positional writes: every rank packs its bytes of
 * each aggregator's round window and sends them in one message; the aggregator places them with the ranks'
 * filetype cursors, fills the holes from the file, and writes the window while the next round is exchanged. The
 * helpers here (sending pieces, posting receives, filling holes, settling background writes) serve
 * {@link PartWrites} too.
 */
final class WriteRounds {
    private WriteRounds() {
    }

    /**
     * The rounds of a collective write, pipelined: every rank sends its pieces of round i + 1 before the agreement
     * that ends round i, and an aggregator posts its receives for round i + 1 before it places round i, so the other
     * ranks pack and send the next round while it assembles this one, and it places each rank's piece as soon as that
     * has arrived (in rank order, so that where views overlap the highest rank still wins). Nothing is written before
     * its round's agreement; after a failed agreement the aggregator still takes in the pieces of the next round,
     * which every rank has sent, so that none is left for a later call to receive.
     */
    static long write(final RoundContext c, final TwoPhasePlan plan, final FileView v, final Memory m,
                      final long count, final Datatype type, final DataRepresentation rep) {
        final int me = c.comm().rank();
        final int n = c.comm().size();
        final CompletableFuture<?>[] pending = new CompletableFuture<?>[2];
        final boolean aggregator = c.aggregatorIndex() >= 0;
        Throwable failure = null;
        RoundPieces now = null;
        RoundPieces next = null;
        try {
            if (aggregator && plan.rounds > 0) {
                next = postReceives(c, plan, 0);
            }
            if (plan.rounds > 0) {
                failure = sendPieces(c, plan, 0, m, count, type, rep, failure);
            }
            for (long round = 0; round < plan.rounds; round++) {
                now = next;
                next = aggregator && round + 1 < plan.rounds ? postReceives(c, plan, round + 1) : null;
                ByteBuffer window = null;
                long writeFrom = 0;
                int writeLength = 0;
                if (now != null && now.any) {
                    final long ws = plan.windowStart(c.aggregatorIndex(), round);
                    final long we = plan.windowEnd(c.aggregatorIndex(), round);
                    final int slot = (int) (round & 1);
                    failure = settle(pending, slot, failure);
                    window = c.buffers().window(slot, ws, c.windowBytes());
                    final long[] covered = c.buffers().covered((int) ((we - ws + 63) >>> 6));
                    long first = Long.MAX_VALUE;
                    long last = Long.MIN_VALUE;
                    // ranks in increasing order: where views of different ranks overlap, the highest rank wins; the
                    // upper part of the window is placed by a second thread, in the same order, so that each byte
                    // still gets the highest rank's value
                    final long split = Placement.placingSplit(we - ws);
                    // each rank's upper part is chained after the previous rank's, so they are placed in rank order
                    CompletableFuture<Void> upper = CompletableFuture.completedFuture(null);
                    // the second thread must be done with the window before anything else touches it, even on a throw
                    try {
                        for (int r = 0; r < n; r++) {
                            if (now.data[r] == null) {
                                continue;
                            }
                            failure = now.await(r, failure);
                            final FileView view = c.view(r);
                            final long s0 = now.pieces[r][0];
                            final long s1 = now.pieces[r][1];
                            final long sm = split > 0 ? TwoPhasePlan.streamAt(view, s0, s1, ws + split) : s1;
                            final ByteBuffer data = now.data[r];
                            final ByteBuffer into = window;
                            if (sm < s1) {
                                upper = upper.thenRunAsync(() -> Placement.place(view, sm, s1, data,
                                    (int) (sm - s0), into, ws, true, covered), c.storageIo());
                            }
                            Placement.place(view, s0, sm, data, 0, into, ws, true, covered);
                            first = Math.min(first, TwoPhasePlan.fileOffsetOf(view, s0));
                            last = Math.max(last, TwoPhasePlan.fileOffsetOf(view, s1 - 1) + 1);
                        }
                    } finally {
                        failure = Placement.placed(upper, failure);
                    }
                    writeFrom = first;
                    writeLength = (int) (last - first);
                    if (failure == null) {
                        failure = fillHoles(c, window, covered, (int) (first - ws), (int) (last - ws), ws);
                    }
                }
                if (round + 1 < plan.rounds) {
                    failure = sendPieces(c, plan, round + 1, m, count, type, rep, failure);
                }
                Agreement.agree(c.comm(), failure);
                c.roundDone(round, plan.rounds);
                if (window != null) {
                    final ByteBuffer out = window.slice((int) (writeFrom
                        - plan.windowStart(c.aggregatorIndex(), round)), writeLength);
                    final long at = writeFrom;
                    pending[(int) (round & 1)] = CompletableFuture.runAsync(() -> {
                        try {
                            c.storage().write(at, out);
                        } catch (IOException e) {
                            throw new CompletionException(e);
                        }
                    }, c.storageIo());
                }
            }
            failure = settle(pending, 0, failure);
            failure = settle(pending, 1, failure);
            Agreement.agree(c.comm(), failure);
        } finally {
            for (final RoundPieces a : new RoundPieces[] {now, next}) {
                if (a != null) {
                    a.drain();
                }
            }
            quietly(pending);
        }
        return plan.ends[me] - plan.starts[me];
    }

    /**
     * Sends this rank's bytes of every aggregator's window of a round, one message each. A rank that has failed
     * still sends (whatever its buffer holds), so that no aggregator waits; the round's agreement then fails
     * everyone before anything of the round is written.
     *
     * @return the first local failure, old or new
     */
    static Throwable sendPieces(final RoundContext c, final TwoPhasePlan plan, final long round, final Memory m,
                                final long count, final Datatype type, final DataRepresentation rep,
                                final Throwable failed) {
        final int me = c.comm().rank();
        Throwable failure = failed;
        // where the memory is the stream itself, a piece leaves from it: the send copies it once, no packing first
        final Memory stream = Views.streamMemory(m, type, rep, plan.ends[me] - plan.starts[me]);
        for (int a = 0; a < c.aggregators().length; a++) {
            final long[] p = c.piece(plan, me, plan.windowStart(a, round), plan.windowEnd(a, round));
            final int len = (int) (p[1] - p[0]);
            if (len == 0) {
                continue;
            }
            // an aggregator's own piece goes straight to where it receives pieces, not through a message to itself
            final boolean own = c.aggregators()[a] == me;
            if (!own && stream != null) {
                c.comm().send(stream.at(p[0] - plan.starts[me]), len, Datatype.BYTE, c.aggregators()[a],
                    TwoPhase.TAG_WRITE);
                continue;
            }
            final ByteBuffer data = own ? c.buffers().incoming(round, me, len) : c.buffers().outgoing(len);
            if (failure == null) {
                try {
                    Packer.pack(m, m.origin(), type, count, rep, p[0] - plan.starts[me], data, 0, len);
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
            if (!own) {
                c.comm().send(data, len, Datatype.BYTE, c.aggregators()[a], TwoPhase.TAG_WRITE);
            }
        }
        return failure;
    }

    /**
     * Posts an aggregator's receives for its window of a round, into the incoming buffers of that round's parity
     * (in a pipelined write, the other set holds the round being placed).
     */
    static RoundPieces postReceives(final RoundContext c, final TwoPhasePlan plan, final long round) {
        final int n = c.comm().size();
        final long ws = plan.windowStart(c.aggregatorIndex(), round);
        final long we = plan.windowEnd(c.aggregatorIndex(), round);
        final long[][] pieces = new long[n][];
        final ByteBuffer[] data = new ByteBuffer[n];
        final List<Request<Status>> receives = new ArrayList<>(n);
        boolean any = false;
        for (int r = 0; r < n; r++) {
            pieces[r] = c.piece(plan, r, ws, we);
            final int len = (int) (pieces[r][1] - pieces[r][0]);
            Request<Status> q = null;
            if (len > 0) {
                any = true;
                data[r] = c.buffers().incoming(round, r, len);
                if (r != c.comm().rank()) {
                    q = c.comm().irecv(data[r], len, Datatype.BYTE, r, TwoPhase.TAG_WRITE);
                }
            }
            receives.add(q);
        }
        return new RoundPieces(pieces, data, receives, any);
    }

    /**
     * Gives the bytes of a window no rank wrote their current content from the file (zero beyond its end): the span
     * is read once into a scratch buffer only if it has holes, and only the holes are copied from it.
     */
    static Throwable fillHoles(final RoundContext c, final ByteBuffer window, final long[] covered, final int first,
                               final int last, final long ws) {
        final List<int[]> gaps = new ArrayList<>();
        Placement.holes(covered, first, last, (a, b) -> gaps.add(new int[] {a, b}));
        if (gaps.isEmpty()) {
            return null;
        }
        try {
            final byte[] old = new byte[last - first];
            c.storage().read(ws + first, ByteBuffer.wrap(old));
            for (final int[] g : gaps) {
                window.put(g[0], old, g[0] - first, g[1] - g[0]);
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return new ParioException(ErrorCategory.IO, "reading the holes of a collective write window at byte "
                + (ws + first) + " failed: " + e, e);
        }
    }

    /** Waits for a background storage access; returns the first failure seen. */
    static Throwable settle(final CompletableFuture<?>[] pending, final int slot, final Throwable failure) {
        final CompletableFuture<?> f = pending[slot];
        pending[slot] = null;
        if (f == null) {
            return failure;
        }
        try {
            f.join();
            return failure;
        } catch (CompletionException e) {
            final Throwable cause = e.getCause() == null ? e : e.getCause();
            return failure != null ? failure : new ParioException(ErrorCategory.IO, "collective storage access failed: "
                + cause, cause);
        }
    }

    static void quietly(final CompletableFuture<?>[] pending) {
        for (final CompletableFuture<?> f : pending) {
            if (f != null) {
                try {
                    f.join();
                } catch (RuntimeException ignored) {
                    // already failing
                }
            }
        }
    }
}
