package org.pario.io.array;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** A JFR event for one phase of a checkpoint on one rank: where a checkpoint's time went. */
@Name("org.pario.CheckpointPhase")
@Label("Checkpoint phase")
@Category({"Pario", "Checkpoint"})
@Description("One phase of a checkpoint write or restore on one rank")
final class CheckpointPhaseEvent extends Event {
    @Label("Location")
    String location;

    @Label("Phase")
    String phase;

    @Label("Rank")
    int rank;

    @Label("Bytes")
    @DataAmount
    long bytes;
}
