package org.pario.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.Datatype;
import org.pario.io.array.Checkpoint;
import org.pario.io.array.Dist;
import org.pario.io.array.DistributedArray;
import org.pario.io.array.Element;
import org.pario.io.array.Region;

@Timeout(120)
class CheckpointToolsTest {
    @TempDir
    Path dir;

    private String write(final String name) {
        final String file = dir.resolve(name).toString();
        final String[] w = Cli.run("checkpoint", "write", file, "-n", "3", "--shape", "30x40x50");
        assertEquals("0", w[0], w[2]);
        // created times are to the millisecond: the next checkpoint starts once the clock has passed this one's
        final long created = Checkpoint.at(file).header().created().toEpochMilli();
        while (System.currentTimeMillis() <= created) {
            Thread.onSpinWait();
        }
        return file;
    }

    @Test
    void lsLatestAndPruneADirectory() throws Exception {
        write("a.ckpt");
        write("b.ckpt");
        final String c = write("c.ckpt");
        // c's data is damaged: ls shows it whole (headers only), latest passes over it
        try (FileChannel ch = FileChannel.open(Path.of(c), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {0x7f}), 4096 + 100);
        }
        Files.write(dir.resolve(".d.ckpt.pario-99.tmp"), new byte[100]);
        final String[] ls = Cli.run("checkpoint", "ls", dir.toString());
        assertEquals("0", ls[0], ls[2]);
        final List<String> lines = ls[1].lines().toList();
        assertTrue(lines.get(0).startsWith("file") && lines.get(0).contains("state"), ls[1]);
        assertTrue(lines.get(1).startsWith("a.ckpt") && lines.get(1).contains("whole") && lines.get(1).contains("data")
            && lines.get(1).contains("KiB"), ls[1]);
        assertTrue(ls[1].contains(".d.ckpt.pario-99.tmp") && ls[1].contains("half-written")
            && ls[1].contains("a write of d.ckpt that has not committed"), ls[1]);
        final String[] latest = Cli.run("checkpoint", "latest", dir.toString());
        assertEquals("0", latest[0], latest[2]);
        assertEquals(dir.resolve("b.ckpt").toString(), latest[1].trim());
        assertTrue(latest[2].contains("skipped " + c + " (damaged): ") && latest[2].contains("chunk 0"), latest[2]);
        final String[] prune = Cli.run("checkpoint", "prune", dir.toString(), "--keep", "2");
        assertEquals("0", prune[0], prune[2]);
        assertTrue(prune[1].contains("deleted " + dir.resolve("a.ckpt")), prune[1]);
        assertFalse(Files.exists(dir.resolve("a.ckpt")));
        assertTrue(Files.exists(dir.resolve("b.ckpt")) && Files.exists(dir.resolve(".d.ckpt.pario-99.tmp")));
        assertEquals("2", Cli.run("checkpoint", "prune", dir.toString(), "--keep", "0")[0]);
        assertEquals("2", Cli.run("checkpoint", "prune", dir.toString())[0], "--keep is required");
        final String[] none = Cli.run("checkpoint", "latest", dir.resolve("missing").toString());
        assertEquals("1", none[0]);
        assertTrue(none[2].contains("does not exist"), none[2]);
        Files.delete(dir.resolve("b.ckpt"));
        final String[] empty = Cli.run("checkpoint", "latest", dir.toString());
        assertEquals("1", empty[0]);
        assertTrue(empty[2].contains("holds no checkpoint that verifies"), empty[2]);
    }

    @Test
    void showPrintsFiguresAndShadingAndDrawsAPicture() throws Exception {
        final String file = write("s.ckpt");
        final Path png = dir.resolve("slice.png");
        final String[] show = Cli.run("checkpoint", "show", file, "data", "--slice", "7, :, 10:50", "--png",
            png.toString(), "--width", "40");
        assertEquals("0", show[0], show[2]);
        // the synthetic array holds each element's global index: row 7 spans 7*2000 + [10, 1999]
        assertTrue(show[1].contains("data [7:8, 0:40, 10:50]: 40 x 40 values"), show[1]);
        final double mean = 7 * 2000 + (10 + 1999) / 2.0;
        assertTrue(show[1].contains("min 1.401e+04  max 1.600e+04  mean " + HeatMap.number(mean)), show[1]);
        final List<String> lines = show[1].lines().toList();
        assertEquals(" ".repeat(40).length(), lines.get(2).length(), "40 columns");
        assertEquals(' ', lines.get(2).charAt(0), "the smallest values are blank");
        assertEquals('@', lines.get(21).charAt(39), "the largest are darkest");
        final BufferedImage img = ImageIO.read(png.toFile());
        assertTrue(img.getWidth() > 512 && img.getHeight() > 500, img.getWidth() + "x" + img.getHeight());
        // 40 cells a side scaled by 12: the top-left cell is the smallest value's colour, the bottom-right the largest
        final int left = findPlotLeft(img);
        assertEquals(HeatMap.colour(0), img.getRGB(left + 3, 34 + 3) & 0xffffff);
        assertEquals(HeatMap.colour(1), img.getRGB(left + 480 - 3, 34 + 480 - 3) & 0xffffff);
        final String[] twoD = Cli.run("checkpoint", "show", file, "data", "--slice", "7, 3, :");
        assertEquals("2", twoD[0]);
        assertTrue(twoD[2].contains("spans 1 dimension; a picture needs two"), twoD[2]);
        assertEquals("2", Cli.run("checkpoint", "show", file, "data", "--slice", "7, :, 60")[0], "past the array");
        assertEquals("2", Cli.run("checkpoint", "show", file, "nothing")[0]);
        final String[] middle = Cli.run("checkpoint", "show", file, "data", "--width", "0");
        assertEquals("0", middle[0], middle[2]);
        assertTrue(middle[1].startsWith("data [15:16, 0:40, 0:50]: 40 x 50 values"), middle[1]);
    }

    /** The first column of the plot: the first pixel of the top row of cells that is not white or the frame. */
    private static int findPlotLeft(final BufferedImage img) {
        for (int x = 0; x < img.getWidth(); x++) {
            if ((img.getRGB(x, 40) & 0xffffff) == HeatMap.colour(0)) {
                return x;
            }
        }
        throw new AssertionError("no plot");
    }

    @Test
    void exportWritesANumpyFileByteForByteAsTheRegionReads() throws Exception {
        final Path file = dir.resolve("e.ckpt");
        final Element<ByteBuffer> pair = Element.of(Datatype.parse("struct([1,1], [0,8], [double, int])"));
        LocalCluster.run(4, comm -> {
            final DistributedArray<double[]> f = DistributedArray.of(comm, Element.DOUBLE, new long[] {60, 70, 80},
                Dist.block(), Dist.cyclic(3), Dist.none());
            final double[] v = f.allocate();
            for (int i = 0; i < v.length; i++) {
                v[i] = f.local().globalLinear(i) * 0.25;
            }
            final DistributedArray<ByteBuffer> p = DistributedArray.of(comm, pair, new long[] {33, 9});
            final ByteBuffer b = p.allocate();
            for (int i = 0; i < p.local().intCount(); i++) {
                b.putDouble(16 * i, p.local().globalLinear(i)).putInt(16 * i + 8, -i);
            }
            Checkpoint.at(file).writer().array("field", f, v).array("pairs", p, b).write();
        });
        final Path npy = dir.resolve("field.npy");
        final String[] e = Cli.run("checkpoint", "export", file.toString(), "field", "--region", "5:55:2, 3, 10:",
            "--format", "npy", npy.toString());
        assertEquals("0", e[0], e[2]);
        final byte[] bytes = Files.readAllBytes(npy);
        final String header = new String(bytes, 10, 118, StandardCharsets.US_ASCII);
        assertEquals(0x93 - 256, bytes[0]);
        assertEquals("NUMPY", new String(bytes, 1, 5, StandardCharsets.US_ASCII));
        assertEquals(0, (10 + ((bytes[8] & 0xff) | (bytes[9] & 0xff) << 8)) % 64, "the data starts on 64 bytes");
        assertTrue(header.startsWith("{'descr': '<f8', 'fortran_order': False, 'shape': (25, 1, 70), }"), header);
        final int data = 10 + ((bytes[8] & 0xff) | (bytes[9] & 0xff) << 8);
        final Region r = Region.parse("5:55:2, 3, 10:", new long[] {60, 70, 80});
        final double[] want = Checkpoint.at(file).read("field", r, Element.DOUBLE);
        final ByteBuffer got = ByteBuffer.wrap(bytes, data, bytes.length - data).slice().order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(want.length * 8, got.remaining());
        for (int i = 0; i < want.length; i++) {
            assertEquals(want[i], got.getDouble(8 * i), "element " + i);
        }
        final Path pairs = dir.resolve("pairs.npy");
        assertEquals("0", Cli.run("checkpoint", "export", file.toString(), "pairs", pairs.toString())[0]);
        final String ph = new String(Files.readAllBytes(pairs), 10, 100, StandardCharsets.US_ASCII);
        assertTrue(ph.startsWith("{'descr': [('f0', '<f8'), ('f1', '<i4'), ('', '|V4')], 'fortran_order': False, "
            + "'shape': (33, 9), }"), ph);
        assertEquals("0", Cli.run("checkpoint", "export", file.toString(), "field", "--region", "0:0, :, :",
            dir.resolve("empty.npy").toString())[0], "an empty region is an empty array");
        assertEquals("2", Cli.run("checkpoint", "export", file.toString(), "field", "--format", "csv",
            dir.resolve("x.csv").toString())[0]);
        assertFalse(Files.exists(dir.resolve("x.csv")));

        // NumPy reads all three as they are meant (bin/setup-test-deps installs it)
        final String python = Python.withNumpy();
        final Process p = new ProcessBuilder(python, "-c", String.join("\n",
            "import numpy as np, sys",
            "d = sys.argv[1]",
            "f = np.load(d + '/field.npy')",
            "assert f.shape == (25, 1, 70) and f.dtype == np.float64, (f.shape, f.dtype)",
            "i, k = np.meshgrid(np.arange(5, 55, 2), np.arange(10, 80), indexing='ij')",
            "assert (f[:, 0, :] == (i * 70 * 80 + 3 * 80 + k) * 0.25).all()",
            "p = np.load(d + '/pairs.npy')",
            "assert p.shape == (33, 9) and p.dtype.itemsize == 16, (p.shape, p.dtype)",
            "assert p['f0'][32, 8] == 32 * 9 + 8, p['f0'][32, 8]",
            "assert np.load(d + '/empty.npy').shape == (0, 70, 80)",
            "print('numpy ok')"), dir.toString()).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        final String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), said);
        assertTrue(said.contains("numpy ok"), said);
        assertArrayEquals(new long[] {25, 1, 70}, r.count());
        assertTrue(Arrays.stream(want).allMatch(Double::isFinite));
    }
}
