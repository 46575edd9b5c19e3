package org.pario.comm.internal.tcp;

import java.util.concurrent.CompletableFuture;

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
}
