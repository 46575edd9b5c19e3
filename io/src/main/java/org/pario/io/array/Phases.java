package org.pario.io.array;

import org.pario.comm.Communicator;

/**
 * The phases of one checkpoint call on one rank: tells the listener where the call is and records each phase as a
 * JFR event. One phase at a time; not thread-safe (a call runs on its rank's thread).
 */
final class Phases {
    private final Checkpoint target;
    private final int rank;
    private CheckpointListener.Phase phase;
    private long total;
    private CheckpointPhaseEvent event;
    /** What the listener threw; it is told nothing more after that. */
    private RuntimeException listenerFailure;

    Phases(final Checkpoint target, final Communicator comm) {
        this(target, comm.rank());
    }

    Phases(final Checkpoint target, final int rank) {
        this.target = target;
        this.rank = rank;
    }

    void begin(final CheckpointListener.Phase p, final long bytes) {
        CheckpointWarmup.giveWay();
        phase = p;
        total = bytes;
        event = new CheckpointPhaseEvent();
        event.begin();
        tell(p, 0, bytes);
    }

    void progress(final long done) {
        tell(phase, Math.min(done, total), total);
    }

    void end() {
        if (event.shouldCommit()) {
            event.location = target.location();
            event.phase = phase.name();
            event.rank = rank;
            event.bytes = total;
            event.commit();
        }
        tell(phase, total, total);
    }

    /**
     * Tells the listener, shielding the call from it: a listener that throws on one rank must not make that rank
     * leave a collective the others are in, so its failure is kept and thrown once the call is over
     * ({@link #rethrowListenerFailure()}).
     */
    private void tell(final CheckpointListener.Phase p, final long done, final long total) {
        if (listenerFailure != null) {
            return;
        }
        try {
            target.listener().progress(p, done, total);
        } catch (RuntimeException e) {
            listenerFailure = e;
        }
    }

    /** Throws, on this rank, what the listener threw during the call (which itself completed on every rank). */
    void rethrowListenerFailure() {
        if (listenerFailure != null) {
            throw new org.pario.ParioException(org.pario.ErrorCategory.ARGUMENT, target + ": its listener threw on "
                + "rank " + rank + " (the call itself completed on every rank): " + listenerFailure, listenerFailure);
        }
    }
}
