package org.pario.comm.internal.tcp;

import java.util.function.Consumer;

import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/**
 * A message packed as it leaves: each piece is packed into a buffer of its own once the socket has taken all but a
 * window of those before it, so the data goes through memory once before the kernel reads it.
 */
final class LateSend extends FromCallerSend {
    /** The send's id, by which it is parked. */
    final long id;
    final Memory memory;
    final Datatype type;
    final long count;
    /** Guarded by this: whether a thread packs and writes pieces of it now. */
    boolean packingLate;
    /** Packs and writes its next pieces (caller holds the lock). */
    private final Consumer<LateSend> packer;

    LateSend(final int dest, final long id, final Memory memory, final Datatype type, final long count,
             final long bytes, final int pieceBytes, final Consumer<LateSend> packer) {
        super(dest, bytes, pieceBytes);
        this.id = id;
        this.memory = memory;
        this.type = type;
        this.count = count;
        this.packer = packer;
    }

    /** Packs and writes the next pieces as the socket takes them ({@code RendezvousSender#packLate}). */
    @Override
    void writePieces(final Links links) {
        packer.accept(this);
    }

    @Override
    void afterWrite(final Links links) {
        packer.accept(this);
    }
}
