package org.pario.io.array;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One file of a directory of checkpoints as {@link Checkpoint#list} finds it: a whole checkpoint, a damaged one,
 * or the hidden file of a write that has not committed (still running, or its writer died).
 *
 * @param location   the file
 * @param state      whole, damaged or half-written
 * @param time       when it was written: a checkpoint's {@code created} time; the file's modification time for the
 *                   others
 * @param bytes      the file's size
 * @param arrays     the arrays' names (empty unless whole)
 * @param attributes the checkpoint's attributes ({@link Attributes#NONE} unless whole)
 * @param problem    what is wrong (null when whole)
 */
public record CheckpointEntry(String location, State state, Instant time, long bytes, List<String> arrays,
                              Attributes attributes, String problem) {
    /** What a file in a checkpoint directory is. */
    public enum State {
        /** Its header is whole and the file holds all the data the header describes. */
        WHOLE,
        /** It starts like a checkpoint but its header, its length or (after verifying) its data is wrong. */
        DAMAGED,
        /** The hidden file of a write that has not been published: running, or left by a writer that died. */
        HALF_WRITTEN
    }

    /** Checks the fields and copies the list. */
    public CheckpointEntry {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(time, "time");
        arrays = List.copyOf(arrays);
        Objects.requireNonNull(attributes, "attributes");
    }

    /** @return whether it is a whole checkpoint */
    public boolean whole() {
        return state == State.WHOLE;
    }

    /** @return the checkpoint at this location, to restore from */
    public Checkpoint checkpoint() {
        return Checkpoint.at(location);
    }

    /** @return this entry marked damaged, with why */
    CheckpointEntry damaged(final String why) {
        return new CheckpointEntry(location, State.DAMAGED, time, bytes, arrays, attributes, why);
    }

    @Override
    public String toString() {
        return location + ": " + state.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-') + ", " + time
            + ", " + bytes + " bytes" + (arrays.isEmpty() ? "" : ", arrays " + String.join(", ", arrays))
            + (problem == null ? "" : " (" + problem + ")");
    }
}
