package org.pario.comm.internal.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/** A message whose data is one run of the caller's direct memory: each piece goes as a header and a slice of it. */
final class InPlaceSend extends FromCallerSend {
    /** The caller's memory. */
    final ByteBuf inPlace;

    InPlaceSend(final int dest, final ByteBuf inPlace, final long bytes, final int pieceBytes) {
        super(dest, bytes, pieceBytes);
        this.inPlace = inPlace;
    }

    /**
     * Writes the pieces not yet sent to the receive that asked for them, each a header and a slice of the caller's
     * memory in one frame, so no other frame can come between them (caller holds the lock).
     */
    @Override
    void writePieces(final Links links) {
        final long receiveId = waitingReceiveId;
        final Gate gate = links.gate(dest);
        for (; sentPieces < packedPieces; sentPieces++) {
            final int length = pieceLength(sentPieces);
            final ByteBuf frame = Unpooled.wrappedBuffer(Frames.rdataHeader(links.alloc(dest), receiveId, length),
                inPlace.retainedSlice((int) ((long) sentPieces * pieceBytes), length));
            writesOut++;
            gate.write(frame, f -> {
                    pieceWritten(links, f);
                    links.failedSend(dest, f);
                });
        }
    }

    @Override
    void afterWrite(final Links links) {
        finish(links);
    }
}
