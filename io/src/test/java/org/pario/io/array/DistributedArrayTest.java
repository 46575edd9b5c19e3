package org.pario.io.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;
import org.pario.ParioException;
import org.pario.datatypes.Cursor;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;

class DistributedArrayTest {
    @Test
    void dimsCreateMatchesMpi() {
        assertArrayEquals(new long[] {3, 2}, DistributedArray.dimsCreate(6, new long[] {0, 0}));
        assertArrayEquals(new long[] {3, 2, 2}, DistributedArray.dimsCreate(12, new long[] {0, 0, 0}));
        assertArrayEquals(new long[] {7, 1}, DistributedArray.dimsCreate(7, new long[] {0, 0}));
        assertArrayEquals(new long[] {2, 2, 2}, DistributedArray.dimsCreate(8, new long[] {0, 0, 0}));
        assertArrayEquals(new long[] {4, 4}, DistributedArray.dimsCreate(16, new long[] {0, 0}));
        assertArrayEquals(new long[] {2, 3, 1}, DistributedArray.dimsCreate(6, new long[] {0, 3, 0}));
        assertThrows(ParioException.class, () -> DistributedArray.dimsCreate(6, new long[] {4, 0}));
    }

    /**
     * For random arrays on 1..7 ranks: the darray filetype of every rank reaches, in local order, exactly the global
     * elements the index mapping names, and the ranks together cover every element once.
     */
    @Test
    void localGlobalMappingAgreesWithTheDarrayFiletype() {
        final Random rnd = new Random(7);
        for (int trial = 0; trial < 300; trial++) {
            final int dims = 1 + rnd.nextInt(3);
            final int ranks = 1 + rnd.nextInt(7);
            final long[] shape = new long[dims];
            final Dist[] dists = new Dist[dims];
            for (int d = 0; d < dims; d++) {
                shape[d] = 1 + rnd.nextInt(9);
                dists[d] = switch (rnd.nextInt(5)) {
                    case 0 -> Dist.none();
                    case 1 -> Dist.cyclic();
                    case 2 -> Dist.cyclic(1 + rnd.nextInt(3));
                    default -> Dist.block();
                };
            }
            boolean distributed = false;
            for (final Dist x : dists) {
                distributed |= x.kind() != Dist.Kind.NONE;
            }
            if (!distributed) {
                dists[0] = Dist.block();
            }
            final Order order = rnd.nextBoolean() ? Order.C : Order.FORTRAN;
            final DistributedArray a;
            try {
                a = DistributedArray.of(shape, Datatype.INT, dists, null, ranks, order);
            } catch (ParioException e) {
                continue; // e.g. 7 ranks and every distributed dimension too small for the grid
            }
            final int[] owners = new int[(int) a.globalCount()];
            for (int r = 0; r < ranks; r++) {
                final DistributedArray.Local l = a.local(r);
                final Datatype ft = l.filetype();
                assertEquals(l.count() * 4, ft.size(), a + " rank " + r);
                final Cursor c = ft.cursor(1);
                long position = 0;
                while (c.next()) {
                    for (long b = 0; b < c.length(); b += 4) {
                        final long global = (c.offset() + b) / 4;
                        assertEquals(global, l.globalLinear(position), a + " rank " + r + " position " + position);
                        owners[(int) global]++;
                        position++;
                    }
                }
                assertEquals(l.count(), position);
            }
            for (int i = 0; i < owners.length; i++) {
                assertEquals(1, owners[i], a + ": element " + i + " owned " + owners[i] + " times");
            }
        }
    }

    @Test
    void toLocalInvertsToGlobalAndNamesOtherOwners() {
        final DistributedArray a = DistributedArray.of(new long[] {10, 7}, Datatype.DOUBLE,
            new Dist[] {Dist.cyclic(2), Dist.block()}, new long[] {2, 2}, 4, Order.C);
        final DistributedArray.Local l = a.local(3);
        assertArrayEquals(new long[] {1, 1}, l.coords());
        assertArrayEquals(new long[] {4, 3}, l.shape(), "rows 2,3,6,7 and columns 4..6");
        assertArrayEquals(new long[] {7, 6}, l.toGlobal(new long[] {3, 2}));
        assertArrayEquals(new long[] {3, 2}, l.toLocal(new long[] {7, 6}));
        assertNull(l.toLocal(new long[] {0, 6}));
        assertThrows(ParioException.class, () -> DistributedArray.of(new long[] {10}, Datatype.INT,
            new Dist[] {Dist.block(2)}, new long[] {3}, 3, Order.C));
        assertTrue(Dist.parse("CYCLIC(3)").equals(Dist.cyclic(3)) && Dist.parse("block").equals(Dist.block()));
    }
}
