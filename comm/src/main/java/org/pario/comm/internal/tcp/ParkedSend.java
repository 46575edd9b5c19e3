package org.pario.comm.internal.tcp;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A message whose data waits at its sender for the receiver's request (CTS), announced (RTS) before its data is
 * ready; taken once, by its last write or by a release. Each kind of waiting data is a class of its own:
 * packed into direct blocks ({@link BlockSend}), staged in a shared-memory file a receiver on this host reads
 * ({@link StagedSend}), or read from the caller's memory as it leaves ({@link InPlaceSend}, {@link LateSend}).
 *
 * <p>The fields below the constructor are guarded by the record's own lock.
 */
abstract sealed class ParkedSend permits BlockSend, StagedSend, FromCallerSend {
    final int dest;
    /** The message's bytes, and the pieces they are sent in (at least one, for an empty message). */
    final long bytes;
    final int pieces;
    /** The bytes of each piece but the last. */
    final int pieceBytes;
    private final AtomicBoolean taken = new AtomicBoolean();

    /** Whether the data is packed (or needs no packing), why packing failed, and a CTS that came before either. */
    boolean packed;
    String failure;
    long waitingReceiveId = -1;
    /** Released while still being packed: the packing thread releases it when done. */
    boolean abandoned;
    /** Pieces packed so far, and pieces written or handed to Netty. */
    int packedPieces;
    int sentPieces;

    ParkedSend(final int dest, final long bytes, final int pieces, final int pieceBytes) {
        this.dest = dest;
        this.bytes = bytes;
        this.pieces = pieces;
        this.pieceBytes = pieceBytes;
    }

    /** @return the pieces of {@code bytes} in pieces of {@code pieceBytes}: at least one */
    static int piecesOf(final long bytes, final int pieceBytes) {
        return bytes == 0 ? 1 : Math.toIntExact((bytes + pieceBytes - 1) / pieceBytes);
    }

    /** @return true for the one caller that takes the record: its data's memory is then that caller's to free */
    final boolean take() {
        return taken.compareAndSet(false, true);
    }

    /** @return whether the record has been taken */
    final boolean taken() {
        return taken.get();
    }

    /** @return whether it was released while still being packed */
    final synchronized boolean abandoned() {
        return abandoned;
    }

    final int pieceLength(final int i) {
        return (int) Math.min(pieceBytes, bytes - (long) i * pieceBytes);
    }

    /**
     * Writes the pieces packed and not yet sent to the receive that asked for them, each an RDATA frame of its own
     * (caller holds the lock, so pieces leave in order, and the request is known). A staged message's data is read
     * from shared memory, or sent whole once packed: it has no pieces to write here.
     */
    void writePieces(final Links links) {
    }

    /** Wakes a packing thread that waits for room, when the record is abandoned (caller holds the lock). */
    void wakePacker() {
    }
}
