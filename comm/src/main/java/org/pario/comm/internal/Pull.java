package org.pario.comm.internal;

import java.util.concurrent.CompletableFuture;

import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/**
 * The data of a message that stayed with its sender (rendezvous): the receive that matched the message asks for
 * it once it knows where the bytes go, and they are unpacked straight into its buffer as they arrive.
 */
public interface Pull {
    /**
     * Asks the sender for the data and unpacks it into memory laid out as {@code count x type} as it arrives.
     *
     * @return completed when every byte has landed, or failed when the sender is lost first
     */
    CompletableFuture<Void> fetch(Memory memory, Datatype type, long count);

    /** The receive refused the message (too long, wrong type): the sender may drop the data. */
    void discard();
}
