package org.pario.comm.internal.tcp;

import io.netty.buffer.ByteBuf;

/** A message whose data is one run of the caller's direct memory: each piece goes as a header and a slice of it. */
final class InPlaceSend extends FromCallerSend {
    /** The caller's memory. */
    final ByteBuf inPlace;

    InPlaceSend(final int dest, final ByteBuf inPlace, final long bytes, final int pieceBytes) {
        super(dest, bytes, pieceBytes);
        this.inPlace = inPlace;
    }
}
