package org.pario.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

import org.pario.io.storage.Storage;

/**
 * The runs an independent read takes straight from the file into one chunk buffer, queued and then read together:
 * up to {@link #STRANDS} at once, each strand reading its share of the runs one after another. Read one at a time,
 * a rank's runs left the disk without that rank's next request while the rank summed the last one (a restore's
 * checksums are summed by whoever reads) or unpacked the chunk (io.md, "Independent reads"). A run that fills the
 * chunk alone (a long one) is one call, as before.
 */
final class RunReads {
    /** Runs of one chunk in flight at once, at most. */
    static final int STRANDS = 4;
    /** Runs queued at most before they are read: short runs that many to a chunk gain nothing from more. */
    static final int MAX_RUNS = 256;

    private final Storage storage;
    private final ByteBuffer chunk;
    /** Where strands other than the caller's run; null to read every run on the caller's thread. */
    private final Executor executor;
    private final long[] positions = new long[MAX_RUNS];
    private final int[] lengths = new int[MAX_RUNS];
    /** Where each run lands: an index of the chunk, or a byte of {@link #array} counted from its first element. */
    private final long[] indices = new long[MAX_RUNS];
    /** The Java array the runs land in instead of the chunk ({@link Storage#takesArrays}), or null. */
    private Object array;
    private int runs;
    private int bytes;

    /**
     * @param storage  the file
     * @param chunk    the buffer the runs land in
     * @param executor where strands other than the caller's run; null for none
     */
    RunReads(final Storage storage, final ByteBuffer chunk, final Executor executor) {
        this.storage = storage;
        this.chunk = chunk;
        this.executor = executor;
    }

    /** @return the bytes queued */
    int bytes() {
        return bytes;
    }

    /** @return whether no more runs can be queued before {@link #read()} */
    boolean full() {
        return runs == MAX_RUNS;
    }

    /** @return whether the runs queued land in a Java array rather than the chunk */
    boolean intoArray() {
        return array != null;
    }

    /**
     * Has the runs queued from now on land in a Java array, straight from the file ({@link Storage#takesArrays}), or
     * in the chunk again; only with nothing queued.
     *
     * @param target a {@code byte[]} or primitive array, or null for the chunk
     */
    void target(final Object target) {
        if (runs > 0) {
            throw new IllegalStateException("runs are queued for the other target");
        }
        array = target;
    }

    /**
     * Queues file bytes {@code [position, position + length)} to land at {@code index} of the chunk, or at byte
     * {@code index} of the array ({@link #target}), right after those queued before.
     */
    void add(final long position, final long index, final int length) {
        positions[runs] = position;
        indices[runs] = index;
        lengths[runs] = length;
        runs++;
        bytes += length;
    }

    /**
     * Reads the queued runs and empties the queue.
     *
     * @return the bytes read, in queue order, up to the first run the end of the file cut short (counted as far as
     *     it came); what later runs read does not count
     * @throws IOException the first failure of any run, once every strand has ended (none writes into the chunk
     *                     after this returns or throws)
     */
    long read() throws IOException {
        final int n = runs;
        runs = 0;
        bytes = 0;
        if (n == 0) {
            return 0;
        }
        final long[] got = new long[n];
        final int strands = executor == null ? 1 : Math.min(STRANDS, n);
        final CompletableFuture<?>[] others = new CompletableFuture<?>[strands - 1];
        for (int s = 1; s < strands; s++) {
            final int strand = s;
            others[s - 1] = CompletableFuture.runAsync(() -> {
                try {
                    readStrand(strand, strands, n, got);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, executor);
        }
        Throwable failure = null;
        try {
            readStrand(0, strands, n, got);
        } catch (IOException | RuntimeException e) {
            failure = e;
        }
        for (final CompletableFuture<?> other : others) {
            try {
                other.join();
            } catch (CompletionException e) {
                final Throwable cause = e.getCause() instanceof UncheckedIOException u ? u.getCause() : e.getCause();
                failure = failure != null ? failure : cause;
            }
        }
        if (failure instanceof IOException io) {
            throw io;
        } else if (failure instanceof RuntimeException re) {
            throw re;
        } else if (failure != null) {
            throw new IOException(failure);
        }
        long total = 0;
        for (int i = 0; i < n; i++) {
            total += got[i];
            if (got[i] < lengths[i]) {
                break;
            }
        }
        return total;
    }

    /** Reads runs {@code strand}, {@code strand + strands}, ... of the {@code n} queued. */
    private void readStrand(final int strand, final int strands, final int n, final long[] got) throws IOException {
        for (int i = strand; i < n; i += strands) {
            got[i] = Math.max(0, array != null ? storage.read(positions[i], array, indices[i], lengths[i])
                : storage.read(positions[i], chunk.slice((int) indices[i], lengths[i])));
        }
    }
}
