package org.pario.comm;

import java.util.concurrent.atomic.AtomicLong;

import org.pario.ParioException;

/**
 * The context ids one rank's communicators of a family draw from: those made from the world (its dups and splits,
 * theirs, and so on), or those made from one {@link Communicator#dupForThread()} copy. The families' ranges do not
 * overlap, so two threads that each make communicators of their own family never agree on the same id, which two
 * threads drawing from one counter could (each reads the counter before either has raised it).
 */
final class ContextSpace {
    /** The world's family: ids below this. */
    static final long WORLD_LIMIT = 1L << 30;
    /** Ids of each thread's family. */
    static final long FAMILY_IDS = 1L << 22;
    /** How many thread families a rank can make; the int range of ids holds no more. */
    static final long FAMILIES = ((long) Integer.MAX_VALUE + 1 - WORLD_LIMIT) / FAMILY_IDS;

    /** Ids of this family from here up are free on this rank. */
    private final AtomicLong next;
    private final long first;
    private final long limit;
    /** Whether this is a thread's family: its communicators cannot start another. */
    private final boolean forThread;

    private ContextSpace(final long first, final long limit, final boolean forThread) {
        this.next = new AtomicLong(first);
        this.first = first;
        this.limit = limit;
        this.forThread = forThread;
    }

    /** @return the family of the world communicator (id 0 is the world's own, 1 its collectives') */
    static ContextSpace world() {
        return new ContextSpace(2, WORLD_LIMIT, false);
    }

    /** @return the family numbered {@code family}, agreed by the ranks */
    static ContextSpace forThread(final long family) {
        if (family >= FAMILIES) {
            throw ParioException.argument("dupForThread: this rank has made " + FAMILIES
                + " communicators for threads, as many as it can");
        }
        final long first = WORLD_LIMIT + family * FAMILY_IDS;
        return new ContextSpace(first, first + FAMILY_IDS, true);
    }

    /** @return the lowest id this rank may use next, to agree on with the other ranks */
    long proposal() {
        return next.get();
    }

    /**
     * Takes the id the ranks agreed on (the highest proposal) and its collectives' id.
     *
     * @return the id, as an int
     * @throws ParioException when the family has no ids left; the same on every rank, as the agreed id is
     */
    int take(final long agreed) {
        if (agreed + 2 > limit) {
            throw ParioException.argument("this rank has made " + (limit - first) / 2 + " communicators in one "
                + "family, as many as context ids allow" + (forThread
                ? "; a thread that needs more can start from a new dupForThread() copy" : ""));
        }
        next.set(agreed + 2);
        return Math.toIntExact(agreed);
    }

    boolean isForThread() {
        return forThread;
    }
}
