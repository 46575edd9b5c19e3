package org.pario.comm.internal.tcp;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;

import io.netty.util.concurrent.Future;
import org.pario.ParioException;

/**
 * A collective's large message whose data stays in the caller's memory until its receiver asks for it: nothing is
 * packed ahead. Its future completes once no write reads that memory any more.
 */
abstract sealed class FromCallerSend extends ParkedSend permits InPlaceSend, LateSend {
    /** Done once no write reads the caller's memory any more. */
    final CompletableFuture<Void> written = new CompletableFuture<>();
    /** Guarded by this: piece writes not yet complete, and the first that failed. */
    int writesOut;
    Throwable writeFailure;

    FromCallerSend(final int dest, final long bytes, final int pieceBytes) {
        super(dest, bytes, piecesOf(bytes, pieceBytes), pieceBytes);
        // nothing to pack ahead: the pieces are written (or packed) from the caller's memory when asked for
        packedPieces = pieces;
        packed = true;
    }

    /** One piece's write is done, or failed. */
    final void pieceWritten(final Links links, final Future<? super Void> f) {
        synchronized (this) {
            writesOut--;
            if (!f.isSuccess() && writeFailure == null) {
                writeFailure = f.cause();
            }
            afterWrite(links);
        }
    }

    /** What follows a finished write (caller holds the lock): the next pieces, or the end. */
    abstract void afterWrite(Links links);

    /**
     * Completes the future once the record is released and no write of it is under way: from then on nothing reads
     * the caller's memory (caller holds the lock).
     */
    final void finish(final Links links) {
        if (!taken() || writesOut > 0 || written.isDone()) {
            return;
        }
        if (failure != null && writeFailure instanceof ParioException e) {
            // packing failed: the caller hears that reason, as a sender that packs up front would
            written.completeExceptionally(e);
        } else if (writeFailure != null) {
            written.completeExceptionally(links.sendFailed(dest, bytes, writeFailure));
        } else if (sentPieces < pieces && links.fabric().departed(dest)) {
            written.completeExceptionally(links.sendFailed(dest, bytes,
                new IOException("rank " + dest + " left before it asked for the data")));
        } else {
            // every piece written, or the receiver let the data go (its receive ended another way)
            written.complete(null);
        }
    }
}
