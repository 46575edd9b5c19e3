package org.pario.comm.internal.coll;

import java.util.function.IntPredicate;

import org.pario.comm.internal.Message;
import org.pario.comm.internal.Scratch;
import org.pario.comm.settings.CollectiveTuning;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/**
 * What a collective algorithm may ask of its communicator: who it is among how many, the thresholds that choose
 * algorithms, scratch arrays, and tagged messages in the communicator's collective context, which user messages
 * never match. The communicator implements it; the algorithms see nothing else of it.
 */
public interface CollectiveContext {
    /** A message under way: a receive, or a send that may read its memory until it is joined. */
    @FunctionalInterface
    interface Transfer {
        /**
         * Waits at most {@code millis} for the transfer.
         *
         * @return the bytes received; 0 for a send
         * @throws org.pario.ParioException TIMEOUT when it is not done by then, or why it failed
         */
        long join(long millis);
    }

    /** @return this rank in the communicator */
    int rank();

    /** @return the ranks in the communicator */
    int size();

    /** @return the thresholds that choose the algorithms */
    CollectiveTuning tuning();

    /** @return the rank's scratch arrays, given back when done */
    Scratch scratch();

    /** Sends {@code count x type} from {@code m} to {@code dest}; returns once the data is out of {@code m}. */
    void send(Memory m, long count, Datatype type, int dest, int tag);

    /** Sends from memory the algorithm leaves alone until the transfer is joined (no copy needed first). */
    Transfer sendInPlace(Memory m, long count, Datatype type, int dest, int tag);

    /**
     * Posts a receive.
     *
     * @param prompt whether the sender sends as soon as it enters the call (a linear broadcast's root): a wait may
     *               then keep its core a moment where ranks outnumber cores
     */
    Transfer receive(Memory m, long count, Datatype type, int source, int tag, boolean prompt);

    /** @return a message from {@code source} in the collective context whose tag passes, left where it is; or null */
    Message peek(int source, IntPredicate tag);
}
