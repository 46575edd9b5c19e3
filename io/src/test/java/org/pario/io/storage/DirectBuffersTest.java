package org.pario.io.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.ParioException;

/**
 * Buffers for direct accesses have exactly the size asked for, start aligned as asked, and start on a huge page when
 * they hold one; bad sizes and alignments are refused by name.
 */
@Timeout(30)
class DirectBuffersTest {
    @Test
    void buffersOfAHugePageOrMoreStartOnOne() {
        for (final int bytes : new int[] {DirectBuffers.HUGE_PAGE, DirectBuffers.HUGE_PAGE + 1, 4 << 20,
            (16 << 20) + 4096}) {
            final ByteBuffer b = DirectBuffers.allocate(bytes, 4096);
            assertTrue(b.isDirect());
            assertEquals(bytes, b.capacity());
            assertEquals(0, b.position());
            assertEquals(bytes, b.limit());
            assertEquals(0, b.alignmentOffset(0, DirectBuffers.HUGE_PAGE), bytes + " bytes");
            // every byte is the buffer's own: writes at both ends land and read back
            b.put(0, (byte) 7).put(bytes - 1, (byte) 9);
            assertEquals(7, b.get(0));
            assertEquals(9, b.get(bytes - 1));
        }
    }

    @Test
    void smallerBuffersStartAsAsked() {
        for (final int alignment : new int[] {1, 512, 4096, 1 << 20}) {
            for (final int bytes : new int[] {0, 1, 4095, 4096, 100_000}) {
                final ByteBuffer b = DirectBuffers.allocate(bytes, alignment);
                assertEquals(bytes, b.capacity());
                if (bytes > 0) {
                    assertEquals(0, b.alignmentOffset(0, alignment), bytes + " bytes at " + alignment);
                }
            }
        }
        // a huge page's worth aligned to more than a huge page keeps the larger alignment
        final int larger = DirectBuffers.HUGE_PAGE * 2;
        assertEquals(0, DirectBuffers.allocate(DirectBuffers.HUGE_PAGE, larger).alignmentOffset(0, larger));
    }

    @Test
    void badSizesAndAlignmentsAreRefusedByName() {
        assertTrue(assertThrows(ParioException.class, () -> DirectBuffers.allocate(-1, 4096)).getMessage()
            .contains("bytes"));
        for (final int alignment : new int[] {0, -4096, 3, 12288}) {
            assertTrue(assertThrows(ParioException.class, () -> DirectBuffers.allocate(16, alignment)).getMessage()
                .contains("alignment"));
        }
    }

    @Test
    void theHugePageSizeIsTheKernelsOrTwoMiB(@TempDir final Path dir) throws IOException {
        final Path f = dir.resolve("hpage_pmd_size");
        Files.writeString(f, "1073741824\n");
        assertEquals(1 << 30, DirectBuffers.hugePageSize(f));
        Files.writeString(f, "65536");
        assertEquals(65536, DirectBuffers.hugePageSize(f));
        for (final String bad : new String[] {"", "garbage", "3000", "0", "-2097152", "4294967296"}) {
            Files.writeString(f, bad);
            assertEquals(2 << 20, DirectBuffers.hugePageSize(f), bad);
        }
        assertEquals(2 << 20, DirectBuffers.hugePageSize(dir.resolve("missing")));
    }
}
