package org.pario.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.io.storage.Storage;

/** The rounds of a two-phase collective write on storage that only appends (HDFS): parts joined at the end. */
final class PartWrites {
    private PartWrites() {
    }

    /**
     * The collective write for append-only backends: the same exchange and window assembly as {@link #write},
     * but each aggregator appends its windows in order to a part file of its own (zeros where nothing is written),
     * fills its part to the end of its domain, and, once every rank agrees, rank 0 joins the parts to the end of
     * the file in one step. A failure anywhere removes the parts and leaves the file as it was.
     */
    static long writeParts(final RoundContext c, final TwoPhasePlan plan, final Memory m, final long count,
                           final Datatype type, final DataRepresentation rep) {
        final int me = c.comm().rank();
        final int n = c.comm().size();
        final int a = c.aggregatorIndex();
        final boolean mine = a >= 0 && plan.bounds[a + 1] > plan.bounds[a];
        final Storage.Part[] part = new Storage.Part[1];
        final long[] partEnd = {a >= 0 ? plan.bounds[a] : 0};
        // appends run in the background, one after the other, while the next round is exchanged
        CompletableFuture<Void> appends = CompletableFuture.completedFuture(null);
        Throwable failure = null;
        final List<Integer> nonEmpty = new ArrayList<>();
        for (int i = 0; i + 1 < plan.bounds.length; i++) {
            if (plan.bounds[i + 1] > plan.bounds[i]) {
                nonEmpty.add(i);
            }
        }
        final int[] indices = nonEmpty.stream().mapToInt(Integer::intValue).toArray();
        try {
            if (mine) {
                try {
                    part[0] = c.storage().openPart(a, plan.bounds[a]);
                } catch (IOException | RuntimeException e) {
                    failure = new ParioException(ErrorCategory.IO, "starting part " + a + " of "
                        + c.storage().describe() + " failed: " + e, e);
                }
            }
            for (long round = 0; round < plan.rounds; round++) {
                failure = WriteRounds.sendPieces(c, plan, round, m, count, type, rep, failure);
                ByteBuffer window = null;
                long writeFrom = 0;
                int writeLength = 0;
                long ws = 0;
                if (a >= 0) {
                    ws = plan.windowStart(a, round);
                    final long we = plan.windowEnd(a, round);
                    final RoundPieces arrival = WriteRounds.postReceives(c, plan, round);
                    arrival.join();
                    final long[][] pieces = arrival.pieces;
                    final ByteBuffer[] data = arrival.data;
                    if (arrival.any) {
                        // a fresh buffer per round, zeros where no rank writes: the previous one may still be appending
                        window = ByteBuffer.allocate((int) (we - ws)).order(ByteOrder.nativeOrder());
                        long first = Long.MAX_VALUE;
                        long last = Long.MIN_VALUE;
                        for (int r = 0; r < n; r++) {
                            if (data[r] != null) {
                                Placement.place(c.view(r), pieces[r][0], pieces[r][1], data[r], 0, window, ws, true,
                                    null);
                                first = Math.min(first, TwoPhasePlan.fileOffsetOf(c.view(r), pieces[r][0]));
                                last = Math.max(last, TwoPhasePlan.fileOffsetOf(c.view(r), pieces[r][1] - 1) + 1);
                            }
                        }
                        writeFrom = first;
                        writeLength = (int) (last - first);
                    }
                }
                Agreement.agree(c.comm(), failure);
                c.roundDone(round, plan.rounds);
                if (window != null && part[0] != null) {
                    final ByteBuffer out = window.slice((int) (writeFrom - ws), writeLength);
                    final long at = writeFrom;
                    final int length = writeLength;
                    appends = appends.thenRunAsync(() -> {
                        try {
                            zeros(part[0], at - partEnd[0]);
                            part[0].append(out);
                            partEnd[0] = at + length;
                        } catch (IOException e) {
                            throw new CompletionException(e);
                        }
                    }, c.storageIo());
                }
                failure = failed(c, appends, failure);
            }
            if (mine && part[0] != null) {
                appends = appends.thenRunAsync(() -> {
                    try {
                        zeros(part[0], plan.bounds[a + 1] - partEnd[0]);
                        part[0].close();
                    } catch (IOException e) {
                        throw new CompletionException(e);
                    }
                }, c.storageIo());
            }
            try {
                appends.join();
            } catch (CompletionException e) {
                failure = failure != null ? failure : new ParioException(ErrorCategory.IO, "writing part " + a + " of "
                    + c.storage().describe() + " failed: " + e.getCause(), e.getCause());
            }
            Agreement.agree(c.comm(), failure);
            if (me == 0) {
                try {
                    c.storage().commitParts(indices);
                } catch (IOException | RuntimeException e) {
                    failure = new ParioException(ErrorCategory.IO, "joining the parts of " + c.storage().describe()
                        + " failed: " + e, e);
                }
            }
            Agreement.agree(c.comm(), failure);
        } catch (ParioException e) {
            try {
                appends.join();
            } catch (RuntimeException ignored) {
                // already failing
            }
            // each aggregator removes its part; rank 0 also removes every part, those of dead ranks included
            final int[] discard = me == 0 ? indices : mine ? new int[] {a} : new int[0];
            if (discard.length > 0) {
                try {
                    c.storage().discardParts(discard);
                } catch (IOException | RuntimeException ignored) {
                    e.addSuppressed(ignored);
                }
            }
            throw e;
        }
        return plan.ends[me] - plan.starts[me];
    }

    /** @return the failure of a finished background append, or the one already seen */
    static Throwable failed(final RoundContext c, final CompletableFuture<Void> appends, final Throwable failure) {
        if (failure != null || !appends.isCompletedExceptionally()) {
            return failure;
        }
        try {
            appends.join();
            return null;
        } catch (CompletionException e) {
            return new ParioException(ErrorCategory.IO, "writing a part of " + c.storage().describe() + " failed: "
                + e.getCause(), e.getCause());
        }
    }

    static long fileSize(final Storage storage) {
        try {
            return storage.size();
        } catch (IOException e) {
            throw new ParioException(ErrorCategory.IO, "size of " + storage.describe() + " failed: " + e, e);
        }
    }

    private static final byte[] ZEROS = new byte[1 << 16];

    /** Appends zeros to a part. */
    static void zeros(final Storage.Part part, final long count) throws IOException {
        long left = count;
        while (left > 0) {
            final int n = (int) Math.min(ZEROS.length, left);
            part.append(ByteBuffer.wrap(ZEROS, 0, n));
            left -= n;
        }
    }
}
