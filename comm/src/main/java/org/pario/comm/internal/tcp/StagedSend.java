package org.pario.comm.internal.tcp;

import io.netty.buffer.ByteBuf;

/**
 * A message to a rank of this host staged in a shared-memory file: the receiver unpacks from the file as the sender
 * publishes packed chunks; only a receiver that cannot map the file asks for the data over the connection, as one
 * frame once all is packed.
 */
final class StagedSend extends ParkedSend {
    /** The file's buffer over the message's space. */
    final ByteBuf shared;
    final SharedMemory.Segment segment;

    StagedSend(final int dest, final ByteBuf shared, final SharedMemory.Segment segment, final long bytes) {
        super(dest, bytes, 1, (int) bytes);
        this.shared = shared;
        this.segment = segment;
    }
}
