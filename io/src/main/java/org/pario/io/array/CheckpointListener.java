package org.pario.io.array;

/**
 * Told how far a checkpoint has come, phase by phase, on every rank: the figures are those of the whole call (all
 * ranks together), the same on every rank. Called on the rank's own thread (an asynchronous write's background
 * phases on its writing thread); keep it quick. A listener that throws is told nothing more; the call goes on with
 * the other ranks, and once it has completed it fails on that rank with what the listener threw. The same phases are
 * recorded as JFR events ({@code org.pario.CheckpointPhase}), so a flight recording shows where a checkpoint's
 * time went without any listener.
 *
 * <pre>{@code
 * Checkpoint.at(path).listener((phase, done, total) -> System.out.printf("%s %d/%d%n", phase, done, total))
 *     .write("field", field, mine);
 * }</pre>
 */
@FunctionalInterface
public interface CheckpointListener {
    /** Does nothing. */
    CheckpointListener NONE = (phase, done, total) -> { };

    /** The phases of a checkpoint write and of a restore, in the order they run. */
    enum Phase {
        /** Every rank checks that it describes the same arrays and attributes as rank 0. */
        AGREE,
        /** The arrays' data is exchanged among the ranks and written, round by round. */
        WRITE,
        /**
         * The checksums summed as the data was written are joined; chunks that could not be summed so (and, with
         * the {@code pario_verify_after_write} hint, all) are read back.
         */
        CHECKSUM,
        /** The header is written, the file synced and published under its name. */
        COMMIT,
        /** The data is read and exchanged among the ranks, round by round, its checksums summed as it passes. */
        READ,
        /**
         * The checksums are checked: in a restore, those summed while reading, and chunks that could not be summed
         * so are read again; in {@link Checkpoint#verify}, every chunk is read.
         */
        VERIFY
    }

    /**
     * @param phase      the phase running
     * @param doneBytes  bytes of the phase done so far (0 when it starts, {@code totalBytes} when it ends)
     * @param totalBytes bytes the phase handles in all
     */
    void progress(Phase phase, long doneBytes, long totalBytes);
}
