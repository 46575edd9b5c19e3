package org.pario.io.array;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.zip.CRC32C;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.datatypes.Datatype;
import org.pario.io.Agreement;
import org.pario.io.Hints;
import org.pario.io.storage.DirectBuffers;
import org.pario.io.storage.Storage;
import org.pario.io.storage.StorageProvider;
import org.pario.io.storage.Storages;

/**
 * The CRC-32C checksums of an array's data in fixed-size chunks, read from the file collectively: the chunks to
 * read are dealt to the ranks in turn, and the sums are combined with one allreduce. Writes and restores compute
 * them in flight instead ({@link InFlightChecksums}) and come here only for chunks that could not be summed so.
 */
final class Checksums {
    /** Bytes of neighbouring chunks a rank reads in one call when it sums them from the file. */
    static final long WINDOW_BYTES = 16L << 20;
    /** Alignment of the direct window, as a direct read of the file wants it. */
    private static final int WINDOW_ALIGNMENT = 4096;

    private Checksums() {
    }

    /**
     * Collective: the checksums of array {@code a}'s chunks, read from a file that holds the array {@code shift}
     * bytes before its offset, opened with {@code hints} (whose {@code direct_read} the windows follow).
     */
    static long[] of(final Communicator comm, final String file, final StoredArray a, final long chunk,
                     final long shift, final Hints hints) throws IOException {
        return of(comm, file, a, chunk, shift, null, hints);
    }

    /**
     * Collective: the checksums of the chunks of array {@code a} that {@code only} marks (all when it is null); the
     * others are 0.
     */
    static long[] of(final Communicator comm, final String file, final StoredArray a, final long chunk,
                     final long shift, final boolean[] only, final Hints hints) throws IOException {
        final int n = (int) ((a.bytes() + chunk - 1) / chunk);
        final long[] mine = new long[n];
        // neighbouring chunks are dealt together, a window at a time, each window read in one call past the page
        // cache (as the hints allow), which the disk serves as many requests at once; ranks reading one 1 MiB chunk
        // after another through the page cache verified at half a restore's speed (docs/history/benchmarks-2026-12.md)
        final int perWindow = (int) Math.max(1, Math.min(n, WINDOW_BYTES / chunk));
        IOException failure = null;
        // every rank reads at once: none of them repairs anything (false), the collective write has ended
        try (Storage st = Storages.open(file, new StorageProvider.Request(true, false, false, false, hints.asMap(),
            false))) {
            final int capacity = (int) Math.min((long) perWindow * chunk, Math.max(1, a.bytes()));
            final ByteBuffer window = window(capacity, st.prefersDirectBuffers());
            final CRC32C crc = new CRC32C();
            int turn = 0;
            for (int i = 0; i < n; ) {
                if (only != null && !only[i]) {
                    i++;
                    continue;
                }
                // a run of wanted chunks, at most a window of them
                int end = i + 1;
                while (end < n && end - i < perWindow && (only == null || only[end])) {
                    end++;
                }
                if (turn++ % comm.size() == comm.rank()) {
                    final long from = i * chunk;
                    final int len = (int) (Math.min(a.bytes(), end * chunk) - from);
                    window.clear().limit(len);
                    // a file cut short leaves the rest unread, and the chunks it cuts fail their sums
                    final long at = a.offset() - shift + from;
                    while (window.hasRemaining() && st.read(at + window.position(), window) > 0) {
                        continue;
                    }
                    final int got = window.position();
                    for (int k = i; k < end; k++) {
                        // what was read of the chunk: all of it, unless the file was cut short
                        final int start = (int) Math.min((k - i) * chunk, got);
                        crc.reset();
                        crc.update(window.slice(start, (int) Math.min(got - start, chunk)));
                        // + 1 so that an unread chunk (0) can never pass for a checked one
                        mine[k] = crc.getValue() + 1;
                    }
                }
                i = end;
            }
        } catch (IOException e) {
            failure = e;
        }
        // a rank that could not read still joins the allreduce, so none waits; the agreement then fails all
        final long[] all = new long[n];
        comm.allreduce(mine, all, n, Datatype.LONG, Op.SUM);
        if (failure != null) {
            throw failure;
        }
        for (int i = 0; i < n; i++) {
            all[i] = Math.max(0, all[i] - 1);
        }
        return all;
    }

    /** A window of {@code capacity} bytes: direct where the storage prefers it and the JVM's limit allows. */
    private static ByteBuffer window(final int capacity, final boolean direct) {
        if (direct) {
            try {
                return DirectBuffers.allocate(capacity, WINDOW_ALIGNMENT);
            } catch (OutOfMemoryError e) {
                // the JVM's direct memory is spent (-XX:MaxDirectMemorySize): the heap serves, through a copy
            }
        }
        return ByteBuffer.allocate(capacity);
    }

    /**
     * Collective: checks array {@code a}'s chunks against the header, failing on every rank with the array, chunk
     * and byte range of the first damage.
     */
    static void verify(final Communicator comm, final String location, final CheckpointHeader h,
                       final StoredArray a, final Hints hints) {
        verify(comm, location, h, a, null, hints);
    }

    /**
     * Collective: checks array {@code a}'s chunks against the header, given the checksums computed in flight as the
     * array was read ({@code -1} where unsure; null when it was not read): the chunks whose sums match are whole,
     * the others are read again from the file, and a chunk that still differs fails every rank with the array,
     * chunk and byte range of the first damage.
     */
    static void verify(final Communicator comm, final String location, final CheckpointHeader h,
                       final StoredArray a, final long[] inFlight, final Hints hints) {
        final long[] want = a.crc32c();
        boolean[] again = null;
        if (inFlight != null) {
            again = new boolean[want.length];
            boolean any = false;
            for (int i = 0; i < want.length; i++) {
                again[i] = inFlight[i] != want[i];
                any |= again[i];
            }
            if (!any) {
                return;
            }
        }
        long[] sums = null;
        Throwable failure = null;
        try {
            sums = of(comm, location, a, h.chunkBytes(), 0, again, hints);
        } catch (IOException e) {
            failure = new ParioException(ErrorCategory.IO, "checkpoint " + location + ": " + HeaderCodec.why(e), e);
        }
        Agreement.agree(comm, failure);
        int bad = 0;
        int first = -1;
        for (int i = 0; i < sums.length; i++) {
            if ((again == null || again[i]) && sums[i] != want[i]) {
                bad++;
                first = first < 0 ? i : first;
            }
        }
        if (bad > 0) {
            throw damaged(location, h, a, first, bad, true);
        }
    }

    /**
     * In this process alone: checks every chunk of every array against the header, reading the file once in
     * windows of whole chunks, and fails with the array, chunk and byte range of the first damage.
     */
    static void verifyAlone(final String location, final CheckpointHeader h) {
        final long chunk = h.chunkBytes();
        final long perWindow = Math.max(1, WINDOW_BYTES / chunk);
        final byte[] window = new byte[(int) Math.min(perWindow * chunk, Math.max(1, maxArrayBytes(h)))];
        try (Storage st = Storages.open(location, new StorageProvider.Request(true, false, false, false, Map.of(),
            false))) {
            final CRC32C crc = new CRC32C();
            for (final StoredArray a : h.arrays()) {
                final long[] want = a.crc32c();
                int bad = 0;
                int first = -1;
                for (long from = 0; from < a.bytes(); from += window.length) {
                    final int len = (int) Math.min(window.length, a.bytes() - from);
                    final ByteBuffer b = ByteBuffer.wrap(window, 0, len);
                    while (b.hasRemaining()) {
                        if (st.read(a.offset() + from + b.position(), b) <= 0) {
                            throw new java.io.EOFException("the file ends before array '" + a.name() + "' does");
                        }
                    }
                    for (long at = 0; at < len; at += chunk) {
                        crc.reset();
                        crc.update(window, (int) at, (int) Math.min(chunk, len - at));
                        final int i = (int) ((from + at) / chunk);
                        if (crc.getValue() != want[i]) {
                            bad++;
                            first = first < 0 ? i : first;
                        }
                    }
                }
                if (bad > 0) {
                    throw damaged(location, h, a, first, bad, false);
                }
            }
        } catch (IOException e) {
            throw new ParioException(ErrorCategory.IO, "checkpoint " + location + ": " + HeaderCodec.why(e), e);
        }
    }

    private static long maxArrayBytes(final CheckpointHeader h) {
        long most = 0;
        for (final StoredArray a : h.arrays()) {
            most = Math.max(most, a.bytes());
        }
        return most;
    }

    static ParioException damaged(final String location, final CheckpointHeader h, final StoredArray a,
                                  final int first, final int bad, final boolean agreed) {
        final long from = first * h.chunkBytes();
        final long to = Math.min(a.bytes(), from + h.chunkBytes());
        return new ParioException(ErrorCategory.IO, "checkpoint " + location + ": array '" + a.name()
            + "' is damaged in chunk " + first + ", bytes " + from + " to " + to + " of its data (file bytes "
            + (a.offset() + from) + " to " + (a.offset() + to) + ")" + (bad > 1 ? " and in " + (bad - 1)
            + " more chunk" + (bad > 2 ? "s" : "") + " of " + h.chunkBytes() + " bytes" : ""), null, agreed);
    }
}
