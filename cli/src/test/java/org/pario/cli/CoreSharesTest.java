package org.pario.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** CPU lists read as Linux writes them, and how a launch shares its CPUs out. */
@Timeout(30)
class CoreSharesTest {
    @Test
    void cpuListsAreReadAsLinuxWritesThem() {
        assertEquals(List.of(0), CoreShares.parse("0"));
        assertEquals(List.of(0, 1, 2, 3, 8, 10, 11), CoreShares.parse("0-3,8,10-11"));
        assertEquals(List.of(), CoreShares.parse(""));
        assertThrows(NumberFormatException.class, () -> CoreShares.parse("a-b"));
    }

    @Test
    void eachRankGetsAnEqualShareOfItsOwnOrNoneWhenTheyDoNotFit() {
        final List<Integer> cpus = CoreShares.allowedCpus();
        assertTrue(!cpus.isEmpty(), "this process's CPUs, from /proc/self/status");
        final List<String> one = CoreShares.of(1);
        assertEquals(1, one.size());
        assertEquals(cpus.size(), CoreShares.parse(one.get(0)).size());
        final List<String> two = CoreShares.of(2);
        if (cpus.size() >= 2) {
            assertEquals(2, two.size());
            assertEquals(cpus.size() / 2, CoreShares.parse(two.get(0)).size());
            assertTrue(CoreShares.parse(two.get(0)).stream().noneMatch(CoreShares.parse(two.get(1))::contains));
        }
        assertEquals(List.of(), CoreShares.of(cpus.size() + 1));
        assertEquals(List.of("/usr/bin/taskset", "-c", "0,1", "java", "-version"),
            CoreShares.bound("0,1", List.of("java", "-version")));
    }

    @Test
    void ranksThatOutnumberTheCoresGetOneEachInSnakeOrder() {
        assertEquals(List.of(0, 1, 1, 0), java.util.stream.IntStream.range(0, 4).map(r -> CoreShares.snake(r, 2))
            .boxed().toList());
        assertEquals(List.of(0, 1, 2, 2, 1, 0, 0), java.util.stream.IntStream.range(0, 7)
            .map(r -> CoreShares.snake(r, 3)).boxed().toList());
        assertEquals(List.of(0, 0, 0), java.util.stream.IntStream.range(0, 3).map(r -> CoreShares.snake(r, 1))
            .boxed().toList());
        final List<Integer> cpus = CoreShares.allowedCpus();
        final List<String> crowded = CoreShares.crowded(2 * cpus.size());
        assertEquals(2 * cpus.size(), crowded.size());
        for (int r = 0; r < crowded.size(); r++) {
            assertEquals(Integer.toString(cpus.get(CoreShares.snake(r, cpus.size()))), crowded.get(r));
            assertEquals(crowded.get(r), crowded.get(crowded.size() - 1 - r), "core-mates in snake order");
        }
        assertEquals(List.of(), CoreShares.crowded(cpus.size()), "ranks that fit are not crowded");
        assertEquals(crowded, CoreShares.forMode(2 * cpus.size(), "auto"));
        assertEquals(crowded, CoreShares.forMode(2 * cpus.size(), "cores"));
        assertEquals(List.of(), CoreShares.forMode(2 * cpus.size(), "none"));
        assertEquals(List.of(), CoreShares.forMode(cpus.size(), "auto"));
        assertEquals(CoreShares.of(cpus.size()), CoreShares.forMode(cpus.size(), "cores"));
        final IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
            () -> CoreShares.forMode(2, "socket"));
        assertTrue(bad.getMessage().contains("'socket'"), bad.getMessage());
    }
}
