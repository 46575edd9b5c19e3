package org.pario.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.pario.examples.GatherExamples.STRIDE;
import static org.pario.examples.GatherExamples.value;

import java.util.List;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.pario.comm.LocalCluster;

/** The seed examples, run on several rank counts, checked value by value. */
@Timeout(60)
class ExamplesTest {
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 3, 4, 7})
    void gatherExamples(final int n) {
        final List<int[][]> all = LocalCluster.call(n, comm -> new int[][] {
            GatherExamples.example52(comm), GatherExamples.example53(comm), GatherExamples.example54(comm),
            GatherExamples.example55(comm), GatherExamples.example56(comm), GatherExamples.example57(comm),
            GatherExamples.example58(comm), GatherExamples.example59(comm), GatherExamples.example510(comm)});
        final int[][] root = all.get(GatherExamples.ROOT);
        for (int e = 0; e < 3; e++) {
            for (int r = 0; r < n; r++) {
                for (int i = 0; i < 100; i++) {
                    assertEquals(value(r, 0, i), root[e][r * 100 + i], "example " + e + " rank " + r + " int " + i);
                }
            }
        }
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < 100; i++) {
                assertEquals(value(r, 0, i), root[3][r * STRIDE + i], "5.5");
                assertEquals(value(r, i, 0), root[4][r * STRIDE + i], "5.6: column 0");
            }
            for (int i = 0; i < STRIDE; i++) {
                final int expected = i < 100 - r ? value(r, i, r) : 0;
                assertEquals(expected, root[5][r * STRIDE + i], "5.7: column " + r + ", then untouched");
                assertEquals(expected, root[6][r * STRIDE + i], "5.8: same as 5.7");
            }
        }
        int offset = 0;
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < 100 - r; i++) {
                assertEquals(value(r, i, r), root[7][offset + i], "5.9");
            }
            offset += GatherExamples.stride(r);
        }
        int at = 0;
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < GatherExamples.num(r); i++) {
                assertEquals(value(r, i, r), root[8][at++], "5.10");
            }
        }
        assertEquals(at, root[8].length);
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {1, 2, 5, 6})
    void minMaxLocExamples(final int n) {
        final List<Object[]> all = LocalCluster.call(n, comm -> new Object[] {
            MinMaxLocExamples.example417(comm), MinMaxLocExamples.example418(comm), MinMaxLocExamples.example419(comm)});
        final MinMaxLocExamples.MaxLoc c = (MinMaxLocExamples.MaxLoc) all.get(0)[0];
        final MinMaxLocExamples.MaxLoc f = (MinMaxLocExamples.MaxLoc) all.get(0)[1];
        final double[] aout = new double[30];
        final int[] ind = new int[30];
        for (int i = 0; i < 30; i++) {
            aout[i] = Double.NEGATIVE_INFINITY;
            for (int r = 0; r < n; r++) {
                if (MinMaxLocExamples.ain(r, i) > aout[i]) {
                    aout[i] = MinMaxLocExamples.ain(r, i);
                    ind[i] = r;
                }
            }
        }
        assertArrayEquals(aout, c.aout());
        assertArrayEquals(ind, c.ind(), "the first rank holding the maximum wins ties");
        assertArrayEquals(aout, f.aout());
        assertArrayEquals(ind, f.ind());
        float min = Float.POSITIVE_INFINITY;
        int minRank = -1;
        int minIndex = -1;
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < MinMaxLocExamples.LEN; i++) {
                if (MinMaxLocExamples.val(r, i) < min) {
                    min = MinMaxLocExamples.val(r, i);
                    minRank = r;
                    minIndex = i;
                }
            }
        }
        assertEquals(new MinMaxLocExamples.MinLoc(min, minRank, minIndex), all.get(0)[2]);
    }
}
