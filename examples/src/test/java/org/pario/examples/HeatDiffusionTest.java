package org.pario.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.comm.LocalCluster;
import org.pario.io.array.Checkpoint;
import org.pario.io.array.StoredArray;

@Timeout(120)
class HeatDiffusionTest {
    private static final long ROWS = 30;
    private static final long COLS = 22;

    @TempDir
    Path dir;

    private static byte[] data(final Path checkpoint) throws Exception {
        final StoredArray a = Checkpoint.at(checkpoint).header().array("temperature");
        try (FileChannel ch = FileChannel.open(checkpoint, StandardOpenOption.READ)) {
            final ByteBuffer b = ByteBuffer.allocate((int) a.bytes());
            ch.read(b, a.offset());
            return b.array();
        }
    }

    @Test
    void restartOnOtherRankCountsEndsBitwiseIdenticalToAnUninterruptedRun() throws Exception {
        final Path straight = Files.createDirectory(dir.resolve("straight"));
        final Path first = Files.createDirectory(dir.resolve("first"));
        final Path second = Files.createDirectory(dir.resolve("second"));
        final Path third = Files.createDirectory(dir.resolve("third"));
        final Path end = LocalCluster.call(4, c -> HeatDiffusion.run(c, ROWS, COLS, 60, 1000, straight, null)).get(0);
        assertEquals(straight.resolve("step-60.ckpt"), end);
        // 4 ranks (2 x 2) to step 20, 6 ranks (3 x 2) from 20 to 45, 5 ranks (5 x 1) from 45 to 60
        LocalCluster.run(4, c -> HeatDiffusion.run(c, ROWS, COLS, 20, 20, first, null));
        LocalCluster.run(6, c -> HeatDiffusion.run(c, ROWS, COLS, 45, 1000, second, first.resolve("step-20.ckpt")));
        final Path resumed = LocalCluster.call(5, c -> HeatDiffusion.run(c, ROWS, COLS, 60, 1000, third,
            second.resolve("step-45.ckpt"))).get(0);
        assertEquals(60, Checkpoint.at(resumed).header().attributes().getLong("step"));
        final byte[] a = data(end);
        assertArrayEquals(a, data(resumed), "bitwise identical after two restarts");
        // the heat has spread from the top edge into the interior
        final ByteBuffer b = ByteBuffer.wrap(a).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        assertEquals(1.0, b.getDouble(8 * 5));
        final double inside = b.getDouble(8 * (int) (3 * COLS + 5));
        assertTrue(inside > 0 && inside < 1, "row 3 has warmed: " + inside);
    }
}
