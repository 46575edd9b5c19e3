package org.pario.datatypes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Properties of random nested types checked against the naive typemap expansion: runs, typemaps, signatures,
 * seeking, range limits, pack/unpack in both representations, and the text round trip.
 */
class DatatypePropertiesTest {
    private static List<long[]> cursorRuns(final Cursor c) {
        final List<long[]> runs = new ArrayList<>();
        while (c.next()) {
            runs.add(new long[] {c.offset(), c.length()});
        }
        return runs;
    }

    private static String show(final List<long[]> runs) {
        final StringBuilder b = new StringBuilder();
        for (final long[] r : runs) {
            b.append('[').append(r[0]).append(',').append(r[1]).append(']');
        }
        return b.toString();
    }

    /** Byte addresses of the stream, in stream order. */
    private static long[] streamAddresses(final List<long[]> runs) {
        final long total = runs.stream().mapToLong(r -> r[1]).sum();
        final long[] addresses = new long[(int) total];
        int k = 0;
        for (final long[] r : runs) {
            for (long i = 0; i < r[1]; i++) {
                addresses[k++] = r[0] + i;
            }
        }
        return addresses;
    }

    @Property(tries = 400)
    void cursorRunsEqualNaiveExpansion(@ForAll final long seed, @ForAll @IntRange(min = 0, max = 3) final int count) {
        final Datatype t = new RandomTypes(seed, false).next(4);
        assertEquals(show(NaiveTypemap.runs(t, count)), show(cursorRuns(t.cursor(count))), t.toString());
    }

    @Property(tries = 300)
    void typemapAndSignatureEqualNaiveExpansion(@ForAll final long seed) {
        final Datatype t = new RandomTypes(seed, false).next(4);
        final List<NaiveTypemap.Entry> naive = NaiveTypemap.expand(t);
        final List<String> expected = new ArrayList<>();
        final List<String> expectedSignature = new ArrayList<>();
        String last = null;
        long run = 0;
        for (final NaiveTypemap.Entry e : naive) {
            expected.add(e.type() + "@" + e.disp());
            if (e.type().equals(last)) {
                run++;
            } else {
                if (last != null) {
                    expectedSignature.add(last + "x" + run);
                }
                last = e.type();
                run = 1;
            }
        }
        if (last != null) {
            expectedSignature.add(last + "x" + run);
        }
        final List<String> actual = new ArrayList<>();
        for (final TypemapEntry e : t.typemap()) {
            actual.add(e.type() + "@" + e.displacement());
        }
        assertEquals(expected, actual, t.toString());
        assertEquals(naive.size(), t.typemapLength(), t.toString());
        final List<String> signature = new ArrayList<>();
        for (final SignatureEntry e : t.signature()) {
            signature.add(e.type() + "x" + e.count());
        }
        assertEquals(expectedSignature, signature, t.toString());
        assertEquals(naive.stream().mapToLong(NaiveTypemap.Entry::size).sum(), t.size(), t.toString());
    }

    /**
     * A caller that takes some of each regular stretch's runs itself ({@link Cursor#repeats()}, {@link
     * Cursor#skipRepeats(long)}), as pack and the file views do, sees the same bytes in the same order as one that
     * steps run by run, over any range of the stream.
     */
    @Property(tries = 400)
    void stretchesTakenWholeOrInPartCoverTheSameBytes(@ForAll final long seed,
                                                     @ForAll @IntRange(min = 1, max = 3) final int count) {
        final Datatype t = new RandomTypes(seed, false).next(4);
        final long[] all = streamAddresses(cursorRuns(t.cursor(count)));
        final Random r = new Random(seed);
        for (int trial = 0; trial < 4; trial++) {
            final int from = trial == 0 || all.length == 0 ? 0 : r.nextInt(all.length + 1);
            final int to = trial == 0 ? all.length : from + (all.length == from ? 0 : r.nextInt(all.length - from + 1));
            final Cursor c = t.cursor(count).seek(from).limit(to);
            final List<long[]> runs = new ArrayList<>();
            while (c.next()) {
                runs.add(new long[] {c.offset(), c.length()});
                final long repeats = c.repeats();
                // all of them, none, or some
                final long taken = trial == 1 ? 0 : trial == 2 ? repeats : (long) (r.nextDouble() * (repeats + 1));
                for (long k = 1; k <= taken; k++) {
                    runs.add(new long[] {c.offset() + k * c.repeatStride(), c.length()});
                }
                c.skipRepeats(taken);
            }
            assertArrayEquals(java.util.Arrays.copyOfRange(all, from, to), streamAddresses(runs),
                t + " range [" + from + "," + to + ")");
        }
    }

    @Property(tries = 300)
    void seekThenIterateEqualsIterateAndSkip(@ForAll final long seed, @ForAll @IntRange(min = 1, max = 3) final int count) {
        final Datatype t = new RandomTypes(seed, false).next(4);
        final long[] all = streamAddresses(cursorRuns(t.cursor(count)));
        final Random r = new Random(seed);
        for (int trial = 0; trial < 5; trial++) {
            final int from = all.length == 0 ? 0 : r.nextInt(all.length + 1);
            final int to = from + (all.length == from ? 0 : r.nextInt(all.length - from + 1));
            final long[] got = streamAddresses(cursorRuns(t.cursor(count).seek(from).limit(to)));
            final long[] expected = java.util.Arrays.copyOfRange(all, from, to);
            assertArrayEquals(expected, got, t + " range [" + from + "," + to + ")");
        }
    }

    @Property(tries = 300)
    void packThenUnpackRestoresTouchedBytesOnly(@ForAll final long seed, @ForAll @IntRange(min = 0, max = 3) final int count) {
        final Datatype t = new RandomTypes(seed, false).next(4);
        roundTrip(t, count, DataRepresentation.NATIVE, seed);
    }

    @Property(tries = 300)
    void external32PackThenUnpackRestoresTouchedBytesOnly(@ForAll final long seed,
                                                          @ForAll @IntRange(min = 0, max = 3) final int count) {
        final Datatype t = new RandomTypes(seed, true).next(4);
        roundTrip(t, count, DataRepresentation.EXTERNAL32, seed);
        assertEquals(t.size(), t.size(DataRepresentation.EXTERNAL32), "portable types keep their size");
    }

    /**
     * Packed bytes are the memory's bytes in typemap order, from every kind of memory, whole and by ranges: types
     * whose elements follow each other without gaps take a path without a cursor, which must agree with it.
     */
    @Property(tries = 300)
    void packedBytesFollowTheTypemap(@ForAll final long seed, @ForAll @IntRange(min = 0, max = 3) final int count,
                                     @ForAll @IntRange(min = 0, max = 3) final int memoryKind) {
        final Datatype t = new RandomTypes(seed, false).next(3);
        final long[] addresses = streamAddresses(NaiveTypemap.runs(t, count));
        long min = 0;
        long max = 0;
        for (final long a : addresses) {
            min = Math.min(min, a);
            max = Math.max(max, a + 1);
        }
        final int lead = 3;
        final int origin = (int) -min + lead;
        final byte[] bytes = new byte[(int) (max - min) + lead];
        new Random(seed).nextBytes(bytes);
        final Memory memory = switch (memoryKind) {
            case 0 -> Memory.of(bytes);
            case 1 -> Memory.of(ByteBuffer.allocateDirect(bytes.length).put(bytes).flip());
            case 2 -> Memory.of(ByteBuffer.wrap(bytes).asReadOnlyBuffer());
            default -> Memory.of(bytes).at(lead);
        };
        // a view counts from its own origin, the others from byte 0
        final long base = memoryKind == 3 ? memory.origin() + origin - lead : origin;
        final byte[] expected = new byte[addresses.length];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = bytes[(int) (addresses[i] + origin)];
        }
        final byte[] packed = new byte[expected.length];
        Packer.pack(memory, base, t, count, DataRepresentation.NATIVE, 0, ByteBuffer.wrap(packed), 0, packed.length);
        assertArrayEquals(expected, packed, "packed bytes of " + count + " x " + t + " from memory " + memoryKind);
        final ByteBuffer direct = ByteBuffer.allocateDirect(packed.length + 5);
        final Random r = new Random(seed ^ 0x7ea);
        for (int from = 0; from < packed.length; ) {
            final int n = Math.min(packed.length - from, r.nextInt(11));
            Packer.pack(memory, base, t, count, DataRepresentation.NATIVE, from, direct, from + 5, n);
            from += n;
        }
        final byte[] ranged = new byte[packed.length];
        direct.get(5, ranged);
        assertArrayEquals(expected, ranged, "packed by ranges into a direct buffer: " + t);
    }

    private static void roundTrip(final Datatype t, final int count, final DataRepresentation rep, final long seed) {
        final List<long[]> runs = NaiveTypemap.runs(t, count);
        long min = 0;
        long max = 0;
        for (final long[] run : runs) {
            min = Math.min(min, run[0]);
            max = Math.max(max, run[0] + run[1]);
        }
        final int origin = (int) -min;
        final byte[] memory = new byte[(int) (max - min)];
        new Random(seed).nextBytes(memory);
        final long packedSize = Packer.packedSize(t, count, rep);
        final byte[] packed = new byte[(int) packedSize];
        Packer.pack(Memory.of(memory), origin, t, count, rep, 0, ByteBuffer.wrap(packed), 0, packed.length);

        final byte[] chunked = new byte[packed.length];
        final Random r = new Random(seed ^ 0x5eed);
        for (int at = 0; at < packed.length; ) {
            final int n = Math.min(packed.length - at, 1 + r.nextInt(13));
            Packer.pack(Memory.of(memory), origin, t, count, rep, at, ByteBuffer.wrap(chunked), at, n);
            at += n;
        }
        assertArrayEquals(packed, chunked, "packing by ranges equals packing whole: " + t);

        final byte[] restored = new byte[memory.length];
        for (int at = 0; at < packed.length; ) {
            final int n = Math.min(packed.length - at, 1 + r.nextInt(17));
            Packer.unpack(ByteBuffer.wrap(packed), at, n, Memory.of(restored), origin, t, count, rep, at);
            at += n;
        }
        final boolean[] touched = new boolean[memory.length];
        for (final long[] run : runs) {
            for (long i = 0; i < run[1]; i++) {
                touched[(int) (run[0] + i + origin)] = true;
            }
        }
        for (int i = 0; i < memory.length; i++) {
            assertEquals(touched[i] ? memory[i] : 0, restored[i], "byte " + (i - origin) + " of " + t);
        }
    }

    @Property(tries = 300)
    void typeExpressionsRoundTrip(@ForAll final long seed) {
        final Datatype t = new RandomTypes(seed, false).next(4);
        final Datatype parsed = Datatype.parse(t.toString());
        assertEquals(t, parsed);
        assertEquals(t.hashCode(), parsed.hashCode());
        assertEquals(t.toString(), parsed.toString());
        assertEquals(t.contents(), parsed.contents());
    }
}
