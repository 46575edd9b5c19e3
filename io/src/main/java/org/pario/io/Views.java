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
                         final long count, final Datatype type, final long offset, final int chunkMax) {
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
                count, type);
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

    private static long read(final Storage storage, final FileView v, final Cursor file, final ByteBuffer chunk,
                             final Memory m, final long count, final Datatype type) throws IOException {
        long memPos = 0;
        int filled = 0;
        long got = 0;
        boolean eof = false;
        while (!eof && file.next()) {
            final long at = v.disp() + file.offset();
            final long len = file.length();
            long done = 0;
            while (done < len) {
                if (filled == chunk.capacity()) {
                    Packer.unpack(chunk, 0, filled, m, m.origin(), type, count, DataRepresentation.NATIVE, memPos);
                    memPos += filled;
                    filled = 0;
                }
                final int take = (int) Math.min(len - done, chunk.capacity() - filled);
                final long n = storage.read(at + done, chunk.slice(filled, take));
                filled += (int) n;
                done += n;
                got += n;
                if (n < take) {
                    eof = true;
                    break;
                }
            }
        }
        if (filled > 0) {
            Packer.unpack(chunk, 0, filled, m, m.origin(), type, count, DataRepresentation.NATIVE, memPos);
        }
        return got;
    }
}
