package org.pario.io.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ParioException;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;
import org.pario.io.Hints;

@Timeout(120)
class CheckpointTest {
    private static final long[] SHAPE = {12, 10, 9};
    /** A struct element: {double; int} with C padding, 16 bytes. */
    private static final Datatype PAIR = Datatype.parse("struct([1,1], [0,8], [double, int])");

    @TempDir
    Path dir;

    private static DistributedArray field(final int ranks, final Dist[] dists, final long[] grid, final Order order) {
        return DistributedArray.of(SHAPE, Datatype.DOUBLE, dists, grid, ranks, order);
    }

    /** Local buffer of a part: element at global linear index g holds g + 0.5. */
    private static double[] values(final DistributedArray.Local part) {
        final double[] v = new double[(int) part.count()];
        for (int i = 0; i < v.length; i++) {
            v[i] = part.globalLinear(i) + 0.5;
        }
        return v;
    }

    private static ByteBuffer pairs(final DistributedArray.Local part) {
        final ByteBuffer b = ByteBuffer.allocate((int) (16 * part.count())).order(ByteOrder.nativeOrder());
        for (int i = 0; i < part.count(); i++) {
            final long g = part.globalLinear(i);
            b.putDouble(16 * i, g * 2.0).putInt(16 * i + 8, (int) -g);
        }
        return b;
    }

    private void writeFirst(final Path file) {
        LocalCluster.run(4, comm -> {
            final DistributedArray.Local field = field(4, new Dist[] {Dist.block(), Dist.block(), Dist.cyclic()},
                new long[] {2, 2, 1}, Order.C).local(comm.rank());
            final DistributedArray.Local pairs = DistributedArray.of(new long[] {50}, PAIR,
                new Dist[] {Dist.cyclic(3)}, null, 4, Order.C).local(comm.rank());
            // the padded struct array first: the next array must start past its padding too
            Checkpoint.write(comm, file.toString(), List.of(new Checkpoint.Entry("pairs", pairs, pairs(pairs)),
                new Checkpoint.Entry("field", field, values(field))), Map.of("step", "42"), Hints.DEFAULT);
        });
    }

    @Test
    void writtenOnFourRanksRestoredOnSixAndOneWithOtherDistributions() throws Exception {
        final Path file = dir.resolve("ck.pario");
        writeFirst(file);
        final Checkpoint.Header h = Checkpoint.info(file.toString());
        assertEquals("42", h.metadata().get("step"));
        assertEquals(List.of("pairs", "field"), h.arrays().stream().map(Checkpoint.ArrayInfo::name).toList());
        assertEquals(50 * 16, h.array("pairs").bytes(), "50 elements of 16 bytes, padding included");
        final Checkpoint.ArrayInfo f = h.array("field");
        assertEquals(0, f.offset() % 4096);
        assertEquals(12 * 10 * 9 * 8, f.bytes());
        // the data is a plain array in global C order at its offset
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            final ByteBuffer raw = ByteBuffer.allocate((int) f.bytes()).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(raw, f.offset());
            for (int g = 0; g < 1080; g++) {
                assertEquals(g + 0.5, raw.getDouble(8 * g), "element " + g);
            }
        }
        for (final int ranks : new int[] {6, 1, 5}) {
            LocalCluster.run(ranks, comm -> {
                final DistributedArray.Local part = field(ranks, new Dist[] {Dist.cyclic(2), Dist.none(),
                    Dist.block()}, null, Order.C).local(comm.rank());
                final double[] back = new double[(int) part.count()];
                Checkpoint.restore(comm, file.toString(), "field", part, back, Hints.DEFAULT);
                assertArrayEquals(values(part), back);
                final DistributedArray.Local p = DistributedArray.of(new long[] {50}, PAIR,
                    new Dist[] {Dist.block()}, null, ranks, Order.C).local(comm.rank());
                final ByteBuffer got = ByteBuffer.allocate((int) (16 * p.count())).order(ByteOrder.nativeOrder());
                Checkpoint.restore(comm, file.toString(), "pairs", p, got, Hints.DEFAULT);
                final ByteBuffer want = pairs(p);
                for (int i = 0; i < p.count(); i++) {
                    assertEquals(want.getDouble(16 * i), got.getDouble(16 * i));
                    assertEquals(want.getInt(16 * i + 8), got.getInt(16 * i + 8));
                }
            });
        }
    }

    private static Dist[] randomDists(final java.util.Random rnd, final int dims) {
        final Dist[] d = new Dist[dims];
        for (int i = 0; i < dims; i++) {
            d[i] = switch (rnd.nextInt(5)) {
                case 0 -> Dist.none();
                case 1 -> Dist.cyclic();
                case 2 -> Dist.cyclic(1 + rnd.nextInt(3));
                case 3 -> Dist.block(4 + rnd.nextInt(3));
                default -> Dist.block();
            };
        }
        return d;
    }

    /** Random distributions, orders and rank counts (1..7) on both sides of a checkpoint. */
    @Test
    void roundTripsForEveryDistributionKindAndOrder() throws Exception {
        final java.util.Random rnd = new java.util.Random(11);
        int done = 0;
        for (int trial = 0; trial < 60 && done < 20; trial++) {
            final long[] shape = {4 + rnd.nextInt(9), 3 + rnd.nextInt(7)};
            final Order order = rnd.nextBoolean() ? Order.C : Order.FORTRAN;
            final int from = 1 + rnd.nextInt(7);
            final int to = 1 + rnd.nextInt(7);
            final DistributedArray a;
            final DistributedArray b;
            try {
                a = DistributedArray.of(shape, Datatype.DOUBLE, randomDists(rnd, 2), null, from, order);
                b = DistributedArray.of(shape, Datatype.DOUBLE, randomDists(rnd, 2), null, to, order);
            } catch (ParioException e) {
                continue; // a grid the distributions cannot take (BLOCK(k) too small, NONE with many ranks)
            }
            final Path file = dir.resolve("rt" + trial + ".ckpt");
            LocalCluster.run(from, comm -> {
                final DistributedArray.Local part = a.local(comm.rank());
                Checkpoint.write(comm, file.toString(), List.of(new Checkpoint.Entry("x", part, values(part))),
                    Map.of(), Hints.DEFAULT);
            });
            LocalCluster.run(to, comm -> {
                final DistributedArray.Local part = b.local(comm.rank());
                final double[] back = new double[(int) part.count()];
                Checkpoint.restore(comm, file.toString(), "x", part, back, Hints.DEFAULT);
                assertArrayEquals(values(part), back, a + " -> " + b + ", rank " + comm.rank());
            });
            done++;
        }
        assertEquals(20, done);
    }

    /** Hostile checkpoint files: every one is read or refused with Pario's own error, never half-read. */
    @Test
    void mutatedCheckpointFilesAreReadOrRefused() throws Exception {
        final Path good = dir.resolve("good.ckpt");
        LocalCluster.run(2, comm -> {
            final DistributedArray.Local part = DistributedArray.of(new long[] {10}, PAIR, new Dist[] {Dist.block()},
                null, 2, Order.C).local(comm.rank());
            Checkpoint.write(comm, good.toString(), List.of(new Checkpoint.Entry("p", part, pairs(part))),
                Map.of("k", "v"), Hints.DEFAULT);
        });
        final byte[] seed = Files.readAllBytes(good);
        final org.pario.datatypes.Mutations m = new org.pario.datatypes.Mutations(5,
            java.util.Arrays.copyOf(seed, 700), seed);
        final Path bad = dir.resolve("bad.ckpt");
        int read = 0;
        for (int i = 0; i < org.pario.datatypes.Mutations.INPUTS; i++) {
            final byte[] input = m.next();
            Files.write(bad, input);
            try {
                Checkpoint.info(bad.toString());
                read++;
                if (read % 10 == 0) {
                    // a header that reads must also survive verification: damage is reported, not thrown otherwise
                    final java.util.concurrent.atomic.AtomicReference<Throwable> escaped =
                        new java.util.concurrent.atomic.AtomicReference<>();
                    LocalCluster.run(1, comm -> {
                        try {
                            Checkpoint.verify(comm, bad.toString());
                        } catch (ParioException reported) {
                            // damage named
                        } catch (RuntimeException | OutOfMemoryError e) {
                            escaped.set(e);
                        }
                    });
                    if (escaped.get() != null) {
                        throw new AssertionError("verifying input " + i + " escaped with " + escaped.get(),
                            escaped.get());
                    }
                }
            } catch (ParioException refused) {
                // the expected outcome for most
            } catch (RuntimeException | OutOfMemoryError e) {
                throw new AssertionError("input " + i + " escaped with " + e, e);
            }
        }
        System.out.println("checkpoint headers: " + org.pario.datatypes.Mutations.INPUTS + " inputs, " + read
            + " read, the rest refused");
    }

    @Test
    void aFlippedByteIsReportedWithItsArrayAndRange() throws Exception {
        final Path file = dir.resolve("ck.pario");
        writeFirst(file);
        final Checkpoint.ArrayInfo f = Checkpoint.info(file.toString()).array("field");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, f.offset() + 1000);
            one.put(0, (byte) (one.get(0) ^ 0x10));
            ch.write(one.flip(), f.offset() + 1000);
        }
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm ->
            Checkpoint.verify(comm, file.toString())));
        assertTrue(e.getMessage().contains("array 'field' is damaged in bytes 0 to 8640"), e.getMessage());
        assertEquals(2, e.getSuppressed().length, "every rank fails");
        assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            final DistributedArray.Local part = field(2, new Dist[] {Dist.block(), Dist.none(), Dist.none()}, null,
                Order.C).local(comm.rank());
            Checkpoint.restore(comm, file.toString(), "field", part, new double[(int) part.count()], Hints.DEFAULT);
        }));
        // the other array is intact
        LocalCluster.run(2, comm -> {
            final DistributedArray.Local p = DistributedArray.of(new long[] {50}, PAIR, new Dist[] {Dist.block()},
                null, 2, Order.C).local(comm.rank());
            Checkpoint.restore(comm, file.toString(), "pairs", p, ByteBuffer.allocate((int) (16 * p.count())),
                Hints.DEFAULT);
        });
    }

    @Test
    void aFailedWriteLeavesThePreviousCheckpointAndNoDebris() throws Exception {
        final Path file = dir.resolve("ck.pario");
        writeFirst(file);
        final byte[] before = Files.readAllBytes(file);
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm -> {
            final DistributedArray.Local part = field(3, new Dist[] {Dist.block(), Dist.none(), Dist.none()}, null,
                Order.C).local(comm.rank());
            // rank 2 hands over something that is not a buffer: the collective write fails on every rank
            final Object buffer = comm.rank() == 2 ? "not a buffer" : values(part);
            Checkpoint.write(comm, file.toString(), List.of(new Checkpoint.Entry("field", part, buffer)), Map.of(),
                Hints.DEFAULT);
        }));
        assertTrue(e.getMessage().contains("rank 2: buffer must be"), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(file), "the previous checkpoint is untouched");
        try (var files = Files.list(dir)) {
            assertEquals(List.of(file), files.toList(), "no hidden file left behind");
        }
        final ParioException mismatch = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            final DistributedArray.Local part = field(2, new Dist[] {Dist.block(), Dist.none(), Dist.none()}, null,
                Order.C).local(comm.rank());
            Checkpoint.write(comm, file.toString(), List.of(new Checkpoint.Entry(comm.rank() == 0 ? "a" : "b", part,
                values(part))), Map.of(), Hints.DEFAULT);
        }));
        assertTrue(mismatch.getMessage().contains("describes other arrays"), mismatch.getMessage());
        final ParioException notOne = assertThrows(ParioException.class, () -> Checkpoint.info(
            dir.resolve("missing").toString()));
        assertTrue(notOne.getMessage().contains("missing"));
        Files.writeString(dir.resolve("junk"), "hello, not a checkpoint at all");
        assertTrue(assertThrows(ParioException.class, () -> Checkpoint.info(dir.resolve("junk").toString()))
            .getMessage().contains("not a Pario checkpoint"));
    }
}
