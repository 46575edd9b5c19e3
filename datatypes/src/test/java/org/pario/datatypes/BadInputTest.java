package org.pario.datatypes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.pario.ErrorCategory;
import org.pario.ParioException;

/** Every invalid argument is refused at once with an error that names the argument and its value. */
class BadInputTest {
    private static void assertRefused(final String expression, final String... fragments) {
        final ParioException e = assertThrows(ParioException.class, () -> Datatype.parse(expression), expression);
        assertEquals(ErrorCategory.ARGUMENT, e.category());
        for (final String f : fragments) {
            assertTrue(e.getMessage().contains(f), "message '" + e.getMessage() + "' should mention '" + f + "'");
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "doubel                                   | unknown type name 'doubel' | column 1",
        "vector(2, 1, 2, dubble)                  | unknown type name 'dubble' | column 17",
        "vectr(2, 1, 2, double)                   | unknown constructor 'vectr' | ",
        "vector(2, 1, double)                     | expected an integer | ",
        "vector(2, 1, 2, 3, double)               | unknown type name '3' | ",
        "contiguous(2, double, 3)                 | expected ')' | ",
        "contiguous(2 double)                     | expected ',' | ",
        "contiguous(2, double)) junk              | expected the end | ",
        "contiguous(x, double)                    | expected an integer | ",
        "contiguous(99999999999999999999, double) | out of the 64-bit range | ",
        "struct([1,1], [0,8], [double])           | blocklengths has 2 entries but types has 1 | ",
        "indexed([1,2], [0], int)                 | blocklengths has 2 entries but displacements has 1 | ",
        "subarray([4], [2], [0], sideways, int)   | expected an order | ",
        "darray(2, 0, [4], [blocky], [dflt], [2], c, int) | expected block, cyclic or none | ",
        "darray(2, 0, [4], [block], [what], [2], c, int)  | expected an integer or 'dflt' | ",
        "''                                       | expected a type name | ",
    })
    void malformedExpressionsNameTheColumnAndProblem(final String expression, final String first, final String second) {
        if (second == null) {
            assertRefused(expression, first);
        } else {
            assertRefused(expression, first, second);
        }
    }

    @Test
    void negativeCountsAndLengthsAreRefused() {
        assertRefused("contiguous(-1, int)", "contiguous: count must be >= 0, got -1");
        assertRefused("vector(-2, 1, 1, int)", "vector: count must be >= 0, got -2");
        assertRefused("vector(2, -1, 1, int)", "vector: blocklength must be >= 0, got -1");
        assertRefused("hvector(2, -3, 1, int)", "hvector: blocklength must be >= 0, got -3");
        assertRefused("indexed([1,-1], [0,4], int)", "indexed: blocklengths[1] must be >= 0, got -1");
        assertRefused("hindexed_block(-1, [0], int)", "hindexed_block: blocklength must be >= 0, got -1");
        assertRefused("struct([1,-2], [0,8], [int,int])", "struct: blocklengths[1] must be >= 0, got -2");
    }

    @Test
    void subarrayArgumentsMustFit() {
        assertRefused("subarray([4,5], [2,6], [0,0], c, int)", "subsizes[1] = 6 is larger than sizes[1] = 5");
        assertRefused("subarray([4,5], [2,3], [3,0], c, int)", "starts[0] = 3 is out of range", "- subsizes[0] = 2");
        assertRefused("subarray([4,5], [2,3], [0,-1], c, int)", "starts[1] must be >= 0, got -1");
        assertRefused("subarray([0,5], [0,3], [0,0], c, int)", "sizes[0] must be > 0, got 0");
        assertRefused("subarray([], [], [], c, int)", "at least one dimension");
        assertRefused("subarray([4,5], [2], [0,0], c, int)", "sizes has 2 entries but subsizes has 1");
    }

    @Test
    void darrayArgumentsMustDescribeAGrid() {
        assertRefused("darray(4, 0, [10], [block], [2], [4], c, int)",
            "distribs[0] is BLOCK with dargs[0] = 2 and psizes[0] = 4", "need dargs * psizes >= gsizes");
        assertRefused("darray(6, 0, [10,10], [block,block], [dflt,dflt], [2,2], c, int)",
            "the product of psizes [2, 2] is 4 but size is 6");
        assertRefused("darray(2, 0, [10,10], [none,block], [dflt,dflt], [2,1], c, int)",
            "distribs[0] is NONE but psizes[0] = 2");
        assertRefused("darray(2, 2, [10], [block], [dflt], [2], c, int)", "rank must be in [0, size) = [0, 2), got 2");
        assertRefused("darray(2, -1, [10], [block], [dflt], [2], c, int)", "got -1");
        assertRefused("darray(0, 0, [10], [block], [dflt], [1], c, int)", "size must be > 0, got 0");
        assertRefused("darray(2, 0, [10], [cyclic], [0], [2], c, int)", "dargs[0] must be > 0 or the default, got 0");
        assertRefused("darray(2, 0, [0], [cyclic], [1], [2], c, int)", "gsizes[0] must be > 0, got 0");
        assertRefused("darray(2, 0, [4], [cyclic], [1], [0], c, int)", "psizes[0] must be > 0, got 0");
    }

    @Test
    void overflowPast63BitsIsRefused() {
        assertRefused("contiguous(4611686018427387904, double)", "overflows 64 bits");
        assertRefused("vector(2, 1, 4611686018427387904, double)", "overflows 64 bits");
        assertRefused("contiguous(3, contiguous(4611686018427387904, char))", "overflows 64 bits");
        assertRefused("resized(int, 9223372036854775807, 1)", "overflows 64 bits");
        assertRefused("hindexed([1,1], [0, 9223372036854775807], int)", "overflows 64 bits");
        assertRefused("subarray([4294967296,4294967296], [1,1], [0,0], c, double)", "overflows 64 bits");
    }

    @Test
    void legacyMarkersOnlyInsideStruct() {
        assertRefused("contiguous(2, ub)", "legacy marker 'ub'", "only allowed as a struct member");
        assertRefused("resized(lb, 0, 4)", "legacy marker 'lb'");
        assertEquals(600, Datatype.parse("struct([1,1],[0,600],[int, MPI_UB])").extent());
    }

    @Test
    void factoriesRefuseNullsAndMismatchedArrays() {
        assertThrows(ParioException.class, () -> Datatype.contiguous(1, null));
        assertThrows(ParioException.class, () -> Datatype.struct(new long[] {1}, new long[] {0}, null));
        assertThrows(ParioException.class, () -> Datatype.indexed(null, new long[0], Datatype.INT));
        assertThrows(ParioException.class, () -> Datatype.darray(1, 0, new long[] {4}, new Distribution[] {null},
            new long[] {1}, new long[] {1}, Order.C, Datatype.INT));
        assertThrows(ParioException.class, () -> Datatype.struct(new long[] {1}, new long[] {0},
            java.util.Arrays.asList((Datatype) null)));
        assertThrows(ParioException.class, () -> Datatype.predefined("quadruple"));
    }

    @Test
    void argumentsAreCopiedSoLaterChangesCannotAlterAType() {
        final long[] lengths = {1, 2};
        final long[] displs = {0, 4};
        final Datatype t = Datatype.indexed(lengths, displs, Datatype.INT);
        lengths[1] = 100;
        displs[0] = -50;
        assertEquals(12, t.size());
        assertEquals("indexed([1,2], [0,4], int)", t.toString());
    }

    @Test
    void namesAreCaseInsensitiveWithOptionalMpiPrefix() {
        assertEquals(Datatype.DOUBLE, Datatype.parse("MPI_DOUBLE"));
        assertEquals(Datatype.parse("darray(6, 0, [100,200,300], [cyclic,none,block], [10,dflt,dflt], [2,1,3], fortran, float)"),
            Datatype.parse("DARRAY(6, 0, [100,200,300], [MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK],"
                + " [10, MPI_DISTRIBUTE_DFLT_DARG, dflt], [2,1,3], MPI_ORDER_FORTRAN, MPI_FLOAT)"));
        assertEquals(List.of("char", "signed_char"), Datatype.predefinedNames().subList(0, 2));
    }

    /** Nesting is bounded where types are parsed and where they are built, with one clear error, never a crash. */
    @Test
    void deepNestingIsRefusedAtTheBound() {
        final String deep = "contiguous(1, ".repeat(2000) + "int" + ")".repeat(2000);
        final ParioException e = assertThrows(ParioException.class, () -> Datatype.parse(deep));
        assertTrue(e.getMessage().contains("nest more than " + Datatype.MAX_DEPTH + " deep"), e.getMessage());
        Datatype t = Datatype.INT;
        for (int i = 0; i < Datatype.MAX_DEPTH; i++) {
            t = Datatype.contiguous(1, t);
        }
        final Datatype deepest = t;
        assertEquals(deepest, Datatype.parse(deepest.toString()), "the deepest type allowed round-trips");
        assertEquals(4, deepest.size());
        final ParioException built = assertThrows(ParioException.class, () -> Datatype.contiguous(1, deepest));
        assertTrue(built.getMessage().contains("at most " + Datatype.MAX_DEPTH), built.getMessage());
    }
}
