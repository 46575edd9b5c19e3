package org.pario.io;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;

/**
 * An independent write from a direct buffer that is its own stream hands each run to the storage from the buffer, in
 * one call, where packing would have cut it at the packing chunk; a strided memory type is still packed.
 */
@Timeout(60)
class StreamMemoryWriteTest {
    /** Longer than a packing chunk (4 MiB), so a packed run takes several storage calls. */
    private static final int RUN_DOUBLES = (12 << 20) / 8;

    @TempDir
    Path dir;

    private static int writes(final Path file, final ByteBuffer data, final long count, final Datatype memoryType) {
        return LocalCluster.call(1, comm -> {
            final SievingTest.Counting[] counting = new SievingTest.Counting[1];
            try (ParallelFile f = ParallelFile.open(comm, file.toString(), EnumSet.of(Mode.CREATE, Mode.RDWR),
                Hints.of(Map.of()), s -> counting[0] = new SievingTest.Counting(s))) {
                f.setView(8, Datatype.DOUBLE, Datatype.DOUBLE, DataRepresentation.NATIVE);
                f.write(data, count, memoryType);
                return counting[0].writes.get();
            }
        }).get(0);
    }

    @Test
    void aRunLeavesADirectBufferInOneStorageCall() throws Exception {
        final ByteBuffer data = ByteBuffer.allocateDirect(8 * RUN_DOUBLES).order(ByteOrder.nativeOrder());
        for (int i = 0; i < RUN_DOUBLES; i++) {
            data.putDouble(8 * i, i + 0.25);
        }
        final Path file = dir.resolve("run.bin");
        assertEquals(1, writes(file, data, RUN_DOUBLES, Datatype.DOUBLE));
        final ByteBuffer back = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.nativeOrder());
        assertEquals(8 + 8L * RUN_DOUBLES, back.capacity());
        for (int i = 0; i < RUN_DOUBLES; i++) {
            assertEquals(i + 0.25, back.getDouble(8 + 8 * i), "double " + i);
        }
    }

    @Test
    void everyOtherDoubleOfADirectBufferIsPacked() throws Exception {
        final int n = RUN_DOUBLES / 2;
        final ByteBuffer data = ByteBuffer.allocateDirect(16 * n).order(ByteOrder.nativeOrder());
        for (int i = 0; i < 2 * n; i++) {
            data.putDouble(8 * i, i % 2 == 0 ? i / 2 + 0.5 : -1);
        }
        final Path file = dir.resolve("strided.bin");
        final int calls = writes(file, data, n, Datatype.resized(Datatype.DOUBLE, 0, 16));
        assertEquals((8L * n + (4 << 20) - 1) / (4 << 20), calls, "one storage call per packed chunk");
        final ByteBuffer back = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.nativeOrder());
        for (int i = 0; i < n; i++) {
            assertEquals(i + 0.5, back.getDouble(8 + 8 * i), "double " + i);
        }
    }
}
