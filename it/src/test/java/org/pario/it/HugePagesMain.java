package org.pario.it;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.pario.io.storage.DirectBuffers;

/**
 * A rank that allocates 64 MiB of buffers for direct accesses, writes to every page of them, and prints its
 * {@code GLIBC_TUNABLES} and how much of its anonymous memory transparent huge pages back, before and after.
 */
public final class HugePagesMain {
    private HugePagesMain() {
    }

    public static void main(final String[] args) throws IOException {
        final long before = anonHugePagesKiB();
        final List<ByteBuffer> kept = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            final ByteBuffer b = DirectBuffers.allocate(4 << 20, 4096);
            for (int at = 0; at < b.capacity(); at += 4096) {
                b.put(at, (byte) 1);
            }
            kept.add(b);
        }
        final long after = anonHugePagesKiB();
        System.out.println("tunables=" + System.getenv("GLIBC_TUNABLES") + " buffers=" + kept.size()
            + " hugeKiB=" + (after - before));
    }

    /** @return the AnonHugePages line of this process's memory summary, in KiB */
    private static long anonHugePagesKiB() throws IOException {
        for (final String line : Files.readAllLines(Path.of("/proc/self/smaps_rollup"))) {
            if (line.startsWith("AnonHugePages:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IllegalStateException("no AnonHugePages in /proc/self/smaps_rollup");
    }
}
