package org.pario.comm.internal.tcp;

import java.util.concurrent.atomic.AtomicLongArray;

import org.pario.comm.internal.Message;

/**
 * Flow control of eager messages, per peer: a sender may have a budget of eager bytes in flight to a peer that the
 * peer has not consumed; beyond it even small messages wait at the sender (rendezvous), so a slow receiver holds at
 * most that much unexpected data per peer. A receiver returns credit in CREDIT frames, a quarter of the budget at a
 * time, one frame for many messages.
 */
final class Credit {
    private final Links links;
    private final long budget;
    private final long returnEvery;
    /** Sender side, per peer: eager bytes sent and not yet consumed by it. */
    private final AtomicLongArray inFlight;
    /** Receiver side, per peer: eager bytes consumed and not yet returned. */
    private final AtomicLongArray toReturn;

    Credit(final Links links, final int size, final long budget) {
        this.links = links;
        this.budget = budget;
        this.returnEvery = budget / 4;
        this.inFlight = new AtomicLongArray(size);
        this.toReturn = new AtomicLongArray(size);
    }

    /** What an eager message costs in credit: its bytes, and at least its envelope's worth. */
    static long cost(final long bytes) {
        return Math.max(bytes, 64);
    }

    /**
     * The credit a receiver returns for an eager message it consumed: its cost, except for messages beyond 1 GiB,
     * which are sent in chunks without taking credit (returning some would let the sender exceed its budget).
     */
    static long returned(final long bytes) {
        return bytes > Message.CHUNK ? 0 : cost(bytes);
    }

    /** @return whether {@code cost} more bytes to {@code dest} fit the budget; if so, they are reserved */
    boolean reserve(final int dest, final long cost) {
        if (inFlight.addAndGet(dest, cost) <= budget) {
            return true;
        }
        unreserve(dest, cost);
        return false;
    }

    /** Gives back credit reserved for a message that was not sent. */
    void unreserve(final int dest, final long cost) {
        inFlight.addAndGet(dest, -cost);
    }

    /**
     * @return whether less than one return of credit to {@code dest} is outstanding besides a message of {@code
     *     cost} just reserved: the peer has consumed the earlier large messages and likely waits for this one
     */
    boolean peerCaughtUp(final int dest, final long cost) {
        return inFlight.get(dest) - cost < returnEvery;
    }

    /** A peer returned credit. */
    void returnedBy(final int peer, final long bytes) {
        inFlight.addAndGet(peer, -bytes);
    }

    /** An eager message from {@code peer} was consumed: return its credit, a quarter of the budget at a time. */
    void consumed(final int peer, final long cost) {
        if (toReturn.addAndGet(peer, cost) >= returnEvery && !links.fabric().departed(peer) && !links.closed()) {
            final long back = toReturn.getAndSet(peer, 0);
            if (back > 0) {
                links.write(peer, Frames.credit(links.alloc(peer), back), f -> { });
            }
        }
    }
}
