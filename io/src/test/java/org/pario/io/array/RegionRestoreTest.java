package org.pario.io.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;

@Timeout(120)
class RegionRestoreTest {
    /** 3 MiB of doubles and a little more: four checksum chunks of 1 MiB, rows of 800 bytes. */
    private static final long[] SHAPE = {48, 82, 100};
    private static final Element<ByteBuffer> PAIR = Element.of(Datatype.parse("struct([1,1], [0,8], [double, int])"));

    @TempDir
    Path dir;

    /** Element at global linear index g (in the array's order) holds g + 0.5. */
    private static double[] values(final DistributedArray<double[]> a) {
        final DistributedArray<double[]>.Local part = a.local();
        final double[] v = a.allocate();
        for (int i = 0; i < v.length; i++) {
            v[i] = part.globalLinear(i) + 0.5;
        }
        return v;
    }

    private Path written(final String name, final Order order, final long[] shape) {
        final Path file = dir.resolve(name);
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]> field = DistributedArray.of(comm, Element.DOUBLE, shape, Dist.block(),
                Dist.cyclic(3), Dist.block()).order(order);
            Checkpoint.at(file).write("field", field, values(field));
        });
        return file;
    }

    /** The value the region's element at box position {@code p} (linear, in the array's order) must hold. */
    private static double expected(final long[] shape, final Order order, final Region r, final long[] box) {
        final long[] start = r.start();
        final long[] stride = r.stride();
        long g = 0;
        final int n = shape.length;
        for (int k = 0; k < n; k++) {
            final int d = order == Order.C ? k : n - 1 - k;
            g = g * shape[d] + start[d] + box[d] * stride[d];
        }
        return g + 0.5;
    }

    /** Checks a rank's part of a region restored as {@code part}'s array. */
    private static void assertRegion(final long[] shape, final Order order, final Region r,
                                     final DistributedArray<double[]> box, final double[] got) {
        final DistributedArray<double[]>.Local part = box.local();
        assertEquals(part.count(), got.length);
        for (int i = 0; i < got.length; i++) {
            final long[] at = part.globalIndex(i);
            assertEquals(expected(shape, order, r, at), got[i], "element " + i + " " + java.util.Arrays.toString(at)
                + " of " + box + " on rank " + part.rank());
        }
    }

    @Test
    void regionsAtEdgesAndStridedRegionsOfACyclicArrayRestoreOnOneThreeAndFiveRanks() {
        final Path file = written("c.ckpt", Order.C, SHAPE);
        final List<Region> regions = List.of(
            Region.of(new long[] {0, 0, 0}, new long[] {1, 1, 1}),
            Region.of(new long[] {47, 81, 99}, new long[] {1, 1, 1}),
            Region.of(new long[] {40, 0, 90}, new long[] {8, 82, 10}),
            Region.of(new long[] {3, 5, 7}, new long[] {20, 30, 40}).stride(2, 2, 2),
            Region.of(new long[] {0, 1, 0}, new long[] {48, 27, 1}).stride(1, 3, 1),
            Region.all(SHAPE),
            Region.parse("10:30:7, 80, ::33", SHAPE));
        for (final int ranks : new int[] {1, 3, 5}) {
            LocalCluster.run(ranks, comm -> {
                for (final Region r : regions) {
                    for (final Dist[] d : new Dist[][] {{Dist.cyclic(), Dist.block(), Dist.cyclic(2)},
                        {Dist.block(), Dist.none(), Dist.cyclic()}}) {
                        final DistributedArray<double[]> box = boxOf(comm, r, d);
                        assertRegion(SHAPE, Order.C, r, box, Checkpoint.at(file).restore("field", r, box));
                    }
                }
            });
        }
    }

    /** The region as an array on {@code comm}, with {@code d} where the grid can take it and BLOCK otherwise. */
    private static DistributedArray<double[]> boxOf(final Communicator comm, final Region r, final Dist[] d) {
        try {
            return DistributedArray.of(comm, Element.DOUBLE, r.count(), d);
        } catch (ParioException e) {
            return DistributedArray.of(comm, Element.DOUBLE, r.count());
        }
    }

    @Test
    void aFortranOrderArrayReadsItsRegionsInItsOrder() {
        final long[] shape = {90, 70, 33};
        final Path file = written("f.ckpt", Order.FORTRAN, shape);
        final Region r = Region.of(new long[] {5, 3, 2}, new long[] {40, 30, 10}).stride(2, 1, 3);
        LocalCluster.run(3, comm -> {
            final DistributedArray<double[]> box = DistributedArray.of(comm, Element.DOUBLE, r.count(), Dist.cyclic(4),
                Dist.block(), Dist.none()).order(Order.FORTRAN);
            assertRegion(shape, Order.FORTRAN, r, box, Checkpoint.at(file).restore("field", r, box));
        });
        final double[] alone = Checkpoint.at(file).read("field", r, Element.DOUBLE);
        LocalCluster.run(1, comm -> assertRegion(shape, Order.FORTRAN, r, DistributedArray.of(comm, Element.DOUBLE,
            r.count()).order(Order.FORTRAN), alone));
    }

    @Test
    void oneProcessReadsARegionOrTheWholeArrayWithoutACommunicator() {
        final Path file = written("one.ckpt", Order.C, SHAPE);
        final Region r = Region.parse("1:48:5, 2:80, 99", SHAPE);
        final double[] got = Checkpoint.at(file).read("field", r, Element.DOUBLE);
        LocalCluster.run(1, comm -> assertRegion(SHAPE, Order.C, r, DistributedArray.of(comm, Element.DOUBLE,
            r.count()), got));
        final double[] all = Checkpoint.at(file).read("field", Element.DOUBLE);
        for (int g = 0; g < all.length; g++) {
            assertEquals(g + 0.5, all[g]);
        }
        final double[] none = Checkpoint.at(file).read("field", Region.of(new long[] {3, 0, 0},
            new long[] {0, 82, 100}), Element.DOUBLE);
        assertEquals(0, none.length, "an empty region reads nothing");
    }

    @Test
    void structElementsAndTheirPaddingComeThrough() {
        final Path file = dir.resolve("pairs.ckpt");
        final long[] shape = {300, 257};
        LocalCluster.run(4, comm -> {
            final DistributedArray<ByteBuffer> a = DistributedArray.of(comm, PAIR, shape, Dist.cyclic(), Dist.block());
            final ByteBuffer b = a.allocate();
            for (int i = 0; i < a.local().intCount(); i++) {
                final long g = a.local().globalLinear(i);
                b.putDouble(16 * i, g * 2.0).putInt(16 * i + 8, (int) -g);
            }
            Checkpoint.at(file).write("pairs", a, b);
        });
        final Region r = Region.of(new long[] {7, 3}, new long[] {97, 80}).stride(3, 3);
        LocalCluster.run(3, comm -> {
            final DistributedArray<ByteBuffer> box = DistributedArray.of(comm, PAIR, r.count(), Dist.block(),
                Dist.cyclic(2));
            final ByteBuffer got = Checkpoint.at(file).restore("pairs", r, box);
            final DistributedArray<ByteBuffer>.Local part = box.local();
            for (int i = 0; i < part.intCount(); i++) {
                final long[] at = part.globalIndex(i);
                final long g = (7 + 3 * at[0]) * 257 + 3 + 3 * at[1];
                assertEquals(g * 2.0, got.getDouble(16 * i));
                assertEquals((int) -g, got.getInt(16 * i + 8));
            }
        });
    }

    /**
     * Elements of 24 bytes cross the 1 MiB chunk boundaries, so a window reads on past its last chunk; small
     * windows (cb_buffer_size) make many rounds, and far-apart rows make windows of several pieces.
     */
    @Test
    void elementsAcrossChunkBoundariesAndWindowsOfManyPieces() {
        final Path file = dir.resolve("triples.ckpt");
        final Element<ByteBuffer> triple = Element.of(Datatype.parse("contiguous(3, double)"));
        final long[] shape = {700, 300};
        LocalCluster.run(4, comm -> {
            final DistributedArray<ByteBuffer> a = DistributedArray.of(comm, triple, shape, Dist.cyclic(5),
                Dist.block());
            final ByteBuffer b = a.allocate();
            for (int i = 0; i < a.local().intCount(); i++) {
                final long g = a.local().globalLinear(i);
                b.putDouble(24 * i, g).putDouble(24 * i + 8, -g).putDouble(24 * i + 16, g * 0.5);
            }
            Checkpoint.at(file).write("t", a, b);
        });
        for (final String window : new String[] {"1048576", "3145728", "16777216"}) {
            for (final Region r : List.of(Region.parse("0:700, 100:200", shape), Region.parse("3:700:97, :", shape),
                Region.parse("1:699:2, 0:300:7", shape))) {
                LocalCluster.run(3, comm -> {
                    final DistributedArray<ByteBuffer> box = DistributedArray.of(comm, triple, r.count(),
                        Dist.cyclic(2), Dist.block());
                    final ByteBuffer got = Checkpoint.at(file).hints(org.pario.io.Hints.of(java.util.Map.of(
                        "cb_buffer_size", window))).restore("t", r, box);
                    for (int i = 0; i < box.local().intCount(); i++) {
                        final long[] at = box.local().globalIndex(i);
                        final long g = (r.start()[0] + at[0] * r.stride()[0]) * 300 + r.start()[1]
                            + at[1] * r.stride()[1];
                        assertEquals(g, got.getDouble(24 * i), r + " element " + i);
                        assertEquals(-g, got.getDouble(24 * i + 8));
                        assertEquals(g * 0.5, got.getDouble(24 * i + 16));
                    }
                });
            }
        }
    }

    @Test
    void regionsPastTheArrayOrOfTheWrongShapeFailOnEveryRankNamingTheDimension() {
        final Path file = written("bad.ckpt", Order.C, SHAPE);
        final Region past = Region.of(new long[] {40, 0, 0}, new long[] {9, 1, 1});
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm ->
            Checkpoint.at(file).restore("field", past, DistributedArray.of(comm, Element.DOUBLE, past.count()))));
        assertTrue(e.getMessage().contains("reaches past the array [48, 82, 100] in dimension 0: its last index "
            + "there is 48"), e.getMessage());
        assertEquals(2, e.getSuppressed().length, "every rank fails");
        final Region strided = Region.of(new long[] {0, 0, 0}, new long[] {1, 42, 1}).stride(1, 2, 1);
        assertThrows(ParioException.class, () -> Checkpoint.at(file).read("field", strided, Element.DOUBLE));
        final Region box = Region.of(new long[] {0, 0, 0}, new long[] {2, 2, 2});
        final ParioException shape = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm ->
            Checkpoint.at(file).restore("field", box, DistributedArray.of(comm, Element.DOUBLE, new long[] {2, 4}))));
        assertTrue(shape.getMessage().contains("the region holds [2, 2, 2] elements, the array is [2, 4]"),
            shape.getMessage());
        assertThrows(ParioException.class, () -> Checkpoint.at(file).read("field", box, Element.LONG));
        assertThrows(ParioException.class, () -> Region.parse("0:10, 5:3, :", SHAPE));
        assertThrows(ParioException.class, () -> Region.parse("0:10, :", SHAPE));
        assertThrows(ParioException.class, () -> Region.parse("0:10, x, :", SHAPE));
        assertThrows(ParioException.class, () -> Region.parse("0:10, 0:83, :", SHAPE));
        assertThrows(ParioException.class, () -> Region.of(new long[] {0, -1}, new long[] {1, 1}));
        assertThrows(ParioException.class, () -> Region.of(new long[] {0, 1}, new long[] {1, 1}).stride(1, 0));
    }

    @Test
    void aDamagedChunkFailsOnlyTheRegionsThatTouchIt() throws Exception {
        final Path file = written("damaged.ckpt", Order.C, SHAPE);
        final StoredArray a = Checkpoint.at(file).header().array("field");
        // chunk 2 starts at byte 2 MiB: row (2 MiB / 800) of the flattened first two dimensions
        CheckpointTest.flip(file, a.offset() + (2 << 20) + 16, 0x01);
        final Region before = Region.parse("0:20, :, :", SHAPE);
        LocalCluster.run(3, comm -> assertRegion(SHAPE, Order.C, before, DistributedArray.of(comm, Element.DOUBLE,
            before.count()), Checkpoint.at(file).restore("field", before, DistributedArray.of(comm, Element.DOUBLE,
            before.count()))));
        final Region across = Region.parse("30:48, 0:4, 0:2", SHAPE);
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm ->
            Checkpoint.at(file).restore("field", across, DistributedArray.of(comm, Element.DOUBLE,
                across.count()))));
        assertTrue(e.getMessage().contains("array 'field' is damaged in chunk 2, bytes 2097152 to 3145728 of its "
            + "data"), e.getMessage());
        assertEquals(2, e.getSuppressed().length, "every rank fails");
        final ParioException alone = assertThrows(ParioException.class, () -> Checkpoint.at(file).read("field",
            across, Element.DOUBLE));
        assertTrue(alone.getMessage().contains("chunk 2"), alone.getMessage());
    }

    @Test
    void theChunksReadAreExactlyThoseTheRegionTouches() {
        final Random rnd = new Random(5);
        for (int trial = 0; trial < 400; trial++) {
            final int n = 1 + rnd.nextInt(3);
            final long[] shape = new long[n];
            final long[] start = new long[n];
            final long[] count = new long[n];
            final long[] stride = new long[n];
            for (int d = 0; d < n; d++) {
                shape[d] = 1 + rnd.nextInt(12);
                stride[d] = 1 + rnd.nextInt(3);
                start[d] = rnd.nextInt((int) shape[d]);
                count[d] = rnd.nextInt(5) == 0 ? 0 : 1 + (shape[d] - 1 - start[d]) / stride[d];
                count[d] = count[d] == 0 ? 0 : 1 + rnd.nextInt((int) count[d]);
            }
            final Order order = rnd.nextBoolean() ? Order.C : Order.FORTRAN;
            final Datatype el = rnd.nextBoolean() ? Datatype.DOUBLE : PAIR.type();
            final long chunk = 1 + rnd.nextInt(100);
            long elements = 1;
            for (final long s : shape) {
                elements *= s;
            }
            final long bytes = elements * el.extent();
            final StoredArray a = new StoredArray("x", shape, el, order, List.of(), new long[0], Attributes.NONE, 4096,
                bytes, new long[(int) ((bytes + chunk - 1) / chunk)]);
            final Region r = Region.of(start, count).stride(stride);
            final RegionReader reader = new RegionReader("x", a, chunk, r, RegionOwners.oneProcess(n));
            final TreeSet<Long> want = new TreeSet<>();
            final long[] box = new long[n];
            if (!r.isEmpty()) {
                do {
                    long g = 0;
                    for (int k = 0; k < n; k++) {
                        final int d = order == Order.C ? k : n - 1 - k;
                        g = g * shape[d] + start[d] + box[d] * stride[d];
                    }
                    // the struct's 4 bytes of padding after the int hold no data
                    final long from = g * el.extent();
                    final long to = from + el.trueExtent();
                    for (long c = from / chunk; c <= (to - 1) / chunk; c++) {
                        want.add(c);
                    }
                } while (next(box, count));
            }
            final TreeSet<Long> got = new TreeSet<>();
            final List<long[]> ranges = reader.coveringChunks();
            long last = -1;
            for (final long[] c : ranges) {
                assertTrue(c[0] > last, "ranges ascend and are merged");
                last = c[1];
                for (long i = c[0]; i < c[1]; i++) {
                    got.add(i);
                }
            }
            assertEquals(want, got, "shape " + java.util.Arrays.toString(shape) + " " + order + " region " + r
                + " chunk " + chunk + " element " + el.extent());
            final List<long[]> shares = new ArrayList<>();
            for (int rank = 0; rank < 3; rank++) {
                shares.addAll(RegionReader.share(ranges, rank, 3));
            }
            long total = 0;
            for (final long[] s : shares) {
                total += s[1] - s[0];
            }
            assertEquals(want.size(), total, "the shares cover every chunk once");
        }
    }

    private static boolean next(final long[] box, final long[] count) {
        for (int d = box.length - 1; d >= 0; d--) {
            if (++box[d] < count[d]) {
                return true;
            }
            box[d] = 0;
        }
        return false;
    }
}
