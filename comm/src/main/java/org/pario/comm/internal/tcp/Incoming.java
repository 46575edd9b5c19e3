package org.pario.comm.internal.tcp;

import java.util.concurrent.CompletableFuture;

import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/** A receive buffer waiting for parked data: RDATA bytes are unpacked into it as they arrive. */
final class Incoming extends Unpacking {
    final CompletableFuture<Void> done = new CompletableFuture<>();

    Incoming(final int peer, final Memory memory, final Datatype type, final long count, final long total) {
        super(peer, memory, type, count, total);
    }

    @Override
    boolean given() {
        return done.isDone();
    }

    /**
     * A receive whose unpacking failed fails only once the rest of the message has arrived and been skipped:
     * completing it removes its id, and the pieces still coming for that id would then close the connection.
     */
    @Override
    void complete(final RuntimeException failure) {
        if (failure == null) {
            done.complete(null);
        } else {
            done.completeExceptionally(failure);
        }
    }
}
