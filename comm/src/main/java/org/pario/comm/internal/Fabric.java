package org.pario.comm.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.pario.ErrorCategory;
import org.pario.ParioException;

/**
 * The set of ranks of one job and how messages reach them: the transport SPI. Implementations deliver messages
 * ({@link #send}) and report ranks that fail or finish ({@link #depart}); this base class records departures,
 * so that operations that depend on a departed rank fail instead of waiting forever.
 *
 * <p>Implementations: {@link LocalFabric} (ranks as threads of one JVM) and {@code TcpFabric} (one rank per
 * JVM, over Netty). Thread-safe.
 */
public abstract class Fabric {
    /** Per world rank: null while it runs, otherwise why it is gone (a failure, or a normal finish). */
    private final AtomicReferenceArray<Departure> departed;
    private final long spinNanos;
    /** The first error a local operation got because a peer was gone: what this rank tells the others it leaves after. */
    private volatile ParioException firstLoss;

    /** Why a rank left: its failure, or null for a normal finish. */
    private record Departure(Throwable failure) {
    }

    /**
     * @param size      number of ranks
     * @param spinNanos how long a waiting thread checks for its message before it blocks (setting {@code spinNanos})
     */
    protected Fabric(final int size, final long spinNanos) {
        departed = new AtomicReferenceArray<>(size);
        this.spinNanos = spinNanos;
    }

    /** @return the number of ranks */
    public final int size() {
        return departed.length();
    }

    /** @return how messages travel, for reports: "in-JVM", "TCP (epoll)", "TCP (nio)" */
    public String transport() {
        return "in-JVM";
    }

    /**
     * Returns when {@code f} is done or a brief wait is over, whichever comes first; the caller then blocks. Here it
     * checks with {@link Waiting#yieldUntil}; a transport that can deliver a message on the waiting thread itself
     * overrides this.
     *
     * @param f a message operation's future
     */
    public void waitBriefly(final CompletableFuture<?> f) {
        Waiting.yieldUntil(f, spinNanos);
    }

    /**
     * {@link #waitBriefly(CompletableFuture)}, knowing whether the awaited message's sender is at work on it already,
     * needing nothing from other ranks first (a linear broadcast's root): where ranks outnumber cores, the sender then
     * holds a core and the message is due within microseconds, so the waiter is better off keeping its own core for
     * that long than handing it to a rank that does not owe it anything. Here the same as without.
     *
     * @param f      a message operation's future
     * @param prompt whether the sender is at work on the message already
     */
    public void waitBriefly(final CompletableFuture<?> f, final boolean prompt) {
        waitBriefly(f);
    }

    /** @return the endpoint of a world rank that lives in this process */
    public abstract Endpoint endpoint(int worldRank);

    /** @return every endpoint that lives in this process */
    protected abstract Iterable<Endpoint> localEndpoints();

    /** Delivers a message to a world rank, or fails if that rank is gone. */
    public abstract void send(int worldDest, Message m, int[] group);

    /**
     * Packs {@code count x type} from memory and delivers it as a message. Transports override this to pack
     * straight into their own buffers; the data is copied out before this returns either way.
     */
    public void send(final int worldDest, final int context, final int source, final int tag,
                     final org.pario.datatypes.Memory memory, final org.pario.datatypes.Datatype type,
                     final long count, final int[] group) {
        send(worldDest, MessageAccess.pack(context, source, tag, memory, type, count), group);
    }

    /**
     * Like {@link #send(int, int, int, int, org.pario.datatypes.Memory, org.pario.datatypes.Datatype, long, int[])},
     * but the transport may go on reading the data from {@code memory} after this returns, until the future is
     * done: the caller must leave that memory alone until then. For collectives, which hold their buffers until they
     * return anyway; a transport that can hand the caller's memory to the socket without packing it first
     * overrides this. Here the data is copied out before this returns, and the future is already done.
     *
     * @return done when the transport no longer reads {@code memory}; failed (with the lost rank) when the
     *     receiver left before it had all the data
     */
    public CompletableFuture<Void> sendInPlace(final int worldDest, final int context, final int source,
                                               final int tag, final org.pario.datatypes.Memory memory,
                                               final org.pario.datatypes.Datatype type, final long count,
                                               final int[] group) {
        send(worldDest, context, source, tag, memory, type, count, group);
        return CompletableFuture.completedFuture(null);
    }

    /** Fails if a world rank has failed. */
    public final void checkAlive(final int worldRank) {
        final Departure d = departed.get(worldRank);
        if (d != null && d.failure != null) {
            throw noteLoss(failedRank(worldRank, d.failure));
        }
    }

    /** @return true once a world rank has failed or finished */
    public final boolean departed(final int worldRank) {
        return departed.get(worldRank) != null;
    }

    /**
     * Records that a rank failed (with a cause) or finished (cause null), and fails every pending receive that
     * can no longer complete.
     */
    public final void depart(final int worldRank, final Throwable failure) {
        departed.compareAndSet(worldRank, null, new Departure(failure));
        onDeparture(worldRank, departed.get(worldRank).failure);
        for (final Endpoint e : localEndpoints()) {
            e.peerGone();
        }
    }

    /**
     * Told when a rank fails or finishes, before pending receives are failed: transports release what they hold
     * for it and fail transfers in flight from it.
     *
     * @param worldRank the rank
     * @param failure   why it failed, or null for a normal finish
     */
    protected void onDeparture(final int worldRank, final Throwable failure) {
    }

    /** @return the exception a transfer from a departed rank fails with */
    public final ParioException lost(final int worldRank) {
        return noteLoss(whyLost(worldRank));
    }

    /**
     * Fails a transfer from a departed rank if it is still under way. Only then does the loss count as this rank's
     * ({@link #firstLoss}): a transfer that completed a moment before, and is not yet forgotten, must not make the
     * rank leave after a normal finish of its peer as if data had been lost.
     */
    public final void failTransfer(final CompletableFuture<?> transfer, final int worldRank) {
        final ParioException e = whyLost(worldRank);
        if (transfer.completeExceptionally(e)) {
            noteLoss(e);
        }
    }

    private ParioException whyLost(final int worldRank) {
        final Departure d = departed.get(worldRank);
        if (d != null && d.failure != null) {
            return failedRank(worldRank, d.failure);
        }
        return new ParioException(ErrorCategory.TRANSPORT, "rank " + worldRank + " finished before the data "
            + "of its message arrived");
    }

    /** @return the failure of the first failed rank among {@code group}, or null */
    public final ParioException failureIn(final int[] group) {
        for (final int r : group) {
            final Departure d = departed.get(r);
            if (d != null && d.failure != null) {
                return noteLoss(failedRank(r, d.failure));
            }
        }
        return null;
    }

    /** @return why a posted receive can no longer be satisfied, or null if it still can */
    ParioException unreachable(final Endpoint.Posted p, final int self) {
        final ParioException e = whyUnreachable(p, self);
        return e == null ? null : noteLoss(e);
    }

    /**
     * Keeps the first error a local operation got because a peer was gone, whichever path found it (a receive
     * that can never complete, a send to a failed rank, a transfer cut short), so that this rank leaves naming it.
     */
    private ParioException noteLoss(final ParioException e) {
        if (firstLoss == null) {
            // a race between two first losses is harmless: either names a rank that is gone
            firstLoss = e;
        }
        return e;
    }

    /**
     * @return the first error a local operation got because a peer was gone, or null: a rank that leaves after
     *         one tells the others (they may be waiting for a message this rank will now never send)
     */
    public final ParioException firstLoss() {
        return firstLoss;
    }

    /**
     * Leaves the job after an error ({@code MPI_Abort}): every pending and later operation of the other ranks that
     * involves this one fails with {@code reason}. The in-JVM fabric records this rank as failed; transports
     * tell their peers.
     *
     * @param worldRank the leaving rank
     * @param reason    why, for the other ranks' errors
     */
    public void abort(final int worldRank, final String reason) {
        depart(worldRank, new java.io.IOException("it aborted: " + reason));
    }

    private ParioException whyUnreachable(final Endpoint.Posted p, final int self) {
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
