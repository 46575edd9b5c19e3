package org.pario.io;

import java.nio.ByteBuffer;
import java.util.List;

import org.pario.comm.Request;
import org.pario.comm.Status;

/** An aggregator's receives of one round's pieces, posted ahead of the round. */
final class RoundPieces {
    /** How long a failing write waits for pieces already on their way. */
    private static final long DRAIN_SECONDS = 60;

    /** Each rank's stream range in the window. */
    final long[][] pieces;
    /** Each rank's buffer, null where it has no bytes in the window. */
    final ByteBuffer[] data;
    /** Each rank's receive, null for this rank's own piece and for ranks without bytes. */
    final List<Request<Status>> receives;
    final boolean any;

    RoundPieces(final long[][] pieces, final ByteBuffer[] data, final List<Request<Status>> receives, final boolean any) {
        this.pieces = pieces;
        this.data = data;
        this.receives = receives;
        this.any = any;
    }

    /** Waits for rank r's piece; a failed receive becomes the round's failure (the agreement then fails all). */
    Throwable await(final int r, final Throwable failure) {
        final Request<Status> q = receives.get(r);
        if (q == null) {
            return failure;
        }
        receives.set(r, null);
        try {
            q.join();
            return failure;
        } catch (RuntimeException e) {
            return failure != null ? failure : e;
        }
    }

    /** Waits for every piece in rank order; a failed receive fails the call at once. */
    void join() {
        for (int r = 0; r < receives.size(); r++) {
            final Request<Status> q = receives.get(r);
            receives.set(r, null);
            if (q != null) {
                q.join();
            }
        }
    }

    /**
     * Waits for every receive not yet waited for, ignoring their outcome (the call is failing already): a receive
     * left posted would take a later call's piece. Every rank sends a round's pieces before the agreement that
     * can fail the call, so they come; the bound only guards against a peer whose transport broke mid-send.
     */
    void drain() {
        for (int r = 0; r < receives.size(); r++) {
            final Request<Status> q = receives.get(r);
            receives.set(r, null);
            if (q != null) {
                try {
                    q.join(DRAIN_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
                } catch (RuntimeException ignored) {
                    // the call is failing already
                }
            }
        }
    }
}
