package org.pario.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ViewCommandTest {
    @TempDir
    Path dir;

    private static String[] run(final String... args) {
        return Cli.run(args);
    }

    /** Two ranks interleave ints: rank 0 every even int, rank 1 every odd one, 3 each. */
    private Path spec(final String extra) throws Exception {
        final Path spec = dir.resolve("spec.json");
        Files.writeString(spec, "{\"ranks\": 2, \"disps\": [0, 4], \"etype\": \"int\","
            + " \"filetypes\": [\"resized(int, 0, 8)\"], \"counts\": [3, 2]" + extra + "}");
        return spec;
    }

    @Test
    void mapPrintsEachRanksByteRanges() throws Exception {
        final String[] r = run("view", "map", "--json", spec("").toString());
        assertEquals("0", r[0], r[2]);
        assertEquals("{\"ranks\": [[[0,4],[8,4],[16,4]],[[4,4],[12,4]]], \"size\": 20}", r[1].trim());
        final String[] text = run("view", "map", spec("").toString());
        assertTrue(text[1].contains("rank 1: 8 bytes in 2 ranges: [4,8) [12,16)"), text[1]);
        assertTrue(text[1].contains("|0000111100001111" + "0000|"), text[1]);
    }

    @Test
    void writeThenReadRoundTripsEveryRanksValues() throws Exception {
        final Path file = dir.resolve("data.bin");
        final Path out = dir.resolve("out.bin");
        final Path spec = spec(", \"offsets\": [1, 0]");
        assertEquals("0", run("view", "write", spec.toString(), file.toString())[0]);
        final ByteBuffer f = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        // rank 0 starts one etype into its view (byte 8), rank 1 at its start (byte 4)
        assertEquals(0, f.getInt(0));
        assertEquals(2_000_000, f.getInt(4));
        assertEquals(1_000_000, f.getInt(8));
        assertEquals(2_000_001, f.getInt(12));
        assertEquals(1_000_001, f.getInt(16));
        assertEquals(1_000_002, f.getInt(24));
        assertEquals("0", run("view", "read", spec.toString(), file.toString(), out.toString())[0]);
        final ByteBuffer o = ByteBuffer.wrap(Files.readAllBytes(out)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(20, o.capacity());
        assertEquals(1_000_000, o.getInt(0));
        assertEquals(1_000_002, o.getInt(8));
        assertEquals(2_000_000, o.getInt(12));
        assertEquals(2_000_001, o.getInt(16));
    }

    @Test
    void launchRunsEachRankInItsOwnJvmWithTheSameResult() throws Exception {
        final Path spec = spec(", \"offsets\": [1, 0], \"datarep\": \"external32\"");
        final Path threads = dir.resolve("threads.bin");
        final Path jvms = dir.resolve("jvms.bin");
        assertEquals("0", run("view", "write", spec.toString(), threads.toString())[0]);
        final String[] w = run("view", "write", "--launch", spec.toString(), jvms.toString());
        assertEquals("0", w[0], w[1] + w[2]);
        assertArrayEquals(Files.readAllBytes(threads), Files.readAllBytes(jvms));
        final ByteBuffer f = ByteBuffer.wrap(Files.readAllBytes(jvms)).order(ByteOrder.BIG_ENDIAN);
        assertEquals(2_000_000, f.getInt(4), "external32 is big-endian");
        final Path outThreads = dir.resolve("out1.bin");
        final Path outJvms = dir.resolve("out2.bin");
        assertEquals("0", run("view", "read", spec.toString(), jvms.toString(), outThreads.toString())[0]);
        final String[] r = run("view", "read", "--launch", spec.toString(), jvms.toString(), outJvms.toString());
        assertEquals("0", r[0], r[1] + r[2]);
        assertArrayEquals(Files.readAllBytes(outThreads), Files.readAllBytes(outJvms));
        final ByteBuffer o = ByteBuffer.wrap(Files.readAllBytes(outJvms)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(20, o.capacity());
        assertEquals(1_000_002, o.getInt(8), "read back in native order");
    }

    @Test
    void badSpecsAreOneLineErrors() throws Exception {
        final Path spec = dir.resolve("bad.json");
        Files.writeString(spec, "{\"ranks\": 2, \"etype\": \"int\", \"filetypes\": [\"int\"], \"counts\": [1]}");
        final String[] r = run("view", "map", spec.toString());
        assertEquals("2", r[0]);
        assertEquals("pario: view spec: 'counts' must be a list of 2 integers", r[2].trim());
        Files.writeString(spec, "{\"ranks\": 1, \"etype\": \"nt\", \"filetypes\": [\"int\"], \"counts\": [1]}");
        assertTrue(run("view", "map", spec.toString())[2].contains("unknown type name 'nt'"));
        Files.writeString(spec, "not json");
        assertEquals("2", run("view", "map", spec.toString())[0]);
    }

    @Test
    void verboseOnANestedCommandPrintsTheStackTrace() throws Exception {
        final Path spec = dir.resolve("short.json");
        Files.writeString(spec, "{\"ranks\": 2, \"etype\": \"int\", \"filetypes\": [\"int\"], \"counts\": [1]}");
        final String[] r = run("view", "write", "--verbose", spec.toString(), dir.resolve("f.bin").toString());
        assertEquals("2", r[0]);
        assertTrue(r[2].contains("'counts' must be a list of 2 integers"), r[2]);
        assertTrue(r[2].contains("at org.pario"), r[2]);
    }
}
