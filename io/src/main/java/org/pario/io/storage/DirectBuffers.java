package org.pario.io.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.pario.ParioException;

/**
 * Direct buffers for storage accesses that bypass the page cache, placed so that the kernel can back them with
 * transparent huge pages.
 *
 * <p>A read or write with {@code O_DIRECT} moves data between the device and the buffer's physical pages, one DMA
 * segment per physically contiguous piece. Memory the JVM takes from the C library arrives as scattered 4 KiB pages:
 * measured here, 2 to 256 pieces per MiB depending on how fragmented free memory was, and a virtual disk that takes
 * at most 254 segments per request then splits a 1 MiB access in two and moves each piece on its own; cold reads of
 * a darray ran at half to nine tenths of the speed they reach in huge pages (docs/benchmarks.md, "Direct reads and
 * writes into huge pages").
 * A buffer of at least one huge page therefore starts on a huge-page boundary: where the C library asks the kernel
 * for huge pages ({@code GLIBC_TUNABLES=glibc.malloc.hugetlb=1}, which {@code pario launch} and {@code bin/pario}
 * set) or the kernel gives them to every mapping ({@code transparent_hugepage/enabled = always}), every 2 MiB of it
 * is one physical piece. Elsewhere the placement costs one huge page of address space and changes nothing else.
 */
public final class DirectBuffers {
    /** Bytes of a transparent huge page, as the kernel reports it (2 MiB where it does not say). */
    public static final int HUGE_PAGE = hugePageSize(Path.of("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"));

    private DirectBuffers() {
    }

    /**
     * Allocates a direct buffer whose first byte sits on a multiple of {@code alignment}, and on a huge-page boundary
     * when the buffer holds a huge page or more.
     *
     * @param bytes     the capacity wanted, at least 0
     * @param alignment what the first byte's address must be a multiple of: a power of two
     * @return a direct buffer of exactly {@code bytes} bytes, position 0, limit its capacity
     */
    public static ByteBuffer allocate(final int bytes, final int alignment) {
        if (bytes < 0) {
            throw ParioException.argument("bytes must be >= 0, got " + bytes);
        }
        if (alignment <= 0 || Integer.bitCount(alignment) != 1) {
            throw ParioException.argument("alignment must be a power of two, got " + alignment);
        }
        final int unit = placement(bytes, alignment);
        final ByteBuffer raw = ByteBuffer.allocateDirect(Math.addExact(bytes, unit));
        final int off = raw.alignmentOffset(0, unit);
        return raw.slice(off == 0 ? 0 : unit - off, bytes);
    }

    /**
     * @param bytes     a buffer's capacity
     * @param alignment what its first byte's address must be a multiple of: a power of two
     * @return what {@link #allocate} aligns such a buffer's first byte to: a huge page from a huge page on
     */
    public static int placement(final int bytes, final int alignment) {
        return bytes >= HUGE_PAGE ? Math.max(alignment, HUGE_PAGE) : alignment;
    }

    /** @return the huge page size the kernel file names, or 2 MiB when it is missing or not a power of two */
    static int hugePageSize(final Path file) {
        try {
            final long size = Long.parseLong(Files.readString(file).trim());
            if (size > 0 && size <= 1 << 30 && Long.bitCount(size) == 1) {
                return (int) size;
            }
        } catch (IOException | NumberFormatException | SecurityException e) {
            // not Linux, or no transparent huge pages: the common size keeps buffers placed for the usual case
        }
        return 2 << 20;
    }
}
