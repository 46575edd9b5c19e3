package org.pario.comm.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.ErrorCategory;
import org.pario.ParioException;

/** The communication settings: defaults, copies with one changed, and clear errors for what they do not take. */
@Timeout(30)
class CommSettingsTest {
    @Test
    void defaultsAreTheDocumentedOnes() {
        final CommSettings d = CommSettings.defaults();
        assertEquals(1L << 20, d.eagerMaxBytes());
        assertEquals(4 << 20, d.rendezvousPieceBytes());
        assertEquals("auto", d.transport());
        assertTrue(d.sharedMemory());
        assertEquals(512 << 10, d.tuning().allreduceLargeMinBytes());
        assertEquals(64L << 20, d.tuning().reductionSliceBytes());
        assertEquals(CollectiveTuning.defaults(), d.tuning());
        assertEquals("CommSettings[]", d.toString());
    }

    @Test
    void withChangesOneSettingAndLeavesTheOriginalAsItWas() {
        final CommSettings d = CommSettings.defaults();
        final CommSettings small = d.with("eagerMaxBytes", 16384).with("sharedMemory", false)
            .with("tuning.bcastSegmentBytes", "4096");
        assertEquals(16384, small.eagerMaxBytes());
        assertFalse(small.sharedMemory());
        assertEquals(4096, small.tuning().bcastSegmentBytes());
        assertEquals(1L << 20, d.eagerMaxBytes(), "frozen");
        assertEquals("16384", small.get("eagerMaxBytes"));
        assertNotEquals(d, small);
        assertEquals(small, CommSettings.from(Map.of("eagerMaxBytes", 16384, "sharedMemory", "false",
            "tuning.bcastSegmentBytes", 4096L)));
        assertTrue(small.toString().contains("eagerMaxBytes=16384"), small.toString());
    }

    @Test
    void everyNameIsReadableAndParsesBack() {
        final CommSettings d = CommSettings.defaults();
        for (final String name : CommSettings.names()) {
            assertEquals(d, d.with(name, d.get(name)), name);
        }
    }

    @Test
    void unknownNamesAndBadValuesFailNamingTheSetting() {
        final CommSettings d = CommSettings.defaults();
        final ParioException unknown = assertThrows(ParioException.class, () -> d.with("eagerMax", 1));
        assertEquals(ErrorCategory.ARGUMENT, unknown.category());
        assertTrue(unknown.getMessage().contains("'eagerMax'") && unknown.getMessage().contains("eagerMaxBytes"),
            unknown.getMessage());
        assertThrows(ParioException.class, () -> CommSettings.from(Map.of("nope", 1)));
        for (final Object[] bad : new Object[][] {
            {"eagerMaxBytes", "1MiB", "whole number"},
            {"eagerMaxBytes", -1, "from 0 to"},
            {"eagerMaxBytes", (1L << 30) + 1, "from 0 to"},
            {"rendezvousPieceBytes", 1024, "from 65536"},
            {"sharedMemory", "yes", "true or false"},
            {"shmDir", "", "must not be empty"},
            {"reductionSliceBytes", 0, "from 1"},
        }) {
            final ParioException e = assertThrows(ParioException.class, () -> d.with((String) bad[0], bad[1]));
            assertEquals(ErrorCategory.ARGUMENT, e.category());
            assertTrue(e.getMessage().contains("pario." + bad[0]) && e.getMessage().contains((String) bad[2]),
                e.getMessage());
        }
    }
}
