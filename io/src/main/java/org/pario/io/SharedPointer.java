package org.pario.io;

import java.util.concurrent.atomic.AtomicLong;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.Status;
import org.pario.datatypes.Datatype;

/**
 * The shared file pointer of one open file, in etypes: one counter held by rank 0 and served by a thread of rank 0
 * over a private communicator, so that {@code readShared}/{@code writeShared} on any rank can reserve their range
 * with one round trip and no lock file. Collective moves (ordered access, {@code seekShared}) are made by rank 0
 * directly, at a point of the collective every rank passes through. A view's reset to 0 needs no step of its own:
 * every rank counts the views it has taken and sends the count with each request, and the pointer is reset when
 * the first use of a newer view reaches it (every use under the older view ended before any rank took the newer).
 */
final class SharedPointer implements AutoCloseable {
    private static final int REQUEST = 1;
    private static final int REPLY = 2;
    private static final long FETCH_ADD = 0;
    private static final long STOP = 1;

    private final Communicator comm;
    /** The counter itself; meaningful on rank 0 only. */
    private final AtomicLong value = new AtomicLong();
    /** The views this rank has taken ({@link #viewTaken()}). */
    private volatile long views;
    /** On rank 0: the views the counter has been reset for. */
    private long viewsServed;
    private final Thread server;

    /**
     * Every rank builds its end of the pointer.
     *
     * @param own a duplicate of the file's communicator, used by the pointer alone and closed with it
     */
    SharedPointer(final Communicator own) {
        this.comm = own;
        if (comm.rank() == 0 && comm.size() > 1) {
            server = new Thread(this::serve, "pario-shared-pointer");
            server.setDaemon(true);
            server.start();
        } else {
            server = null;
        }
    }

    /**
     * Atomically adds {@code delta} etypes to the pointer, from any rank, at any time (not collective).
     *
     * @return the pointer before the addition
     */
    synchronized long fetchAdd(final long delta) {
        if (comm.rank() == 0) {
            return counter(views).getAndAdd(delta);
        }
        // one request at a time per rank (synchronized), so replies cannot be taken by the wrong caller
        comm.send(new long[] {FETCH_ADD, delta, views}, 3, Datatype.LONG, 0, REQUEST);
        final long[] reply = new long[1];
        comm.recv(reply, 1, Datatype.LONG, 0, REPLY);
        return reply[0];
    }

    /**
     * Every rank, at the end of a {@code setView} that succeeded everywhere: the pointer is 0 for this view's first
     * use, from whichever rank it comes.
     */
    void viewTaken() {
        views++;
    }

    /** Rank 0: the counter, reset first if a use under a newer view than it was reset for reaches it. */
    private synchronized AtomicLong counter(final long viewsOfUse) {
        if (viewsOfUse > viewsServed) {
            value.set(0);
            viewsServed = viewsOfUse;
        }
        return value;
    }

    /**
     * Collective ({@code MPI_File_write_ordered}'s reservation): the ranks' ranges one after the other in rank
     * order at the pointer, which then moves past all of them.
     *
     * @param etypes this rank's count in etypes, or -1 when its access is not a whole count {@code >= 0} of them
     * @return where this rank's range starts, in etypes
     */
    long reserveInRankOrder(final long etypes) {
        final long[] all = new long[comm.size()];
        comm.allgather(new long[] {etypes}, 1, Datatype.LONG, all, 1, Datatype.LONG);
        long before = 0;
        long total = 0;
        for (int r = 0; r < all.length; r++) {
            if (all[r] < 0) {
                throw new ParioException(ErrorCategory.ARGUMENT, "rank " + r + ": ordered access needs a count >= 0 "
                    + "of whole etypes", null, true);
            }
            if (r < comm.rank()) {
                before += all[r];
            }
            total += all[r];
        }
        final long[] base = new long[1];
        if (comm.rank() == 0) {
            base[0] = counter(views).getAndAdd(total);
        }
        comm.bcast(base, 1, Datatype.LONG, 0);
        return base[0] + before;
    }

    /** Collective, with the same {@code etypes} on every rank: sets the pointer before any rank uses it again. */
    void seekCollectively(final long etypes) {
        if (comm.rank() == 0) {
            counter(views).set(etypes);
        }
        // no rank may reserve from the pointer before rank 0 has set it
        comm.barrier();
    }

    private void serve() {
        final long[] request = new long[3];
        while (true) {
            final Status from;
            try {
                from = comm.recv(request, 3, Datatype.LONG, Communicator.ANY_SOURCE, REQUEST);
            } catch (ParioException e) {
                // a failed or departed peer: the comm layer fails every other rank's pending requests too
                return;
            }
            if (request[0] == STOP) {
                return;
            }
            final long before = counter(request[2]).getAndAdd(request[1]);
            try {
                comm.send(new long[] {before}, 1, Datatype.LONG, from.source(), REPLY);
            } catch (ParioException e) {
                // the requester is gone; others may still be served
            }
        }
    }

    /** Called by every rank once no rank uses the pointer any more (inside the file's collective close). */
    @Override
    public void close() {
        if (server != null) {
            comm.send(new long[] {STOP, 0, 0}, 3, Datatype.LONG, 0, REQUEST);
            try {
                server.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        comm.close();
    }
}
