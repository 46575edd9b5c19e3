package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each fault class of {@link FaultCampaign}, injected into 4-JVM jobs: no hang, no wrong data, every rank fails
 * naming the cause. One run per class in the suite; {@code bench/run-faults.sh RUNS} runs more and prints the
 * table of docs/reliability.md.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class FaultCampaignTest {
    private static final int RUNS = Integer.getInteger("pario.faults.runs", 1);

    @ParameterizedTest
    @EnumSource(FaultCampaign.Fault.class)
    void everyRankFailsPromptlyWithTheCauseAndNoDataIsLost(final FaultCampaign.Fault fault) throws Exception {
        if (fault == FaultCampaign.Fault.NETWORK_CUT) {
            final String why = Netns.unavailable();
            Assumptions.assumeTrue(why == null, "network cuts need network namespaces: " + why);
        }
        if (fault == FaultCampaign.Fault.DISK_FULL || fault == FaultCampaign.Fault.PERMISSION) {
            Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                fault + " needs root (to mount a small tmpfs, or to run one rank as another user)");
        }
        final FaultCampaign.Outcome o = FaultCampaign.run(fault, RUNS, 20261122L + fault.ordinal());
        System.out.println("faults: " + o.row());
        o.lastErrors().forEach(e -> System.out.println("faults:   " + e));
        assertEquals(0, o.hangs(), "hangs: " + o.problems());
        assertEquals(0, o.wrongData(), "wrong data: " + o.problems());
        assertTrue(o.problems().isEmpty(), String.join("\n", o.problems()));
    }
}
