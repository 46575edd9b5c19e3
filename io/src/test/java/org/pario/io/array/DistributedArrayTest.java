package org.pario.io.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.junit.jupiter.api.Test;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.Cursor;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
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
                distributed |= x.kind() != Distribution.NONE;
            }
            if (!distributed) {
                dists[0] = Dist.block();
            }
            final Order order = rnd.nextBoolean() ? Order.C : Order.FORTRAN;
            LocalCluster.run(ranks, comm -> {
                if (comm.rank() == 0) {
                    checkMapping(comm, shape, dists, order);
                }
            });
        }
    }

    private static void checkMapping(final Communicator comm, final long[] shape, final Dist[] dists,
                                     final Order order) {
        final int ranks = comm.size();
        final DistributedArray<int[]> a;
        try {
            a = DistributedArray.of(comm, Element.INT, shape, dists).order(order);
        } catch (ParioException e) {
            return; // e.g. 7 ranks and every distributed dimension too small for the grid
        }
        final int[] owners = new int[(int) a.globalCount()];
        for (int r = 0; r < ranks; r++) {
            final DistributedArray<int[]>.Local l = a.local(r);
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

    @Test
    void toLocalInvertsToGlobalAndNamesOtherOwners() {
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]> a = DistributedArray.of(comm, Element.DOUBLE, new long[] {10, 7},
                Dist.cyclic(2), Dist.block()).grid(2, 2);
            final DistributedArray<double[]>.Local l = a.local(3);
            assertArrayEquals(new long[] {1, 1}, l.coords());
            assertArrayEquals(new long[] {4, 3}, l.shape(), "rows 2,3,6,7 and columns 4..6");
            assertArrayEquals(new long[] {7, 6}, l.toGlobal(new long[] {3, 2}));
            assertArrayEquals(new long[] {3, 2}, l.toLocal(new long[] {7, 6}));
            assertNull(l.toLocal(new long[] {0, 6}));
            assertEquals(a.local().count(), a.allocate().length, "a buffer exactly as long as the rank's part");
        });
        LocalCluster.run(3, comm -> assertThrows(ParioException.class, () -> DistributedArray.of(comm,
            Element.INT, new long[] {10}, Dist.block(2))));
        assertTrue(Dist.parse("CYCLIC(3)").equals(Dist.cyclic(3)) && Dist.parse("block").equals(Dist.block()));
    }

    @Test
    void aDescriptionNeedsOneDistributionPerDimensionAndAFittingGrid() {
        LocalCluster.run(4, comm -> {
            final ParioException few = assertThrows(ParioException.class, () -> DistributedArray.of(comm,
                Element.DOUBLE, new long[] {8, 8, 8}, Dist.block(), Dist.block()));
            assertTrue(few.getMessage().contains("one distribution per dimension"), few.getMessage());
            final ParioException grid = assertThrows(ParioException.class, () -> DistributedArray.of(comm,
                Element.DOUBLE, new long[] {8, 8}).grid(3, 0));
            assertTrue(grid.getMessage().contains("cannot hold 4 ranks"), grid.getMessage());
            assertArrayEquals(new long[] {2, 2}, DistributedArray.of(comm, Element.DOUBLE, new long[] {8, 8}).grid(),
                "no distributions: BLOCK in every dimension on a balanced grid");
        });
    }

    @Test
    void elementsRefuseBuffersThatCannotHoldTheirValues() {
        final ParioException e = assertThrows(ParioException.class, () -> Element.of(Datatype.DOUBLE, int[].class));
        assertTrue(e.getMessage().contains("int[] cannot hold values of type double"), e.getMessage());
        assertThrows(ParioException.class, () -> Element.of(Datatype.parse("struct([1,1],[0,8],[double,int])"),
            double[].class));
        assertEquals(3 * 5, Element.of(Datatype.contiguous(3, Datatype.DOUBLE), double[].class).allocate(5).length);
        assertThrows(ParioException.class, () -> Element.of(Datatype.resized(Datatype.DOUBLE, -8, 16)),
            "a lower bound other than 0 cannot be an array element");
    }
}
