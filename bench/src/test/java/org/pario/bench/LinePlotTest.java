package org.pario.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class LinePlotTest {
    @TempDir
    Path dir;

    /** A table with a missing point becomes a PNG of the plot's size with its lines drawn in colour. */
    @Test
    void drawsATableAsAPng() throws Exception {
        final Path png = dir.resolve("plot.png");
        LinePlot.draw(png, "title", "ranks", "MiB", new String[] {"ranks", "BLOCK", "CYCLIC(1)"},
            List.of(new String[] {"256", "0.9", "1.1"}, new String[] {"1024", "0.5", "-"},
                new String[] {"65536", "16.9", "105.7"}), true, true);
        final BufferedImage img = ImageIO.read(png.toFile());
        assertEquals(900, img.getWidth());
        assertEquals(560, img.getHeight());
        int coloured = 0;
        for (int y = 0; y < img.getHeight(); y++) {
            for (int x = 0; x < img.getWidth(); x++) {
                final int rgb = img.getRGB(x, y) & 0xffffff;
                final int r = rgb >> 16;
                final int b = rgb & 0xff;
                if (Math.abs(r - b) > 60) {
                    coloured++;
                }
            }
        }
        assertNotEquals(0, coloured, "the series' lines are drawn");
    }
}
