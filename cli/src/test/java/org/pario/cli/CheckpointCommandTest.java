package org.pario.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointCommandTest {
    @TempDir
    Path dir;

    private static String[] run(final String... args) {
        return Cli.run(args);
    }

    @Test
    void writeInfoVerifyRestoreAndDamage() throws Exception {
        final String file = dir.resolve("c.ckpt").toString();
        final String[] w = run("checkpoint", "write", file, "-n", "4", "--shape", "20x12x10", "--dist",
            "block,cyclic(2),none");
        assertEquals("0", w[0], w[2]);
        assertTrue(w[1].startsWith("wrote "), w[1]);
        final String[] info = run("checkpoint", "info", file);
        assertEquals("0", info[0], info[2]);
        assertTrue(info[1].contains("data         20x12x10         double"), info[1]);
        assertEquals("0", run("checkpoint", "verify", file)[0]);
        final String[] r = run("checkpoint", "restore", file, "-n", "3", "--dist", "cyclic,block,block",
            "--order", "c");
        assertEquals("0", r[0], r[2]);
        assertTrue(r[1].contains("every value checked"), r[1]);
        // flip a byte of the data and verify again: one error line, exit code 1
        try (FileChannel ch = FileChannel.open(Path.of(file), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {0x7f}), 4096 + 100);
        }
        final String[] v = run("checkpoint", "verify", file);
        assertEquals("1", v[0]);
        assertTrue(v[2].startsWith("pario: ") && v[2].contains("array 'data' is damaged in chunk 0, bytes 0 to 19200"),
            v[2]);
        assertEquals(1, v[2].trim().split("\n").length, "one line");
        assertEquals("2", run("checkpoint", "write", file, "--dist", "block,sideways,none")[0]);
    }

    @Test
    void hintsReachTheFileAndBadOnesAreRefused() {
        final String file = dir.resolve("h.ckpt").toString();
        final String[] w = run("checkpoint", "write", file, "-n", "2", "--shape", "64x64x64", "--hint",
            "direct_write=true", "--hint", "cb_buffer_size=65536");
        assertEquals("0", w[0], w[2]);
        final String[] r = run("checkpoint", "restore", file, "-n", "3", "--hint", "direct_read=true");
        assertEquals("0", r[0], r[2]);
        assertTrue(r[1].contains("every value checked"), r[1]);
        final String[] bad = run("checkpoint", "write", file, "--hint", "direct_write=maybe");
        assertEquals("2", bad[0]);
        assertTrue(bad[2].contains("hint direct_write must be automatic, true or false, got 'maybe'"), bad[2]);
    }

    @Test
    void userSuppliedRawArraysOfStructsRoundTripThroughACheckpoint() throws Exception {
        // a 12 x 10 array of {double; int} (16 bytes each, 4 of them padding) in C order
        final java.nio.ByteBuffer raw = java.nio.ByteBuffer.allocate(120 * 16).order(java.nio.ByteOrder.nativeOrder());
        for (int i = 0; i < 120; i++) {
            raw.putDouble(16 * i, i * 0.5).putInt(16 * i + 8, -i);
        }
        final Path in = dir.resolve("in.raw");
        java.nio.file.Files.write(in, raw.array());
        final String ck = dir.resolve("s.ckpt").toString();
        final String element = "struct([1,1], [0,8], [double,int])";
        final String[] w = run("checkpoint", "write", ck, "-n", "3", "--shape", "12x10", "--element", element,
            "--dist", "cyclic,block", "--input", in.toString());
        assertEquals("0", w[0], w[2]);
        final Path out = dir.resolve("out.raw");
        final String[] r = run("checkpoint", "restore", ck, "-n", "2", "--dist", "block,none", "--output",
            out.toString());
        assertEquals("0", r[0], r[2]);
        assertTrue(r[1].contains("written to"), r[1]);
        org.junit.jupiter.api.Assertions.assertArrayEquals(raw.array(), java.nio.file.Files.readAllBytes(out));
        final String[] bad = run("checkpoint", "write", ck, "--shape", "12x11", "--element", element, "--dist",
            "block,none", "--input", in.toString());
        assertEquals("2", bad[0]);
        assertTrue(bad[2].contains("holds 1920 bytes"), bad[2]);
        assertEquals("2", run("checkpoint", "write", ck, "--element", "int")[0], "synthetic arrays are double");
    }
}
