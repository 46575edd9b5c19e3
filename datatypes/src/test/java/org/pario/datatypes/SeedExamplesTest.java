package org.pario.datatypes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The worked examples of the seed documents, with their typemaps written out. */
@Timeout(60)
class SeedExamplesTest {
    /** The slides' old type {(double, 0), (char, 8)}: extent 16 by alignment padding. */
    private static final Datatype DOUBLE_CHAR = Datatype.parse("struct([1,1], [0,8], [double, char])");

    static String typemap(final Datatype t) {
        final List<String> entries = new ArrayList<>();
        for (final TypemapEntry e : t.typemap()) {
            entries.add("(" + e.type() + "," + e.displacement() + ")");
        }
        return String.join(" ", entries);
    }

    static void assertFigures(final Datatype t, final long size, final long lb, final long extent,
                              final long trueLb, final long trueExtent) {
        assertEquals(size, t.size(), "size of " + t);
        assertEquals(lb, t.lb(), "lb of " + t);
        assertEquals(extent, t.extent(), "extent of " + t);
        assertEquals(trueLb, t.trueLb(), "true lb of " + t);
        assertEquals(trueExtent, t.trueExtent(), "true extent of " + t);
    }

    @Test
    void slidesAlignmentPadsIntCharToEight() {
        final Datatype t = Datatype.parse("struct([1,1], [0,4], [int, char])");
        assertEquals("(int,0) (char,4)", typemap(t));
        assertFigures(t, 5, 0, 8, 0, 5);
    }

    @Test
    void slidesContiguousOfDoubleChar() {
        assertFigures(DOUBLE_CHAR, 9, 0, 16, 0, 9);
        final Datatype t = Datatype.contiguous(3, DOUBLE_CHAR);
        assertEquals("(double,0) (char,8) (double,16) (char,24) (double,32) (char,40)", typemap(t));
        assertFigures(t, 27, 0, 48, 0, 41);
    }

    @Test
    void slidesVectorOfDoubleChar() {
        final Datatype t = Datatype.vector(2, 3, 4, DOUBLE_CHAR);
        assertEquals("(double,0) (char,8) (double,16) (char,24) (double,32) (char,40) "
            + "(double,64) (char,72) (double,80) (char,88) (double,96) (char,104)", typemap(t));
        assertFigures(t, 54, 0, 112, 0, 105);
    }

    @Test
    void slidesVectorWithNegativeStride() {
        final Datatype t = Datatype.parse("vector(3, 1, -2, resized(struct([1,1],[0,8],[double,char]), 0, 16))");
        assertEquals("(double,0) (char,8) (double,-32) (char,-24) (double,-64) (char,-56)", typemap(t));
        assertFigures(t, 27, -64, 80, -64, 73);
    }

    @Test
    void slidesIndexedOfDoubleChar() {
        final Datatype t = Datatype.indexed(new long[] {3, 1}, new long[] {4, 0}, DOUBLE_CHAR);
        assertEquals("(double,64) (char,72) (double,80) (char,88) (double,96) (char,104) (double,0) (char,8)",
            typemap(t));
        assertFigures(t, 36, 0, 112, 0, 105);
    }

    @Test
    void slidesStructOfFloatDoubleCharAndChars() {
        final Datatype t = Datatype.parse(
            "struct([2,1,3], [0,16,26], [float, resized(struct([1,1],[0,8],[double,char]), 0, 16), char])");
        assertEquals("(float,0) (float,4) (double,16) (char,24) (char,26) (char,27) (char,28)", typemap(t));
        assertFigures(t, 20, 0, 32, 0, 29);
    }

    @Test
    void slidesRowAndColumnOfFourByFourIntArray() {
        final int[] a = new int[16];
        for (int i = 0; i < 16; i++) {
            a[i] = i + 1;
        }
        final Datatype row = Datatype.contiguous(4, Datatype.INT);
        final int[] got = new int[4];
        final byte[] packed = new byte[16];
        Packer.pack(Memory.of(a), 2 * 4 * 4, row, 1, DataRepresentation.NATIVE, 0,
            java.nio.ByteBuffer.wrap(packed), 0, 16);
        Packer.unpack(packed, got, Datatype.contiguous(4, Datatype.INT), 1);
        assertArrayEquals(new int[] {9, 10, 11, 12}, got);

        final Datatype column = Datatype.vector(4, 1, 4, Datatype.INT);
        Packer.pack(Memory.of(a), 4, column, 1, DataRepresentation.NATIVE, 0, java.nio.ByteBuffer.wrap(packed), 0, 16);
        Packer.unpack(packed, got, Datatype.contiguous(4, Datatype.INT), 1);
        assertArrayEquals(new int[] {2, 6, 10, 14}, got);
    }

    @Test
    void slidesIndexedOfInts() {
        final int[] a = new int[16];
        for (int i = 0; i < 16; i++) {
            a[i] = i + 1;
        }
        final Datatype t = Datatype.indexed(new long[] {4, 2}, new long[] {5, 12}, Datatype.INT);
        final int[] got = new int[6];
        Packer.unpack(Packer.pack(a, t, 1), got, Datatype.contiguous(6, Datatype.INT), 1);
        assertArrayEquals(new int[] {6, 7, 8, 9, 13, 14}, got);
    }

    @Test
    void pairTypesHaveTheirCStructLayout() {
        assertEquals("(float,0) (int,4)", typemap(Datatype.FLOAT_INT));
        assertFigures(Datatype.FLOAT_INT, 8, 0, 8, 0, 8);
        assertEquals("(double,0) (int,8)", typemap(Datatype.DOUBLE_INT));
        assertFigures(Datatype.DOUBLE_INT, 12, 0, 16, 0, 12);
        assertEquals("(long,0) (int,8)", typemap(Datatype.LONG_INT));
        assertFigures(Datatype.LONG_INT, 12, 0, 16, 0, 12);
        assertEquals("(int,0) (int,4)", typemap(Datatype.TWO_INT));
        assertFigures(Datatype.TWO_INT, 8, 0, 8, 0, 8);
        assertEquals("(short,0) (int,4)", typemap(Datatype.SHORT_INT));
        assertFigures(Datatype.SHORT_INT, 6, 0, 8, 0, 8);
        assertEquals("(long_double,0) (int,16)", typemap(Datatype.LONG_DOUBLE_INT));
        assertFigures(Datatype.LONG_DOUBLE_INT, 20, 0, 32, 0, 20);
        assertEquals("(real,0) (real,4)", typemap(Datatype.TWO_REAL));
        assertFigures(Datatype.TWO_INTEGER, 8, 0, 8, 0, 8);
        assertEquals("(double_precision,0) (double_precision,8)", typemap(Datatype.TWO_DOUBLE_PRECISION));
        assertFigures(Datatype.TWO_DOUBLE_PRECISION, 16, 0, 16, 0, 16);
        assertEquals(Datatype.DOUBLE_INT, Datatype.parse("MPI_DOUBLE_INT"));
    }

    @Test
    void gatherExampleUbMarkerGivesAColumnElementTheExtentOfARow() {
        final Datatype t = Datatype.parse("struct([1,1],[0,600],[int, ub])");
        assertFigures(t, 4, 0, 600, 0, 4);
        final Datatype column = Datatype.contiguous(3, t);
        assertEquals("(int,0) (int,600) (int,1200)", typemap(column));
        final int[][] sendarray = new int[100][150];
        final int[] flat = new int[100 * 150];
        for (int i = 0; i < 100; i++) {
            for (int j = 0; j < 150; j++) {
                sendarray[i][j] = i * 1000 + j;
                flat[i * 150 + j] = sendarray[i][j];
            }
        }
        final int myrank = 3;
        final int[] got = new int[100 - myrank];
        final byte[] packed = new byte[4 * (100 - myrank)];
        Packer.pack(Memory.of(flat), 4L * myrank, t, 100 - myrank, DataRepresentation.NATIVE, 0,
            java.nio.ByteBuffer.wrap(packed), 0, packed.length);
        Packer.unpack(packed, got, Datatype.contiguous(100 - myrank, Datatype.INT), 1);
        for (int i = 0; i < got.length; i++) {
            assertEquals(sendarray[i][myrank], got[i]);
        }
    }

    @Test
    void gatherExampleVectorColumnEqualsUbMarkerColumn() {
        final Datatype vector = Datatype.vector(97, 1, 150, Datatype.INT);
        final Datatype marker = Datatype.contiguous(97, Datatype.parse("struct([1,1],[0,600],[int, ub])"));
        assertEquals(typemap(vector), typemap(marker));
    }

    @Test
    void darrayOneDimensionalCyclicTwoOnThreeProcesses() {
        final String[] expected = {"(int,0) (int,4) (int,24) (int,28)", "(int,8) (int,12) (int,32) (int,36)",
            "(int,16) (int,20)"};
        for (int r = 0; r < 3; r++) {
            final Datatype t = Datatype.darray(3, r, new long[] {10}, new Distribution[] {Distribution.CYCLIC},
                new long[] {2}, new long[] {3}, Order.C, Datatype.INT);
            assertEquals(expected[r], typemap(t), "rank " + r);
            assertEquals(0, t.lb());
            assertEquals(40, t.extent());
        }
    }

    @Test
    void darrayBlockWithRanksThatOwnNothing() {
        final String[] expected = {"(int,0) (int,4)", "(int,8) (int,12)", "(int,16)", ""};
        for (int r = 0; r < 4; r++) {
            final Datatype t = Datatype.darray(4, r, new long[] {5}, new Distribution[] {Distribution.BLOCK},
                new long[] {2}, new long[] {4}, Order.C, Datatype.INT);
            assertEquals(expected[r], typemap(t), "rank " + r);
            assertEquals(20, t.extent(), "rank " + r);
        }
    }

    /** Example 4.7: FILEARRAY(100, 200, 300) distributed (CYCLIC(10), *, BLOCK) onto PROCESSES(2, 3). */
    @Test
    void example47DarrayForAllSixRanksMatchesHpfOwnership() {
        final long[] gsizes = {100, 200, 300};
        final Distribution[] distribs = {Distribution.CYCLIC, Distribution.NONE, Distribution.BLOCK};
        final long[] dargs = {10, Datatype.DISTRIBUTE_DFLT_DARG, Datatype.DISTRIBUTE_DFLT_DARG};
        final long[] psizes = {2, 1, 3};
        long total = 0;
        for (int rank = 0; rank < 6; rank++) {
            final Datatype t = Datatype.darray(6, rank, gsizes, distribs, dargs, psizes, Order.FORTRAN, Datatype.FLOAT);
            assertEquals(t, Datatype.parse("darray(6, " + rank
                + ", [100,200,300], [cyclic,none,block], [10,dflt,dflt], [2,1,3], fortran, float)"));
            final long p0 = rank / 3;
            final long p2 = rank % 3;
            final java.util.Iterator<TypemapEntry> it = t.typemap().iterator();
            long n = 0;
            for (long k = 0; k < 300; k++) {
                if (k / 100 != p2) {
                    continue;
                }
                for (long j = 0; j < 200; j++) {
                    for (long i = 0; i < 100; i++) {
                        if ((i / 10) % 2 != p0) {
                            continue;
                        }
                        final TypemapEntry e = it.next();
                        assertEquals("float", e.type());
                        assertEquals(4 * (i + 100 * j + 20000 * k), e.displacement(), "rank " + rank + " entry " + n);
                        n++;
                    }
                }
            }
            assertEquals(false, it.hasNext(), "rank " + rank + " has extra entries");
            assertEquals(n * 4, t.size());
            assertEquals(0, t.lb());
            assertEquals(100L * 200 * 300 * 4, t.extent());
            total += n;
        }
        assertEquals(100L * 200 * 300, total);
    }

    @Test
    void specJsonExampleFigures() {
        final Datatype t = Datatype.parse(
            "struct([2,1,3], [0,16,26], [float, resized(struct([1,1],[0,8],[double,char]), 0, 16), char])");
        final Cursor c = t.cursor(1);
        final List<String> blocks = new ArrayList<>();
        while (c.next()) {
            blocks.add("[" + c.offset() + "," + c.length() + "]");
        }
        assertEquals("[0,8] [16,9] [26,3]", String.join(" ", blocks));
        final List<String> sig = new ArrayList<>();
        for (final SignatureEntry e : t.signature()) {
            sig.add(e.type() + "x" + e.count());
        }
        assertEquals("floatx2 doublex1 charx4", String.join(" ", sig));
    }
}
