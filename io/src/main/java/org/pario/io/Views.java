package org.pario.io;

import java.io.IOException;
import java.nio.ByteBuffer;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.datatypes.Cursor;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;
import org.pario.io.storage.Storage;

/** The rules of file views, and moving data between memory and a file through one. */
final class Views {
    /** Filetype runs examined by the ordering check; beyond this the check trusts the type's construction. */
    private static final long CHECKED_RUNS = 10_000_000;

    private Views() {
    }

    /** Checks a view as {@code MPI_File_set_view} requires. */
    static void check(final FileView v, final boolean writable) {
        if (v.disp() < 0) {
            throw ParioException.argument("setView: disp must be >= 0, got " + v.disp());
        }
        if (v.datarep() == DataRepresentation.EXTERNAL32) {
            throw ParioException.argument("setView: the external32 data representation is not supported for files "
                + "yet; use native or internal");
        }
        final long esize = v.etype().size();
        if (esize <= 0) {
            throw ParioException.argument("setView: etype " + v.etype() + " holds no data");
        }
        if (v.filetype().size() % esize != 0) {
            throw ParioException.argument("setView: filetype " + v.filetype() + " (" + v.filetype().size()
                + " bytes) is not made of whole etypes of " + esize + " bytes");
        }
        final String e = v.etype().homogeneousBasicType().map(Datatype::toString).orElse(null);
        final String f = v.filetype().homogeneousBasicType().map(Datatype::toString).orElse(null);
        if (e != null && f != null && !e.equals(f) && !e.equals("byte") && v.filetype().size() > 0) {
            throw ParioException.argument("setView: filetype " + v.filetype() + " is made of " + f
                + ", not of the etype " + e);
        }
        final Cursor c = v.filetype().cursor(1);
        long previousEnd = Long.MIN_VALUE;
        long first = Long.MIN_VALUE;
        long runs = 0;
        while (c.next() && runs++ < CHECKED_RUNS) {
            if (c.offset() < 0) {
                throw ParioException.argument("setView: filetype " + v.filetype() + " has data at negative "
                    + "displacement " + c.offset());
            }
            if (first == Long.MIN_VALUE) {
                first = c.offset();
            }
            if (previousEnd != Long.MIN_VALUE) {
                if (c.offset() < previousEnd && (writable || c.offset() + c.length() <= previousEnd)) {
                    throw ParioException.argument("setView: filetype " + v.filetype() + " displacements "
                        + (c.offset() + c.length() <= previousEnd ? "decrease" : "overlap") + " at byte " + c.offset()
                        + (writable ? " (a file open for writing needs non-overlapping, increasing runs)" : ""));
                }
            }
            previousEnd = Math.max(previousEnd, c.offset() + c.length());
        }
        if (writable && first != Long.MIN_VALUE && previousEnd > first + v.filetype().extent()) {
            throw ParioException.argument("setView: filetype " + v.filetype() + " reaches byte " + previousEnd
                + " but repeats every " + v.filetype().extent() + " bytes, so its copies overlap");
        }
    }

    /**
     * Moves {@code count x type} between memory and the file through the view, starting at view offset
     * {@code offset} (in etypes).
     *
     * @return the bytes moved; fewer than asked only for reads that reach the end of the file
     */
    static long transfer(final Storage storage, final FileView v, final boolean write, final Memory m,
                         final long count, final Datatype type, final long offset, final int chunkMax,
                         final int sieveBytes) {
        if (count < 0) {
            throw ParioException.argument("count must be >= 0, got " + count);
        }
        if (offset < 0) {
            throw ParioException.argument("offset must be >= 0, got " + offset);
        }
        final long bytes = Math.multiplyExact(count, type.size());
        final long esize = v.etype().size();
        if (bytes % esize != 0) {
            throw ParioException.argument(count + " x " + type + " = " + bytes + " bytes is not a whole number of "
                + "etypes of " + esize + " bytes");
        }
        if (bytes == 0) {
            return 0;
        }
        final long fsize = v.filetype().size();
        if (fsize == 0) {
            throw ParioException.argument("the view's filetype " + v.filetype() + " holds no data");
        }
        final long start = Math.multiplyExact(offset, esize);
        final long end = Math.addExact(start, bytes);
        final Cursor file = v.filetype().cursor((end + fsize - 1) / fsize).seek(start).limit(end);
        final ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(bytes, chunkMax));
        try {
            return write ? write(storage, v, file, chunk, m, count, type, bytes) : read(storage, v, file, chunk, m,
                count, type, sieveBytes);
        } catch (IOException e) {
            throw new ParioException(ErrorCategory.IO, (write ? "write" : "read") + " failed: " + e, e);
        }
    }

    private static long write(final Storage storage, final FileView v, final Cursor file, final ByteBuffer chunk,
                              final Memory m, final long count, final Datatype type, final long bytes)
        throws IOException {
        long memPos = 0;
        int filled = 0;
        int used = 0;
        while (file.next()) {
            final long at = v.disp() + file.offset();
            final long len = file.length();
            long done = 0;
            while (done < len) {
                if (used == filled) {
                    filled = (int) Math.min(chunk.capacity(), bytes - memPos);
                    Packer.pack(m, m.origin(), type, count, DataRepresentation.NATIVE, memPos, chunk, 0, filled);
                    memPos += filled;
                    used = 0;
                }
                final int take = (int) Math.min(len - done, filled - used);
                storage.write(at + done, chunk.slice(used, take));
                done += take;
                used += take;
            }
        }
        return bytes;
    }

    /**
     * Reads through the view with data sieving: consecutive file runs whose span fits the sieve buffer are read
     * with one storage call, and their pieces copied out, instead of one call per run (ROMIO's
     * {@code ind_rd_buffer_size}). Runs are non-decreasing (the view guarantees it), so a window only grows forward.
     */
    private static long read(final Storage storage, final FileView v, final Cursor file, final ByteBuffer chunk,
                             final Memory m, final long count, final Datatype type, final int sieveBytes)
        throws IOException {
        final Sink sink = new Sink(chunk, m, count, type);
        final ByteBuffer window = sieveBytes > 0 ? ByteBuffer.allocate(sieveBytes) : null;
        long[] offsets = new long[64];
        long[] lengths = new long[64];
        int runs = 0;
        long windowStart = 0;
        boolean more = file.next();
        while (more) {
            final long at = v.disp() + file.offset();
            final long len = file.length();
            if (window == null || len >= window.capacity()) {
                // a large run, or sieving off: one read straight from the file
                final long before = sink.got;
                if (runs > 0) {
                    if (!flush(storage, window, windowStart, offsets, lengths, runs, sink)) {
                        return sink.finish();
                    }
                    runs = 0;
                }
                if (!sink.readDirect(storage, at, len)) {
                    return sink.finish();
                }
                more = file.next();
                if (sink.got - before < 0) {
                    throw new IllegalStateException();
                }
                continue;
            }
            if (runs > 0 && at + len - windowStart > window.capacity()) {
                if (!flush(storage, window, windowStart, offsets, lengths, runs, sink)) {
                    return sink.finish();
                }
                runs = 0;
            }
            if (runs == 0) {
                windowStart = at;
            }
            if (runs == offsets.length) {
                offsets = java.util.Arrays.copyOf(offsets, runs * 2);
                lengths = java.util.Arrays.copyOf(lengths, runs * 2);
            }
            offsets[runs] = at;
            lengths[runs] = len;
            runs++;
            more = file.next();
        }
        if (runs > 0) {
            flush(storage, window, windowStart, offsets, lengths, runs, sink);
        }
        return sink.finish();
    }

    /** Reads one window and hands its runs to the sink; false once the end of the file cut a run short. */
    private static boolean flush(final Storage storage, final ByteBuffer window, final long start, final long[] offsets,
                                 final long[] lengths, final int runs, final Sink sink) throws IOException {
        final long end = offsets[runs - 1] + lengths[runs - 1];
        final long got = storage.read(start, window.clear().limit((int) (end - start)));
        for (int i = 0; i < runs; i++) {
            final long from = offsets[i] - start;
            final long available = Math.max(0, Math.min(lengths[i], got - from));
            sink.take(window, (int) from, (int) available);
            if (available < lengths[i]) {
                return false;
            }
        }
        return true;
    }

    /** Collects read bytes in stream order and unpacks them into memory a chunk at a time. */
    private static final class Sink {
        private final ByteBuffer chunk;
        private final Memory memory;
        private final long count;
        private final Datatype type;
        private int filled;
        private long memPos;
        long got;

        Sink(final ByteBuffer chunk, final Memory memory, final long count, final Datatype type) {
            this.chunk = chunk;
            this.memory = memory;
            this.count = count;
            this.type = type;
        }

        void take(final ByteBuffer from, final int index, final int length) {
            int done = 0;
            while (done < length) {
                if (filled == chunk.capacity()) {
                    drain();
                }
                final int n = Math.min(length - done, chunk.capacity() - filled);
                chunk.put(filled, from, index + done, n);
                filled += n;
                done += n;
                got += n;
            }
        }

        /** Reads a run straight into the chunk; false if the file ended inside it. */
        boolean readDirect(final Storage storage, final long at, final long len) throws IOException {
            long done = 0;
            while (done < len) {
                if (filled == chunk.capacity()) {
                    drain();
                }
                final int take = (int) Math.min(len - done, chunk.capacity() - filled);
                final long n = storage.read(at + done, chunk.slice(filled, take));
                filled += (int) n;
                done += n;
                got += n;
                if (n < take) {
                    return false;
                }
            }
            return true;
        }

        private void drain() {
            Packer.unpack(chunk, 0, filled, memory, memory.origin(), type, count, DataRepresentation.NATIVE, memPos);
            memPos += filled;
            filled = 0;
        }

        long finish() {
            if (filled > 0) {
                drain();
            }
            return got;
        }
    }
}
