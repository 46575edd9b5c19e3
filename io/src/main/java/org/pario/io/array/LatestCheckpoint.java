package org.pario.io.array;

import java.util.List;
import java.util.Optional;

/**
 * What {@link Checkpoint#latest} found in a directory: the newest checkpoint whose data verifies, if any, and every
 * newer or unusable file it passed over on the way, with why.
 *
 * @param newest  the newest whole checkpoint that verifies
 * @param skipped the damaged and half-written files, and whole-looking checkpoints whose data did not verify
 */
public record LatestCheckpoint(Optional<CheckpointEntry> newest, List<CheckpointEntry> skipped) {
    /** Copies the list. */
    public LatestCheckpoint {
        skipped = List.copyOf(skipped);
    }

    /**
     * @return the newest good checkpoint
     * @throws org.pario.ParioException naming what was skipped, when there is none
     */
    public Checkpoint orElseThrow() {
        return newest.map(CheckpointEntry::checkpoint).orElseThrow(() -> org.pario.ParioException.argument(
            "no checkpoint that verifies" + (skipped.isEmpty() ? "" : "; skipped: " + skipped)));
    }
}
