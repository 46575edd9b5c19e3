package org.pario.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;

class TypeCommandTest {
    private static final String SEED_STRUCT =
        "struct([2,1,3], [0,16,26], [float, resized(struct([1,1],[0,8],[double,char]), 0, 16), char])";

    private record Result(int code, String out, String err) {
    }

    private static Result run(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = Main.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void jsonIsExactlyTheSpecLine() {
        final Result r = run("type", "--json", SEED_STRUCT);
        assertEquals(0, r.code());
        assertEquals("{\"size\": 20, \"extent\": 32, \"lb\": 0, \"ub\": 32, \"true_lb\": 0, \"true_extent\": 29, "
            + "\"blocks\": [[0,8],[16,9],[26,3]], \"signature\": [[\"float\",2],[\"double\",1],[\"char\",4]]}\n",
            r.out().replace(System.lineSeparator(), "\n"));
    }

    @Test
    void jsonOfAnEmptyTypeHasEmptyLists() {
        final Result r = run("type", "--json", "contiguous(0, double)");
        assertEquals("{\"size\": 0, \"extent\": 0, \"lb\": 0, \"ub\": 0, \"true_lb\": 0, \"true_extent\": 0, "
            + "\"blocks\": [], \"signature\": []}", r.out().trim());
    }

    @Test
    void jsonBlocksMayHaveNegativeOffsets() {
        final Result r = run("type", "--json", "vector(3, 1, -2, resized(struct([1,1],[0,8],[double,char]), 0, 16))");
        assertTrue(r.out().contains("\"blocks\": [[0,9],[-32,9],[-64,9]]"), r.out());
        assertTrue(r.out().contains("\"lb\": -64"), r.out());
    }

    @Test
    void reportShowsFiguresTypemapAndPicture() {
        final Result r = run("type", SEED_STRUCT);
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("size          20 bytes"), r.out());
        assertTrue(r.out().contains("extent        32   lb 0   ub 32"), r.out());
        assertTrue(r.out().contains("(float, 0) (float, 4) (double, 16) (char, 24) (char, 26) (char, 27) (char, 28)"));
        assertTrue(r.out().contains("|########........#########.###...|"), r.out());
        assertTrue(r.out().contains("signature     float x2, double x1, char x4"), r.out());
    }

    @Test
    void longTypemapsAreAbridged() {
        final Result r = run("type", "--entries", "4", "contiguous(1000, int)");
        assertTrue(r.out().contains("typemap: 1000 entries"), r.out());
        assertTrue(r.out().contains("... 996 more"), r.out());
    }

    @Test
    void badExpressionIsOneLineAndExitCodeTwo() {
        final Result r = run("type", "vector(3, 1, double)");
        assertEquals(Main.USAGE, r.code());
        assertEquals("pario: type expression, column 14: expected an integer, found 'double)'", r.err().trim());
        assertEquals("", r.out());
    }

    @Test
    void verbosePrintsTheStackTrace() {
        final Result r = run("type", "--verbose", "contiguous(-1, int)");
        assertEquals(Main.USAGE, r.code());
        assertTrue(r.err().contains("count must be >= 0, got -1"), r.err());
        assertTrue(r.err().contains("at org.pario"), r.err());
    }

    @Test
    void helpDescribesEveryCommand() {
        final Result r = run("--help");
        assertEquals(0, r.code());
        assertTrue(r.out().contains("type"), r.out());
        assertTrue(r.out().contains("Exit codes"), r.out());
        final Result sub = run("type", "--help");
        assertTrue(sub.out().contains("--json"), sub.out());
        assertTrue(sub.out().contains("Examples:"), sub.out());
        assertEquals(Main.USAGE, run().code());
        assertEquals(Main.USAGE, run("type", "--no-such-option", "int").code());
    }
}
