package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.cli.Main;

/**
 * Every command that writes a file leaves the file as it was when it fails (a bad input, a full disk, a read-only
 * target), refuses targets it must not replace (its own input, a directory, a device), and leaves no hidden file
 * behind; bad and oversized arguments are one line naming the argument before any work.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class NothingDestroyedTest {
    private static final byte[] PRECIOUS = "precious bytes, not to be lost".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    /** @return {exit code, output, errors} */
    private static String[] pario(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = Main.run(new PrintWriter(out), new PrintWriter(err), args);
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    private Path spec(final String name, final long perRank) throws Exception {
        final Path s = dir.resolve(name);
        Files.writeString(s, "{\"ranks\": 2, \"disps\": [0, 4], \"etype\": \"int\", \"filetypes\": "
            + "[\"resized(int, 0, 8)\"], \"counts\": [" + perRank + ", " + perRank + "]}");
        return s;
    }

    private static Path precious(final Path p) throws Exception {
        Files.write(p, PRECIOUS);
        return p;
    }

    private static void assertUntouched(final Path p, final String[] r) throws Exception {
        assertArrayEquals(PRECIOUS, Files.readAllBytes(p), "the target is as it was; pario said " + r[2]);
        try (var files = Files.list(p.getParent())) {
            assertEquals(List.of(), files.map(f -> f.getFileName().toString()).filter(n -> n.contains(".pario-"))
                .toList(), "no hidden file left");
        }
    }

    private static void assertOneLine(final String[] r, final String code, final String... fragments) {
        assertEquals(code, r[0], r[1] + r[2]);
        assertEquals(1, r[2].trim().split("\n").length, "one line: " + r[2]);
        assertTrue(r[2].startsWith("pario: "), r[2]);
        for (final String f : fragments) {
            assertTrue(r[2].contains(f), r[2]);
        }
    }

    @Test
    void badInputLeavesTheOutputAsItWas() throws Exception {
        final Path out = precious(dir.resolve("out.bin"));
        final Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"ranks\": 2, \"etype\": \"int\", \"filetypes\": [\"int\"], \"counts\": [1]}");
        assertOneLine(pario("view", "write", bad.toString(), out.toString()), "2", "counts");
        assertUntouched(out, new String[3]);
        final Path data = dir.resolve("data.bin");
        assertEquals("0", pario("view", "write", spec("s.json", 100).toString(), data.toString())[0]);
        assertOneLine(pario("view", "read", bad.toString(), data.toString(), out.toString()), "2");
        assertUntouched(out, new String[3]);
        // a restore that fails (no such array) keeps --output as it was
        final Path ckpt = dir.resolve("c.ckpt");
        assertEquals("0", pario("checkpoint", "write", ckpt.toString(), "-n", "2", "--shape", "64x32", "--dist", "block,block")[0]);
        flip(ckpt, 4096 + 10);
        final String[] r = pario("checkpoint", "restore", ckpt.toString(), "-n", "2", "--output", out.toString());
        assertOneLine(r, "1", "damaged");
        assertUntouched(out, r);
    }

    @Test
    void inputsDirectoriesAndDevicesAreRefusedAsTargets() throws Exception {
        final Path data = precious(dir.resolve("data.bin"));
        final String spec = spec("s.json", 2).toString();
        assertOneLine(pario("view", "read", spec, data.toString(), data.toString()), "2", "is the input");
        assertUntouched(data, new String[3]);
        final Path empty = Files.createDirectory(dir.resolve("empty"));
        assertOneLine(pario("view", "write", spec, empty.toString()), "2", "is a directory");
        assertTrue(Files.isDirectory(empty));
        final Path ckpt = dir.resolve("in.ckpt");
        assertEquals("0", pario("checkpoint", "write", ckpt.toString(), "-n", "2", "--shape", "8x8", "--dist", "block,block")[0]);
        final Path raw = dir.resolve("raw.bin");
        assertEquals("0", pario("checkpoint", "restore", ckpt.toString(), "-n", "2", "--output", raw.toString())[0]);
        final byte[] rawBytes = Files.readAllBytes(raw);
        assertOneLine(pario("checkpoint", "write", raw.toString(), "-n", "2", "--shape", "8x8", "--input",
            raw.toString()), "2", "is the input");
        assertArrayEquals(rawBytes, Files.readAllBytes(raw));
        assertOneLine(pario("checkpoint", "restore", ckpt.toString(), "--output", ckpt.toString()), "2",
            "is the input");
        assertOneLine(pario("checkpoint", "write", empty.toString(), "--shape", "8x8", "--dist", "block,block"), "2", "is a directory");
        final Path other = precious(dir.resolve("mine.txt"));
        assertOneLine(pario("demo", "--file", other.toString(), "--edge", "4"), "2", "exists");
        assertOneLine(pario("bench", "io", "--file", other.toString(), "--size", "8"), "2", "exists");
        assertUntouched(other, new String[3]);
        final Path full = Path.of("/dev/full");
        if (Files.exists(full)) {
            assertOneLine(pario("view", "write", spec, full.toString()), "2", "not a regular file");
            assertFalse(Files.isRegularFile(full, LinkOption.NOFOLLOW_LINKS), "the device node is still a device");
            assertOneLine(pario("checkpoint", "restore", ckpt.toString(), "--output", full.toString()), "2",
                "not a regular file");
            assertFalse(Files.isRegularFile(full, LinkOption.NOFOLLOW_LINKS));
        }
    }

    private static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    @Test
    void aFullDiskOrAReadOnlyTargetLeavesTheOutputAsItWas() throws Exception {
        assumeTrue(root(), "mounting a small file system needs root, as CI runs");
        final Path small = Files.createDirectory(dir.resolve("small"));
        Processes.run("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", small.toString());
        try {
            final Path out = precious(small.resolve("out.bin"));
            // 2 ranks x 200000 ints at every other int: 3.2 MB, three times the file system
            final String[] w = pario("view", "write", spec("big.json", 200_000).toString(), out.toString());
            assertOneLine(w, "1", "space");
            assertUntouched(out, w);
            final Path ckpt = dir.resolve("c.ckpt");
            assertEquals("0", pario("checkpoint", "write", ckpt.toString(), "-n", "2", "--shape", "512x512", "--dist", "block,block")[0]);
            final String[] r = pario("checkpoint", "restore", ckpt.toString(), "-n", "2", "--output",
                out.toString());
            assertOneLine(r, "1", "space");
            assertUntouched(out, r);
            // view read's OUT on the full disk: 2 x 200000 ints read from a file elsewhere
            final Path big = dir.resolve("big.bin");
            assertEquals("0", pario("view", "write", spec("big.json", 200_000).toString(), big.toString())[0]);
            final String[] rd = pario("view", "read", spec("big.json", 200_000).toString(), big.toString(),
                out.toString());
            assertOneLine(rd, "1", "space");
            assertUntouched(out, rd);
            // a checkpoint that does not fit leaves the previous one under its name
            final Path previous = small.resolve("c.ckpt");
            assertEquals("0", pario("checkpoint", "write", previous.toString(), "-n", "2", "--shape", "8x8", "--dist",
                "block,block")[0]);
            final byte[] before = Files.readAllBytes(previous);
            final String[] cw = pario("checkpoint", "write", previous.toString(), "-n", "2", "--shape", "512x512",
                "--dist", "block,block");
            assertEquals("1", cw[0], cw[2]);
            assertArrayEquals(before, Files.readAllBytes(previous), "the previous checkpoint is as it was");
            Processes.run("mount", "-o", "remount,ro", small.toString());
            final String[] ro = pario("view", "write", spec("s.json", 4).toString(), out.toString());
            assertOneLine(ro, "1", "Read-only");
            assertUntouched(out, ro);
            final String[] cro = pario("checkpoint", "write", previous.toString(), "-n", "2", "--shape", "8x8",
                "--dist", "block,block");
            assertOneLine(cro, "1", "Read-only");
            assertArrayEquals(before, Files.readAllBytes(previous), "the previous checkpoint is as it was");
        } finally {
            Processes.run("umount", small.toString());
        }
    }

    @Test
    void aShortReadIsCountedAndStrictMakesItAnError() throws Exception {
        final Path data = dir.resolve("short.bin");
        Files.write(data, new byte[12]);
        final Path out = dir.resolve("out.bin");
        final String[] r = pario("view", "read", spec("s.json", 4).toString(), data.toString(), out.toString());
        assertEquals("0", r[0], r[2]);
        assertTrue(r[2].contains("read 12 of 32 bytes (a short read"), r[2]);
        final Path kept = precious(dir.resolve("kept.bin"));
        final String[] strict = pario("view", "read", spec("s.json", 4).toString(), data.toString(), kept.toString(),
            "--strict");
        assertOneLine(strict, "1", "short read: the ranks read 12 of the 32 bytes");
        assertUntouched(kept, strict);
    }

    @Test
    void oversizedAndMalformedArgumentsAreOneLineBeforeAnyWork() throws Exception {
        final Path ckpt = dir.resolve("c.ckpt");
        assertEquals("0", pario("checkpoint", "write", ckpt.toString(), "-n", "2", "--shape", "8x8", "--dist", "block,block")[0]);
        assertOneLine(pario("checkpoint", "restore", ckpt.toString(), "-n", "100000"), "2", "-n 100000",
            "1 to 1024");
        assertOneLine(pario("checkpoint", "write", dir.resolve("x.ckpt").toString(), "--shape", "100000x100000",
            "--dist", "block,block"), "2", "--shape 100000x100000");
        assertOneLine(pario("checkpoint", "write", dir.resolve("x.ckpt").toString(), "--shape",
            "4000000000x4000000000x4000000000", "--dist", "block,block,block"), "2", "--shape");
        assertOneLine(pario("demo", "--edge", "2048"), "2", "--edge 2048", "at most 644");
        assertOneLine(pario("launch", "--bind", "999.1.1.1", "-n", "2", "--", "true"), "2", "--bind 999.1.1.1");
        assertOneLine(pario("launch", "--bind", "192.0.2.1", "-n", "2", "--", "true"), "2",
            "not an address of this host");
        assertOneLine(pario("bench", "comm", "-n", "0"), "2", "-n 0");
        assertOneLine(pario("bench", "io", "-n", "3", "--pattern", "2x2x1", "--size", "8"), "2", "needs 4 ranks");
        final Path neg = dir.resolve("neg.json");
        Files.writeString(neg, "{\"ranks\": 1, \"disp\": -8, \"etype\": \"int\", \"filetypes\": [\"int\"], "
            + "\"counts\": [1]}");
        assertOneLine(pario("view", "map", neg.toString()), "2", "displacement must be >= 0");
        final Path before = dir.resolve("before.json");
        Files.writeString(before, "{\"ranks\": 1, \"etype\": \"int\", \"filetypes\": [\"hindexed([1], [-8], int)\"], "
            + "\"counts\": [1]}");
        assertOneLine(pario("view", "map", before.toString()), "2", "before the start of the file");
        assertOneLine(pario("view", "write"), "2", "Missing required parameters", "usage: pario view write --help");
        assertOneLine(pario("checkpoint", "write", "--nonsense"), "2", "usage: pario checkpoint write --help");
    }

    /** The class of fault that crashed the parsers: nesting 2000 deep in a type, a view spec and a header. */
    @Test
    void deepNestingIsOneLineEverywhereATypeIsRead() throws Exception {
        final String deep = "contiguous(1, ".repeat(2000) + "int" + ")".repeat(2000);
        assertOneLine(pario("type", deep), "2", "nest more than 256 deep");
        final Path spec = dir.resolve("deep.json");
        Files.writeString(spec, "{\"ranks\": 1, \"etype\": \"int\", \"filetypes\": [\"" + deep + "\"], "
            + "\"counts\": [1]}");
        assertOneLine(pario("view", "map", spec.toString()), "2", "nest more than 256 deep");
        // a checkpoint whose header (checksum valid) holds such a type
        final Path ckpt = dir.resolve("c.ckpt");
        assertEquals("0", pario("checkpoint", "write", ckpt.toString(), "-n", "1", "--shape", "8", "--dist", "block")[0]);
        final byte[] file = Files.readAllBytes(ckpt);
        final ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        final int length = (int) b.getLong(12);
        final String json = new String(file, 24, length, StandardCharsets.UTF_8).replace("\"element\":\"double\"",
            "\"element\":\"" + deep.replace("int", "double") + "\"");
        final byte[] text = json.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer forged = ByteBuffer.allocate(24 + text.length).order(ByteOrder.LITTLE_ENDIAN);
        forged.put(file, 0, 12).putLong(text.length).putInt(0).put(text);
        final CRC32C crc = new CRC32C();
        crc.update(forged.array(), 0, 20);
        crc.update(text);
        forged.putInt(20, (int) crc.getValue());
        Files.write(ckpt, forged.array());
        final String[] info = pario("checkpoint", "info", ckpt.toString());
        assertOneLine(info, "1", "nest more than 256 deep");
    }

    @Test
    void infoRefusesATruncatedCheckpoint() throws Exception {
        final Path ckpt = dir.resolve("c.ckpt");
        assertEquals("0", pario("checkpoint", "write", ckpt.toString(), "-n", "2", "--shape", "64x64", "--dist", "block,block")[0]);
        final byte[] whole = Files.readAllBytes(ckpt);
        Files.write(ckpt, java.util.Arrays.copyOf(whole, whole.length - 1000));
        assertOneLine(pario("checkpoint", "info", ckpt.toString()), "1", "truncated");
    }

    private static void flip(final Path file, final long at) throws Exception {
        final byte[] b = Files.readAllBytes(file);
        b[(int) at] ^= 0x40;
        Files.write(file, b);
    }
}
