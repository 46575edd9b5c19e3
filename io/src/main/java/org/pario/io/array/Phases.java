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

    Phases(final Checkpoint target, final Communicator comm) {
        this(target, comm.rank());
    }

    Phases(final Checkpoint target, final int rank) {
        this.target = target;
        this.rank = rank;
    }

    void begin(final CheckpointListener.Phase p, final long bytes) {
        phase = p;
        total = bytes;
        event = new CheckpointPhaseEvent();
        event.begin();
        target.listener().progress(p, 0, bytes);
    }

    void progress(final long done) {
        target.listener().progress(phase, Math.min(done, total), total);
    }

    void end() {
        if (event.shouldCommit()) {
            event.location = target.location();
            event.phase = phase.name();
            event.rank = rank;
            event.bytes = total;
            event.commit();
        }
        target.listener().progress(phase, total, total);
    }
}
