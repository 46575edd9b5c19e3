package org.pario.comm.internal;

import java.util.concurrent.atomic.AtomicReferenceArray;

import org.pario.ErrorCategory;
import org.pario.ParioException;

/**
 * The set of ranks of one job and how messages reach them. This implementation connects ranks that are threads
 * of one JVM: a send hands the message straight to the destination's {@link Endpoint}. It also records which
 * ranks have failed or finished, so that operations that depend on them fail instead of waiting forever.
 *
 * <p>Thread-safe.
 */
public final class Fabric {
    private final Endpoint[] endpoints;
    /** Per world rank: null while it runs, otherwise why it is gone (a failure, or a normal finish). */
    private final AtomicReferenceArray<Departure> departed;

    /** Why a rank left: its failure, or null for a normal finish. */
    private record Departure(Throwable failure) {
    }

    /**
     * @param size number of ranks
     */
    public Fabric(final int size) {
        endpoints = new Endpoint[size];
        for (int r = 0; r < size; r++) {
            endpoints[r] = new Endpoint(r, this);
        }
        departed = new AtomicReferenceArray<>(size);
    }

    /** @return the number of ranks */
    public int size() {
        return endpoints.length;
    }

    /** @return the endpoint of a world rank */
    public Endpoint endpoint(final int worldRank) {
        return endpoints[worldRank];
    }

    /** Delivers a message to a world rank, or fails if that rank is gone. */
    public void send(final int worldDest, final Message m, final int[] group) {
        final Departure d = departed.get(worldDest);
        if (d != null && d.failure != null) {
            throw failedRank(worldDest, d.failure);
        }
        endpoints[worldDest].deliver(m);
    }

    /**
     * Records that a rank failed (with a cause) or finished (cause null), and fails every pending receive that
     * can no longer complete.
     */
    public void depart(final int worldRank, final Throwable failure) {
        departed.compareAndSet(worldRank, null, new Departure(failure));
        for (final Endpoint e : endpoints) {
            e.peerGone();
        }
    }

    /** @return the failure of the first failed rank among {@code group}, or null */
    public ParioException failureIn(final int[] group) {
        for (final int r : group) {
            final Departure d = departed.get(r);
            if (d != null && d.failure != null) {
                return failedRank(r, d.failure);
            }
        }
        return null;
    }

    /** @return why a posted receive can no longer be satisfied, or null if it still can */
    ParioException unreachable(final Endpoint.Posted p, final int self) {
        if (p.group == null) {
            return null;
        }
        final ParioException failed = failureIn(p.group);
        if (failed != null) {
            return failed;
        }
        if (p.source != Endpoint.ANY_SOURCE) {
            final int world = p.group[p.source];
            if (departed.get(world) != null) {
                return new ParioException(ErrorCategory.TRANSPORT, "rank " + p.source + " finished without sending a "
                    + "matching message (tag " + p.tag + "): the receive can never complete");
            }
            return null;
        }
        for (final int r : p.group) {
            if (r != self && departed.get(r) == null) {
                return null;
            }
        }
        return new ParioException(ErrorCategory.TRANSPORT,
            "every other rank finished: a receive from any source can never complete");
    }

    private static ParioException failedRank(final int worldRank, final Throwable failure) {
        return new ParioException(ErrorCategory.TRANSPORT, "rank " + worldRank + " failed: "
            + (failure.getMessage() == null ? failure.toString() : failure.getMessage()), failure);
    }
}
