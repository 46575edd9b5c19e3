package org.pario.io;

import java.util.concurrent.Executor;

import org.pario.comm.Communicator;
import org.pario.io.storage.Storage;

/**
 * What the rounds of one two-phase call may use of their file: its communicator and storage, the aggregators and
 * this rank's place among them, every rank's view, the round buffers and window size, and where a round reports
 * that it is done. A narrow view of {@link TwoPhase}, so the rounds depend on nothing else of it.
 *
 * @param comm            the file's own communicator
 * @param storage         the file
 * @param aggregators     the aggregators' ranks, in increasing order
 * @param aggregatorIndex this rank's index among them, or negative
 * @param views           every rank's view, by rank, parsed as needed
 * @param buffers         the file's round buffers
 * @param windowBytes     the size of an aggregator's round window ({@code cb_buffer_size})
 * @param rounds          told when a round is done
 * @param storageIo       the file's threads for background storage accesses and placement
 */
record RoundContext(Communicator comm, Storage storage, int[] aggregators, int aggregatorIndex, RankViews views,
                    RoundBuffers buffers, int windowBytes, RoundListener rounds, Executor storageIo) {
    /** Told when a round of a call is done. */
    @FunctionalInterface
    interface RoundListener {
        /**
         * @param round  the round just done
         * @param rounds the rounds of the call
         */
        void done(long round, long rounds);
    }

    void roundDone(final long round, final long rounds) {
        this.rounds.done(round, rounds);
    }

    /** @return rank r's view */
    FileView view(final int r) {
        return views.get(r);
    }

    /** @return rank r's stream range {@code [s0, s1)} inside the file window {@code [ws, we)} */
    long[] piece(final TwoPhasePlan plan, final int r, final long ws, final long we) {
        // a rank whose bytes all lie outside the window has no piece: no seeking through its view, which keeps an
        // aggregator's cost per round at a comparison per rank that sends it nothing (most, with many ranks)
        if (plan.ends[r] <= plan.starts[r] || ws >= we || plan.his[r] <= ws || plan.los[r] >= we) {
            return new long[] {0, 0};
        }
        final FileView v = views.get(r);
        final long s0 = TwoPhasePlan.streamAt(v, plan.starts[r], plan.ends[r], ws);
        final long s1 = TwoPhasePlan.streamAt(v, s0, plan.ends[r], we);
        return new long[] {s0, s1};
    }
}
