package org.pario.io;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** A JFR event for one round of a two-phase collective access on one rank. */
@Name("org.pario.TwoPhaseRound")
@Label("Two-phase round")
@Category({"Pario", "Collective I/O"})
@Description("One round of a two-phase collective read or write on one rank: exchange, placement and storage")
final class TwoPhaseRoundEvent extends Event {
    @Label("Write")
    boolean write;

    @Label("Round")
    long round;

    @Label("Rounds")
    long rounds;

    @Label("Call bytes")
    @DataAmount
    long callBytes;
}
