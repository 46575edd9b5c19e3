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
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Mutations;
import org.pario.datatypes.Order;

@Timeout(120)
class CheckpointTest {
    private static final long[] SHAPE = {12, 10, 9};
    /** A struct element: {double; int} with C padding, 16 bytes. */
    private static final Element<ByteBuffer> PAIR = Element.of(Datatype.parse("struct([1,1], [0,8], [double, int])"));

    @TempDir
    Path dir;

    private static DistributedArray<double[]> field(final Communicator comm, final Dist... dists) {
        return DistributedArray.of(comm, Element.DOUBLE, SHAPE, dists);
    }

    /** Local buffer of a part: element at global linear index g holds g + 0.5. */
    private static double[] values(final DistributedArray<double[]> a) {
        final DistributedArray<double[]>.Local part = a.local();
        final double[] v = a.allocate();
        for (int i = 0; i < v.length; i++) {
            v[i] = part.globalLinear(i) + 0.5;
        }
        return v;
    }

    private static ByteBuffer pairs(final DistributedArray<ByteBuffer> a) {
        final DistributedArray<ByteBuffer>.Local part = a.local();
        final ByteBuffer b = a.allocate();
        for (int i = 0; i < part.intCount(); i++) {
            final long g = part.globalLinear(i);
            b.putDouble(16 * i, g * 2.0).putInt(16 * i + 8, (int) -g);
        }
        return b;
    }

    private void writeFirst(final Path file) {
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]> field = field(comm, Dist.block(), Dist.block(), Dist.cyclic())
                .grid(2, 2, 1);
            final DistributedArray<ByteBuffer> pairs = DistributedArray.of(comm, PAIR, new long[] {50},
                Dist.cyclic(3));
            // the padded struct array first: the next array must start past its padding too
            Checkpoint.at(file).writer()
                .attribute("step", 42).attribute("time", 1.25).attribute("name", "heat")
                .attribute("origin", new double[] {0, 0.5}).attribute("sizes", new long[] {12, 10, 9})
                .array("pairs", pairs, pairs(pairs))
                .array("field", field, values(field), Attributes.of("units", "K"))
                .write();
        });
    }

    /**
     * Prepared checkpoints (the exchange warmed in the background over a copy of the communicator) hold the same
     * data; the application's own collectives and communicators go on meanwhile; a second prepare does nothing; and
     * a job that ends with the rounds still running ends (closing the communicator stops them).
     */
    @Test
    void preparedCheckpointsHoldTheSameDataAndTheJobGoesOnMeanwhile() {
        final Path file = dir.resolve("prepared.ckpt");
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]> a = field(comm, Dist.cyclic(), Dist.block(), Dist.none());
            final Checkpoint checkpoint = Checkpoint.at(file);
            checkpoint.prepare(a);
            checkpoint.prepare(a);
            for (int i = 0; i < 20; i++) {
                try (Communicator c = i % 2 == 0 ? comm.dup() : comm.split(comm.rank() % 2, 0)) {
                    assertEquals(c.size(), c.allreduce(1L, org.pario.comm.Op.SUM));
                }
            }
            checkpoint.write("field", a, values(a));
        });
        LocalCluster.run(3, comm -> {
            final DistributedArray<double[]> a = field(comm, Dist.block(), Dist.cyclic(2), Dist.none());
            assertArrayEquals(values(a), Checkpoint.at(file).restore("field", a));
        });
        LocalCluster.run(2, comm -> Checkpoint.at(file).prepare(field(comm)));
    }

    @Test
    void writtenOnFourRanksRestoredOnSixOneAndFiveWithOtherDistributions() throws Exception {
        final Path file = dir.resolve("ck.pario");
        writeFirst(file);
        final CheckpointHeader h = Checkpoint.at(file).header();
        assertEquals(42, h.attributes().getLong("step"));
        assertEquals(1.25, h.attributes().getDouble("time"));
        assertEquals("heat", h.attributes().getString("name"));
        assertArrayEquals(new double[] {0, 0.5}, h.attributes().getDoubles("origin"));
        assertArrayEquals(new long[] {12, 10, 9}, h.attributes().getLongs("sizes"));
        assertEquals(4, h.ranks());
        assertEquals(List.of("pairs", "field"), h.names());
        assertEquals(50 * 16, h.array("pairs").bytes(), "50 elements of 16 bytes, padding included");
        final StoredArray f = h.array("field");
        assertEquals("K", f.attributes().getString("units"));
        assertEquals(List.of(Dist.block(), Dist.block(), Dist.cyclic()), f.dists());
        assertArrayEquals(new long[] {2, 2, 1}, f.grid());
        assertEquals(0, f.offset() % 4096);
        assertEquals(12 * 10 * 9 * 8, f.bytes());
        assertTrue(h.toString().contains("field") && h.toString().contains("block,block,cyclic")
            && h.toString().contains("attribute step = 42"), h.toString());
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
                final DistributedArray<double[]> field = field(comm, Dist.cyclic(2), Dist.none(), Dist.block());
                assertArrayEquals(values(field), Checkpoint.at(file).restore("field", field));
                final DistributedArray<ByteBuffer> p = DistributedArray.of(comm, PAIR, new long[] {50});
                final ByteBuffer got = Checkpoint.at(file.toUri()).restore("pairs", p);
                final ByteBuffer want = pairs(p);
                for (int i = 0; i < p.local().count(); i++) {
                    assertEquals(want.getDouble(16 * i), got.getDouble(16 * i));
                    assertEquals(want.getInt(16 * i + 8), got.getInt(16 * i + 8));
                }
            });
        }
    }

    private static Dist[] randomDists(final Random rnd, final int dims) {
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
    void roundTripsForEveryDistributionKindAndOrder() {
        final Random rnd = new Random(11);
        int done = 0;
        for (int trial = 0; trial < 60 && done < 20; trial++) {
            final long[] shape = {4 + rnd.nextInt(9), 3 + rnd.nextInt(7)};
            final Order order = rnd.nextBoolean() ? Order.C : Order.FORTRAN;
            final int from = 1 + rnd.nextInt(7);
            final int to = 1 + rnd.nextInt(7);
            final Dist[] a = randomDists(rnd, 2);
            final Dist[] b = randomDists(rnd, 2);
            final Path file = dir.resolve("rt" + trial + ".ckpt");
            final boolean[] fits = {true};
            LocalCluster.run(from, comm -> {
                final DistributedArray<double[]> x;
                try {
                    x = DistributedArray.of(comm, Element.DOUBLE, shape, a).order(order);
                } catch (ParioException e) {
                    fits[0] = false; // a grid the distributions cannot take (BLOCK(k) too small, NONE, many ranks)
                    return;
                }
                Checkpoint.at(file).write("x", x, values(x));
            });
            if (!fits[0]) {
                continue;
            }
            LocalCluster.run(to, comm -> {
                final DistributedArray<double[]> y;
                try {
                    y = DistributedArray.of(comm, Element.DOUBLE, shape, b).order(order);
                } catch (ParioException e) {
                    fits[0] = false;
                    return;
                }
                assertArrayEquals(values(y), Checkpoint.at(file).restore("x", y), y + ", rank " + comm.rank());
            });
            done += fits[0] ? 1 : 0;
        }
        assertTrue(done >= 15, done + " round trips");
    }

    /** A file of {@code json} behind a valid prefix, then the seed's bytes from {@code rest} on (padding, data). */
    private static byte[] withHeader(final byte[] json, final byte[] seed, final int rest) {
        final ByteBuffer b = ByteBuffer.allocate(HeaderCodec.PREFIX + json.length + seed.length - rest)
            .order(ByteOrder.LITTLE_ENDIAN);
        b.put(HeaderCodec.MAGIC).putInt(HeaderCodec.VERSION).putLong(json.length).putInt(0).put(json)
            .put(seed, rest, seed.length - rest);
        reseal(b.array());
        return b.array();
    }

    /** Puts a valid header checksum on a (mutated) file whose prefix still names a readable JSON length. */
    private static void reseal(final byte[] file) {
        if (file.length < HeaderCodec.PREFIX) {
            return;
        }
        final ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        final long length = b.getLong(12);
        if (length < 0 || length > file.length - HeaderCodec.PREFIX) {
            return;
        }
        final CRC32C crc = new CRC32C();
        crc.update(file, 0, 20);
        crc.update(file, HeaderCodec.PREFIX, (int) length);
        b.putInt(20, (int) crc.getValue());
    }

    /**
     * Hostile checkpoint files: every one is read or refused with Pario's own error, never half-read. Half the
     * inputs get a valid header checksum after mutation, so the JSON parser and the header's checks see them.
     */
    @Test
    void mutatedCheckpointFilesAreReadOrRefused() throws Exception {
        final Path good = dir.resolve("good.ckpt");
        LocalCluster.run(2, comm -> {
            final DistributedArray<ByteBuffer> p = DistributedArray.of(comm, PAIR, new long[] {10});
            Checkpoint.at(good).writer().attribute("k", "v").array("p", p, pairs(p)).write();
        });
        final byte[] seed = Files.readAllBytes(good);
        final Mutations m = new Mutations(5, java.util.Arrays.copyOf(seed, 900), seed);
        final int jsonLength = (int) ByteBuffer.wrap(seed).order(ByteOrder.LITTLE_ENDIAN).getLong(12);
        final Mutations json = new Mutations(6, java.util.Arrays.copyOfRange(seed, HeaderCodec.PREFIX,
            HeaderCodec.PREFIX + jsonLength));
        final Path bad = dir.resolve("bad.ckpt");
        int read = 0;
        for (int i = 0; i < Mutations.INPUTS; i++) {
            final byte[] input;
            if (i % 3 == 2) {
                // a structural edit of the JSON (deep nesting, huge numbers, long lists), with a valid prefix
                input = withHeader(json.nextStructured(), seed, HeaderCodec.PREFIX + jsonLength);
            } else {
                input = m.next();
                if (i % 3 == 0) {
                    reseal(input);
                }
            }
            Files.write(bad, input);
            try {
                Checkpoint.at(bad).header();
                read++;
                if (read % 10 == 0) {
                    // a header that reads must also survive verification: damage is reported, not thrown otherwise
                    final AtomicReference<Throwable> escaped = new AtomicReference<>();
                    LocalCluster.run(1, comm -> {
                        try {
                            Checkpoint.at(bad).verify(comm);
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
            } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
                throw new AssertionError("input " + i + " escaped with " + e, e);
            }
        }
        System.out.println("checkpoint headers: " + Mutations.INPUTS + " inputs, " + read + " read, the rest refused");
    }

    @Test
    void aFlippedByteIsReportedWithItsArrayAndRange() throws Exception {
        final Path file = dir.resolve("ck.pario");
        writeFirst(file);
        final StoredArray f = Checkpoint.at(file).header().array("field");
        flip(file, f.offset() + 1000, 0x10);
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm ->
            Checkpoint.at(file).verify(comm)));
        assertTrue(e.getMessage().contains("array 'field' is damaged in chunk 0, bytes 0 to 8640"), e.getMessage());
        assertEquals(2, e.getSuppressed().length, "every rank fails");
        assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> field = field(comm, Dist.block(), Dist.none(), Dist.none());
            Checkpoint.at(file).restore("field", field);
        }));
        // the other array is intact
        LocalCluster.run(2, comm -> Checkpoint.at(file).restore("pairs", DistributedArray.of(comm, PAIR,
            new long[] {50})));
    }

    /** Flips {@code bits} of the byte at {@code at}: damage on disk, for every test of this package. */
    static void flip(final Path file, final long at, final int bits) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, at);
            one.put(0, (byte) (one.get(0) ^ bits));
            ch.write(one.flip(), at);
        }
    }

    /**
     * A header longer than the first broadcast of its bytes (some 64 KiB: here 20,000 numbers of an attribute) reaches
     * every rank whole, and the restore through it holds the data; a short one is tested everywhere else.
     */
    @Test
    void aHeaderLongerThanItsFirstBroadcastReachesEveryRankWhole() {
        final Path file = dir.resolve("long-header.ckpt");
        final long[] sizes = new long[20_000];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = 1_000_000_007L * i;
        }
        LocalCluster.run(3, comm -> {
            final DistributedArray<double[]> a = field(comm, Dist.block(), Dist.cyclic(), Dist.none());
            Checkpoint.at(file).writer().attribute("sizes", sizes).array("field", a, values(a)).write();
        });
        assertTrue(HeaderCodec.json(Checkpoint.at(file).header()).length() > 64 << 10);
        LocalCluster.run(3, comm -> {
            final CheckpointHeader h = Checkpoint.at(file).header(comm);
            assertArrayEquals(sizes, h.attributes().getLongs("sizes"));
            assertEquals(Checkpoint.at(file).header().array("field").offset(), h.array("field").offset());
            final DistributedArray<double[]> a = field(comm, Dist.cyclic(), Dist.block(), Dist.none());
            assertArrayEquals(values(a), Checkpoint.at(file).restore("field", a));
        });
    }

    /** One flipped bit anywhere in the header (an order "c" becoming "b", a digit of a shape) is refused. */
    @Test
    void aFlippedBitInTheHeaderOrATruncatedFileIsRefused() throws Exception {
        final Path file = dir.resolve("ck.pario");
        writeFirst(file);
        final byte[] good = Files.readAllBytes(file);
        final String text = new String(good, 0, 4096, java.nio.charset.StandardCharsets.UTF_8);
        for (final String target : new String[] {"\"order\":\"c\"", "\"shape\":[12", "\"step\"", "\"units\""}) {
            Files.write(file, good);
            final int at = text.indexOf(target);
            assertTrue(at > 0, target);
            flip(file, at + target.length() - 2, 0x01);
            final ParioException e = assertThrows(ParioException.class, () -> Checkpoint.at(file).header());
            assertTrue(e.getMessage().contains("checksum does not match"), e.getMessage());
            final ParioException all = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm ->
                Checkpoint.at(file).verify(comm)));
            assertTrue(all.getMessage().contains("checksum does not match"), all.getMessage());
        }
        Files.write(file, java.util.Arrays.copyOf(good, good.length - 100));
        final ParioException cut = assertThrows(ParioException.class, () -> Checkpoint.at(file).header());
        assertTrue(cut.getMessage().contains("truncated: it holds " + (good.length - 100) + " bytes"),
            cut.getMessage());
    }

    @Test
    void aFailedWriteLeavesThePreviousCheckpointAndNoDebris() throws Exception {
        final Path file = dir.resolve("ck.pario");
        writeFirst(file);
        final byte[] before = Files.readAllBytes(file);
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm -> {
            final DistributedArray<double[]> field = field(comm, Dist.block(), Dist.none(), Dist.none());
            // rank 2 hands over a buffer one element short: the write fails on every rank before any data moves
            final double[] v = comm.rank() == 2 ? new double[field.local().intCount() - 1] : values(field);
            Checkpoint.at(file).write("field", field, v);
        }));
        assertTrue(e.getMessage().startsWith("rank 2: checkpoint " + file + ": the buffer of array 'field' holds 359 "
            + "double values"), e.getMessage());
        assertTrue(e.agreed(), "every rank raised the same error");
        assertArrayEquals(before, Files.readAllBytes(file), "the previous checkpoint is untouched");
        try (var files = Files.list(dir)) {
            assertEquals(List.of(file), files.toList(), "no hidden file left behind");
        }
        final ParioException notOne = assertThrows(ParioException.class, () -> Checkpoint.at(dir.resolve("missing"))
            .header());
        assertTrue(notOne.getMessage().contains("no such file " + dir.resolve("missing")), notOne.getMessage());
        Files.writeString(dir.resolve("junk"), "hello, not a checkpoint at all");
        assertTrue(assertThrows(ParioException.class, () -> Checkpoint.at(dir.resolve("junk")).header())
            .getMessage().contains("not a Pario checkpoint"));
    }

    // ------------------------------------------------------------------ never silently wrong

    /** A double array restored as long (same size, other values) fails on every rank naming both types. */
    @Test
    void aRestoreIntoAnotherElementTypeOfTheSameSizeFails() {
        final Path file = dir.resolve("d.ckpt");
        LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> d = DistributedArray.of(comm, Element.DOUBLE, new long[] {64});
            Checkpoint.at(file).write("x", d, values1d(d));
        });
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm ->
            Checkpoint.at(file).restore("x", DistributedArray.of(comm, Element.LONG, new long[] {64}))));
        assertTrue(e.getMessage().contains("the checkpoint's elements are double, these long"), e.getMessage());
        assertTrue(e.agreed());
        final ParioException pair = assertThrows(ParioException.class, () -> LocalCluster.run(1, comm ->
            Checkpoint.at(file).restore("x", DistributedArray.of(comm, Element.of(Datatype.parse(
                "struct([1,1],[0,4],[int,int])")), new long[] {64}))));
        assertTrue(pair.getMessage().contains("typemap"), pair.getMessage());
    }

    /**
     * One rank that cannot take the array (its buffer too short) fails the restore on every rank with its error; the
     * others, whose buffers are right, neither hang nor read.
     */
    @Test
    void aRestoreOneRankCannotTakeFailsOnEveryRankAlike() {
        final Path file = dir.resolve("one.ckpt");
        LocalCluster.run(3, comm -> {
            final DistributedArray<double[]> d = DistributedArray.of(comm, Element.DOUBLE, new long[] {60});
            Checkpoint.at(file).write("x", d, values1d(d));
        });
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm -> {
            final DistributedArray<double[]> d = DistributedArray.of(comm, Element.DOUBLE, new long[] {60});
            Checkpoint.at(file).restore("x", d, comm.rank() == 2 ? new double[3] : d.allocate());
        }));
        assertTrue(e.getMessage().startsWith("rank 2: "), e.getMessage());
        assertTrue(e.getMessage().contains("the buffer for 'x'"), e.getMessage());
        assertTrue(e.agreed());
        LocalCluster.run(3, comm -> {
            final DistributedArray<double[]> d = DistributedArray.of(comm, Element.DOUBLE, new long[] {60});
            assertArrayEquals(values1d(d), Checkpoint.at(file).restore("x", d), "the file is whole afterwards");
        });
    }

    private static double[] values1d(final DistributedArray<double[]> a) {
        final double[] v = a.allocate();
        for (int i = 0; i < v.length; i++) {
            v[i] = a.local().globalLinear(i);
        }
        return v;
    }

    /** Raw types let an int[] through the compiler for a double array: it fails at once, naming both. */
    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void aBufferOfAnotherJavaTypeFailsOnWriteAndRestore() {
        final Path file = dir.resolve("t.ckpt");
        final ParioException w = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            final DistributedArray raw = DistributedArray.of(comm, Element.DOUBLE, new long[] {64});
            Checkpoint.at(file).write("x", raw, new int[64]);
        }));
        assertTrue(w.getMessage().contains("is a int[], but the array's elements (double) are held in a double[]"),
            w.getMessage());
        LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> d = DistributedArray.of(comm, Element.DOUBLE, new long[] {64});
            Checkpoint.at(file).write("x", d, values1d(d));
        });
        final ParioException r = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            final DistributedArray raw = DistributedArray.of(comm, Element.DOUBLE, new long[] {64});
            Checkpoint.at(file).restore("x", raw, new long[32]);
        }));
        assertTrue(r.getMessage().contains("long[]"), r.getMessage());
        // a ByteBuffer holds any element, checked for size
        LocalCluster.run(2, comm -> {
            final DistributedArray<ByteBuffer> bytes = DistributedArray.of(comm, Element.of(Datatype.DOUBLE),
                new long[] {64});
            final ByteBuffer b = Checkpoint.at(file).restore("x", bytes);
            assertEquals(32 * comm.rank(), b.order(ByteOrder.nativeOrder()).getDouble(0));
        });
    }

    /** Ranks whose arrays are laid out differently would write overlapping or missing parts: refused. */
    @Test
    void ranksThatDescribeOtherLayoutsOrAttributesFail() {
        final Path file = dir.resolve("l.ckpt");
        final ParioException dists = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm -> {
            final DistributedArray<double[]> d = DistributedArray.of(comm, Element.DOUBLE, new long[] {30},
                comm.rank() == 1 ? Dist.cyclic() : Dist.block());
            Checkpoint.at(file).write("x", d, values1d(d));
        }));
        assertTrue(dists.getMessage().contains("rank 1 describes other arrays, layouts or attributes than rank 0"),
            dists.getMessage());
        final ParioException shape = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> d = DistributedArray.of(comm, Element.DOUBLE,
                new long[] {30 + comm.rank()});
            Checkpoint.at(file).write("x", d, values1d(d));
        }));
        assertTrue(shape.getMessage().contains("rank 1 describes other"), shape.getMessage());
        final ParioException order = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> d = DistributedArray.of(comm, Element.DOUBLE, new long[] {6, 5})
                .order(comm.rank() == 0 ? Order.C : Order.FORTRAN);
            Checkpoint.at(file).write("x", d, values1d(d));
        }));
        assertTrue(order.getMessage().contains("rank 1 describes other"), order.getMessage());
        final ParioException attribute = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> d = DistributedArray.of(comm, Element.DOUBLE, new long[] {30});
            Checkpoint.at(file).writer().attribute("step", comm.rank()).array("x", d, values1d(d)).write();
        }));
        assertTrue(attribute.getMessage().contains("rank 1 describes other"), attribute.getMessage());
        assertTrue(Files.notExists(file), "nothing was written");
    }

    @Test
    void arraysBoundToAnotherCommunicatorFail() {
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> a = DistributedArray.of(comm, Element.DOUBLE, new long[] {30});
            try (Communicator other = comm.dup()) {
                final DistributedArray<double[]> b = DistributedArray.of(other, Element.DOUBLE, new long[] {30});
                Checkpoint.at(dir.resolve("c.ckpt")).writer().array("a", a, a.allocate()).array("b", b, b.allocate())
                    .write();
            }
        }));
        assertTrue(e.getMessage().contains("array 'b' is bound to another communicator"), e.getMessage());
    }

    /** A 2-rank checkpoint restored by one rank is the whole array on that rank, never half of it. */
    @Test
    void restoredByAnyRankCountTheRanksGetTheWholeArray() {
        final Path file = dir.resolve("w.ckpt");
        LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> d = DistributedArray.of(comm, Element.DOUBLE, new long[] {64});
            Checkpoint.at(file).write("x", d, values1d(d));
        });
        LocalCluster.run(1, comm -> {
            final double[] all = Checkpoint.at(file).restore("x", DistributedArray.of(comm, Element.DOUBLE,
                new long[] {64}));
            assertEquals(64, all.length);
            assertEquals(63.0, all[63]);
        });
    }

    @Test
    void namesShapesAndOrdersThatDisagreeWithTheFileFailNamingBoth() {
        final Path file = dir.resolve("n.ckpt");
        LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> d = DistributedArray.of(comm, Element.DOUBLE, new long[] {8, 6});
            Checkpoint.at(file).write("x", d, values1d(d));
        });
        final ParioException name = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm ->
            Checkpoint.at(file).restore("y", DistributedArray.of(comm, Element.DOUBLE, new long[] {8, 6}))));
        assertTrue(name.getMessage().contains("has no array 'y'; it has [x]"), name.getMessage());
        final ParioException shape = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm ->
            Checkpoint.at(file).restore("x", DistributedArray.of(comm, Element.DOUBLE, new long[] {6, 8}))));
        assertTrue(shape.getMessage().contains("the checkpoint's array is [8, 6], this one [6, 8]"),
            shape.getMessage());
        final ParioException order = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm ->
            Checkpoint.at(file).restore("x", DistributedArray.of(comm, Element.DOUBLE, new long[] {8, 6})
                .order(Order.FORTRAN))));
        assertTrue(order.getMessage().contains("in C order, this one in FORTRAN"), order.getMessage());
    }

    @Test
    void aMissingDirectoryIsNamedAsTheDirectory() {
        final Path missing = dir.resolve("no/such/dir");
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> d = DistributedArray.of(comm, Element.DOUBLE, new long[] {8});
            Checkpoint.at(missing.resolve("x.ckpt")).write("x", d, d.allocate());
        }));
        assertTrue(e.getMessage().contains("the directory " + missing + " does not exist"), e.getMessage());
        assertTrue(!e.getMessage().contains(".tmp"), e.getMessage());
    }


    @Test
    void aRestoreOfAMissingFileOrOfOneThatIsNoCheckpointFailsEveryRankSayingSo() throws Exception {
        final Path missing = dir.resolve("missing.ckpt");
        final ParioException none = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm ->
            Checkpoint.at(missing).restore("x", DistributedArray.of(comm, Element.DOUBLE, new long[] {8}))));
        assertTrue(none.getMessage().contains("checkpoint " + missing + ": no such file " + missing),
            none.getMessage());
        assertTrue(none.agreed(), "every rank raised the same error");
        final Path junk = dir.resolve("junk.ckpt");
        Files.writeString(junk, "hello, not a checkpoint at all");
        final ParioException notOne = assertThrows(ParioException.class, () -> LocalCluster.run(3, comm ->
            Checkpoint.at(junk).restore("x", DistributedArray.of(comm, Element.DOUBLE, new long[] {8}))));
        assertTrue(notOne.getMessage().contains("not a Pario checkpoint"), notOne.getMessage());
        assertTrue(notOne.agreed(), "every rank raised the same error");
        assertEquals("hello, not a checkpoint at all", Files.readString(junk), "the file is left as it was");
    }
    @Test
    void theListenerSeesEveryPhaseInOrder() {
        final Path file = dir.resolve("p.ckpt");
        final List<String> seen = new java.util.ArrayList<>();
        final java.util.Map<CheckpointListener.Phase, Boolean> ended = new java.util.EnumMap<>(
            CheckpointListener.Phase.class);
        LocalCluster.run(2, comm -> {
            final DistributedArray<double[]> d = DistributedArray.of(comm, Element.DOUBLE, new long[] {1 << 16});
            final CheckpointListener l = (phase, done, total) -> {
                assertTrue(done >= 0 && done <= total, phase + " " + done + "/" + total);
                if (comm.rank() == 0) {
                    if (seen.isEmpty() || !seen.get(seen.size() - 1).equals(phase.name())) {
                        seen.add(phase.name());
                    }
                    ended.put(phase, done == total);
                }
            };
            Checkpoint.at(file).listener(l).write("x", d, values1d(d));
            Checkpoint.at(file).listener(l).restore("x", d);
        });
        assertEquals(List.of("AGREE", "WRITE", "CHECKSUM", "COMMIT", "AGREE", "READ", "VERIFY"), seen);
        assertTrue(ended.values().stream().allMatch(b -> b), "every phase's last call reports it whole: " + ended);
    }

    /** A listener that throws on one rank does not take that rank out of the collectives the others are in. */
    @Test
    void aListenerThatThrowsOnOneRankFailsThatRanksCallAfterTheCheckpointIsWhole() {
        final Path file = dir.resolve("listener.ckpt");
        final String[] outcome = new String[4];
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]> field = field(comm, Dist.block(), Dist.block(), Dist.cyclic());
            final CheckpointListener listener = (phase, done, total) -> {
                if (comm.rank() == 2 && phase == CheckpointListener.Phase.WRITE && done > 0) {
                    throw new IllegalStateException("listener bug");
                }
            };
            try {
                Checkpoint.at(file).listener(listener).write("field", field, values(field));
                outcome[comm.rank()] = "ok";
            } catch (ParioException e) {
                outcome[comm.rank()] = e.getMessage();
            }
            comm.barrier(); // every rank is still in step
        });
        assertEquals("ok", outcome[0]);
        assertEquals("ok", outcome[3]);
        assertTrue(outcome[2].contains("its listener threw on rank 2 (the call itself completed on every rank)")
            && outcome[2].contains("listener bug"), outcome[2]);
        LocalCluster.run(3, comm -> {
            final DistributedArray<double[]> field = field(comm, Dist.cyclic(), Dist.none(), Dist.none());
            assertArrayEquals(values(field), Checkpoint.at(file).restore("field", field));
        });
    }

    @Test
    void phasesAndRoundsAreRecordedAsFlightRecorderEvents() throws Exception {
        final Path file = dir.resolve("jfr.ckpt");
        final Path jfr = dir.resolve("run.jfr");
        try (jdk.jfr.Recording r = new jdk.jfr.Recording()) {
            r.enable("org.pario.CheckpointPhase");
            r.enable("org.pario.TwoPhaseRound");
            r.start();
            LocalCluster.run(2, comm -> {
                final DistributedArray<double[]> d = DistributedArray.of(comm, Element.DOUBLE, new long[] {1 << 16},
                    Dist.cyclic());
                Checkpoint.at(file).write("x", d, values1d(d));
            });
            r.stop();
            r.dump(jfr);
        }
        final List<String> phases = new java.util.ArrayList<>();
        int rounds = 0;
        for (final jdk.jfr.consumer.RecordedEvent e : jdk.jfr.consumer.RecordingFile.readAllEvents(jfr)) {
            if (e.getEventType().getName().equals("org.pario.CheckpointPhase") && e.getInt("rank") == 0) {
                phases.add(e.getString("phase"));
                assertEquals(file.toString(), e.getString("location"));
            } else if (e.getEventType().getName().equals("org.pario.TwoPhaseRound")) {
                rounds++;
            }
        }
        assertEquals(List.of("AGREE", "WRITE", "CHECKSUM", "COMMIT"), phases);
        assertTrue(rounds > 0, "two-phase rounds recorded");
    }
}
