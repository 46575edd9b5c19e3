package org.pario.datatypes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The README's API example, as written there, with its claims checked. */
class ReadmeExampleTest {
    @Test
    void readmeExampleWorksAsDocumented() {
        final Datatype mine = Datatype.darray(6, 4, new long[] {100, 200, 300},
            new Distribution[] {Distribution.CYCLIC, Distribution.NONE, Distribution.BLOCK},
            new long[] {10, Datatype.DISTRIBUTE_DFLT_DARG, Datatype.DISTRIBUTE_DFLT_DARG},
            new long[] {2, 1, 3}, Order.FORTRAN, Datatype.FLOAT);
        assertEquals(4_000_000, mine.size());
        assertEquals(24_000_000, mine.extent());

        final Datatype same = Datatype.parse(
            "darray(6, 4, [100,200,300], [cyclic,none,block], [10,dflt,dflt], [2,1,3], fortran, float)");
        assertEquals(same, mine);

        final float[] global = new float[100 * 200 * 300];
        for (int i = 0; i < global.length; i++) {
            global[i] = i;
        }
        final byte[] packed = Packer.pack(global, mine, 1);
        final float[] restored = new float[global.length];
        Packer.unpack(packed, restored, mine, 1);
        long owned = 0;
        for (int i = 0; i < global.length; i++) {
            final int x = i % 100;
            final int z = i / 20000;
            final boolean mineElement = (x / 10) % 2 == 1 && z / 100 == 1;
            if (mineElement) {
                owned++;
                assertEquals(global[i], restored[i]);
            } else {
                assertEquals(0f, restored[i]);
            }
        }
        assertEquals(1_000_000, owned);

        final Cursor runs = mine.cursor(1).seek(1_000_000);
        assertTrue(runs.next());
        assertEquals(1_000_000, runs.streamPosition());
        final byte[] again = new byte[packed.length];
        Packer.pack(Memory.of(global), 0, mine, 1, DataRepresentation.NATIVE, 0, java.nio.ByteBuffer.wrap(again), 0,
            again.length);
        assertArrayEquals(packed, again);
    }
}
