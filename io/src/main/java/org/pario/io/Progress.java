package org.pario.io;

/**
 * Told how far a collective access has come, on every rank, after each round of two-phase I/O (and once at the
 * end of an access that runs without rounds). Called on the rank's own thread, between rounds; keep it quick.
 */
@FunctionalInterface
public interface Progress {
    /** Does nothing. */
    Progress NONE = (done, total) -> { };

    /**
     * @param doneBytes  bytes of the whole call (all ranks together) moved so far
     * @param totalBytes bytes the whole call moves
     */
    void update(long doneBytes, long totalBytes);
}
