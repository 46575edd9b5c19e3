package org.pario.comm;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;

import org.pario.comm.internal.Scratch;
import org.pario.comm.settings.CommSettings;

/**
 * What one rank shares among its communicators: the context ids of the world's family, its worker threads, its
 * scratch, its settings.
 */
final class RankState {
    /** The context ids of the world and the communicators made from it. */
    final ContextSpace worldSpace = ContextSpace.world();
    /** The next family of context ids for {@link Communicator#dupForThread()}, to agree on with the other ranks. */
    final AtomicLong nextFamily = new AtomicLong();
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
