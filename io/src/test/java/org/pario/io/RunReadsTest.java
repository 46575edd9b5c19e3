package org.pario.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ParioException;
import org.pario.comm.LocalCluster;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.io.storage.Storage;

/**
 * An independent read's runs that share a chunk buffer are read together, several at once: every byte lands where
 * the view puts it, the end of the file cuts the count where it falls, and a failed run fails the read only once
 * no other run still writes into the buffer.
 */
@Timeout(60)
class RunReadsTest {
    private static final int RUN = 64 << 10;

    @TempDir
    Path dir;

    /** Counts the reads in flight at once and can fail one. */
    static final class Concurrent extends SievingTest.Counting {
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger most = new AtomicInteger();
        /** Open once two reads have begun. */
        final java.util.concurrent.CountDownLatch bothBegun = new java.util.concurrent.CountDownLatch(2);
        /** The file offset whose read fails, or -1. */
        final long failAt;

        Concurrent(final Storage inner, final long failAt) {
            super(inner);
            this.failAt = failAt;
        }

        @Override
        public long read(final long position, final ByteBuffer dst) throws IOException {
            final int now = inFlight.incrementAndGet();
            most.accumulateAndGet(now, Math::max);
            try {
                // the first reads wait (a bounded time) for a second one to begin: reads issued together overlap,
                // reads made one after another never do
                bothBegun.countDown();
                bothBegun.await(5, java.util.concurrent.TimeUnit.SECONDS);
                if (position == failAt) {
                    throw new IOException("injected failure at " + position);
                }
                return super.read(position, dst);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            } finally {
                inFlight.decrementAndGet();
            }
        }
    }

    private Path file(final int bytes) throws IOException {
        final byte[] data = new byte[bytes];
        new Random(7).nextBytes(data);
        final Path f = dir.resolve("runs-" + bytes + ".bin");
        Files.write(f, data);
        return f;
    }

    /** Every other 64 KiB run of the file: 64 runs, 4 MiB of data, one chunk buffer's worth. */
    private static Datatype everyOtherRun() {
        return Datatype.vector(64, RUN, 2 * RUN, Datatype.BYTE);
    }

    @Test
    void runsThatShareAChunkAreReadSeveralAtOnceAndLandInOrder() throws Exception {
        final Path f = file(128 * RUN);
        final byte[] all = Files.readAllBytes(f);
        final Concurrent[] seen = new Concurrent[1];
        LocalCluster.run(1, comm -> {
            try (ParallelFile file = ParallelFile.open(comm, f.toString(), EnumSet.of(Mode.RDONLY), Hints.DEFAULT,
                s -> seen[0] = new Concurrent(s, -1))) {
                file.setView(0, Datatype.BYTE, everyOtherRun(), DataRepresentation.NATIVE);
                final byte[] back = new byte[64 * RUN];
                assertEquals(back.length, file.readAt(0, back, back.length, Datatype.BYTE).bytes());
                for (int r = 0; r < 64; r++) {
                    final int run = r;
                    assertArrayEquals(java.util.Arrays.copyOfRange(all, 2 * run * RUN, (2 * run + 1) * RUN),
                        java.util.Arrays.copyOfRange(back, run * RUN, (run + 1) * RUN), () -> "run " + run);
                }
            }
        });
        assertEquals(64, seen[0].reads.get(), "one storage call a run");
        assertTrue(seen[0].most.get() > 1 && seen[0].most.get() <= RunReads.STRANDS,
            "runs in flight at once: " + seen[0].most.get());
    }

    @Test
    void theEndOfTheFileInsideAQueuedRunCutsTheCountThere() throws Exception {
        // the file ends half-way through run 10, at 20.5 runs: it counts as far as it came, the runs after it not
        final Path f = file(20 * RUN + RUN / 2);
        final byte[] all = Files.readAllBytes(f);
        LocalCluster.run(1, comm -> {
            try (ParallelFile file = ParallelFile.open(comm, f.toString(), EnumSet.of(Mode.RDONLY))) {
                file.setView(0, Datatype.BYTE, everyOtherRun(), DataRepresentation.NATIVE);
                final byte[] back = new byte[64 * RUN];
                assertEquals(10L * RUN + RUN / 2, file.readAt(0, back, back.length, Datatype.BYTE).bytes());
                assertArrayEquals(java.util.Arrays.copyOfRange(all, 20 * RUN, 20 * RUN + RUN / 2),
                    java.util.Arrays.copyOfRange(back, 10 * RUN, 10 * RUN + RUN / 2));
            }
        });
    }

    @Test
    void aRunThatFailsFailsTheReadOnceEveryOtherRunHasEnded() throws Exception {
        final Path f = file(128 * RUN);
        final Concurrent[] seen = new Concurrent[1];
        final ParioException e = assertThrows(ParioException.class, () -> LocalCluster.run(1, comm -> {
            try (ParallelFile file = ParallelFile.open(comm, f.toString(), EnumSet.of(Mode.RDONLY), Hints.DEFAULT,
                s -> seen[0] = new Concurrent(s, 2L * 5 * RUN))) {
                file.setView(0, Datatype.BYTE, everyOtherRun(), DataRepresentation.NATIVE);
                try {
                    file.readAt(0, new byte[64 * RUN], 64 * RUN, Datatype.BYTE);
                } finally {
                    assertEquals(0, seen[0].inFlight.get(), "no run still reading when the read ends");
                }
            }
        }));
        assertTrue(e.getMessage().contains("injected failure at " + 10L * RUN), e.getMessage());
    }
}
