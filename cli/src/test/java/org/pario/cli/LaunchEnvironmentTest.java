package org.pario.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The C library setting {@code pario launch} adds to a rank's environment, and when it leaves the user's alone. */
@Timeout(10)
class LaunchEnvironmentTest {
    private static String tunablesAfter(final String before) {
        final Map<String, String> env = new HashMap<>();
        if (before != null) {
            env.put("GLIBC_TUNABLES", before);
        }
        LaunchCommand.hugePagesForMalloc(env);
        return env.get("GLIBC_TUNABLES");
    }

    @Test
    void ranksGetHugePagesForLargeAllocationsUnlessTheEnvironmentChoosesOtherwise() {
        assertEquals("glibc.malloc.hugetlb=1", tunablesAfter(null));
        assertEquals("glibc.malloc.hugetlb=1", tunablesAfter(""));
        assertEquals("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1", tunablesAfter("glibc.malloc.arena_max=2"));
        assertEquals("glibc.malloc.hugetlb=0", tunablesAfter("glibc.malloc.hugetlb=0"));
        assertEquals("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2",
            tunablesAfter("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2"));
        // another setting whose name merely ends the same way is not the huge page one
        assertEquals("x.glibc.malloc.hugetlb=0:glibc.malloc.hugetlb=1", tunablesAfter("x.glibc.malloc.hugetlb=0"));
    }
}
