package org.pario.comm;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;

import org.pario.comm.internal.Scratch;
import org.pario.comm.settings.CommSettings;

/**
 * What one rank shares among its communicators: the next free context id, its worker threads, its scratch, its
 * settings.
 */
final class RankState {
    final AtomicLong nextContext = new AtomicLong(2);
    final ExecutorService executor;
    final Scratch scratch;
    final CommSettings settings;

    /**
     * @param executor       the rank's worker threads
     * @param ranksInThisJvm how many ranks share this JVM's heap, and so its share for scratch arrays
     * @param settings       the rank's settings
     */
    RankState(final ExecutorService executor, final int ranksInThisJvm, final CommSettings settings) {
        this.executor = executor;
        this.settings = settings;
        this.scratch = Scratch.configured(ranksInThisJvm, settings.scratchBytes());
    }
}
