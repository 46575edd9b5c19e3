package org.pario.datatypes;

import java.nio.ByteBuffer;

import org.pario.ParioException;

/**
 * Moves data between user memory laid out by a datatype and a packed stream ({@code MPI_Pack},
 * {@code MPI_Unpack}, {@code MPI_Pack_external}). Any byte range of the stream can be packed or unpacked on
 * its own, so callers can pipeline a large transfer through a small buffer.
 *
 * <p>In the native representation each contiguous run is one bulk copy (a raw memory copy where the JVM
 * allows it, see {@code RawCopy}; otherwise a safe copy through buffer views). In {@code external32} each run of one
 * basic type is converted on the fly (byte order reversed, {@code long} narrowed to 4 bytes, x87
 * {@code long double} turned into IEEE binary128); a value that does not fit the external size is refused
 * with {@link org.pario.ErrorCategory#TRUNCATE}.
 *
 * <p>Stateless and thread-safe; each call creates one small cursor, except for a type whose elements follow
 * each other without gaps, whose range is one copy.
 */
public final class Packer {
    private Packer() {
    }

    /**
     * Packs stream bytes {@code [streamFrom, streamFrom + length)} of {@code count} elements of {@code type}.
     *
     * @param src            user memory
     * @param origin         byte offset in {@code src} of the buffer address (displacement 0 of element 0);
     *                       for a view made with {@link Memory#at(long)}, pass its {@link Memory#origin()}
     * @param type           the memory layout
     * @param count          number of elements
     * @param representation representation of the packed stream
     * @param streamFrom     first stream byte to produce
     * @param dst            destination; absolute indexing, position and limit untouched
     * @param dstIndex       where the first produced byte goes
     * @param length         number of stream bytes to produce
     */
    public static void pack(final Memory src, final long origin, final Datatype type, final long count,
                            final DataRepresentation representation, final long streamFrom, final ByteBuffer dst,
                            final int dstIndex, final int length) {
        final Cursor c = rangeCursor(type, count, representation, streamFrom, length);
        checkBuffer("destination", dst, dstIndex, length);
        if (dst.isReadOnly()) {
            throw ParioException.argument("pack: the destination buffer is read-only");
        }
        if (c == null) {
            copyRun(src, origin + type.lb() + streamFrom, dst, dstIndex, length, true);
        } else {
            transfer(c, src, origin, fullView(dst), dstIndex, true, representation);
        }
    }

    /**
     * Unpacks stream bytes {@code [streamFrom, streamFrom + length)} into memory laid out by {@code type};
     * memory bytes outside the type's data are not touched.
     *
     * @param src            the packed bytes; absolute indexing
     * @param srcIndex       index of stream byte {@code streamFrom}
     * @param length         number of stream bytes to consume
     * @param dst            user memory
     * @param origin         byte offset in {@code dst} of the buffer address
     * @param type           the memory layout
     * @param count          number of elements
     * @param representation representation of the packed stream
     * @param streamFrom     the stream position of {@code src[srcIndex]}
     */
    public static void unpack(final ByteBuffer src, final int srcIndex, final int length, final Memory dst,
                              final long origin, final Datatype type, final long count,
                              final DataRepresentation representation, final long streamFrom) {
        final Cursor c = rangeCursor(type, count, representation, streamFrom, length);
        checkBuffer("source", src, srcIndex, length);
        if (c == null) {
            copyRun(dst, origin + type.lb() + streamFrom, src, srcIndex, length, false);
        } else {
            transfer(c, dst, origin, fullView(src), srcIndex, false, representation);
        }
    }

    /** Copies {@code length} bytes between user memory at {@code user} and the packed buffer at {@code index}. */
    private static void copyRun(final Memory memory, final long user, final ByteBuffer packed, final int index,
                                final int length, final boolean toPacked) {
        if (length == 0) {
            return;
        }
        memory.check(user, length);
        final Object userBase = memory.rawBase();
        final Object packedBase = RawCopy.AVAILABLE ? RawCopy.base(packed) : RawCopy.UNADDRESSABLE;
        if (userBase == RawCopy.UNADDRESSABLE || packedBase == RawCopy.UNADDRESSABLE) {
            if (toPacked) {
                memory.read(user, fullView(packed), index, length);
            } else {
                memory.write(user, fullView(packed), index, length);
            }
        } else if (toPacked) {
            RawCopy.copy(userBase, memory.rawOffset() + user, packedBase, RawCopy.offset(packed) + index, length);
        } else {
            RawCopy.copy(packedBase, RawCopy.offset(packed) + index, userBase, memory.rawOffset() + user, length);
        }
    }

    /**
     * Moves the cursor's runs between user memory and the packed buffer, in the direction given: raw copies
     * where both sides allow them (regular stretches checked at both ends, then copied without cursor calls),
     * safe copies otherwise, and per-element conversion for external32.
     */
    private static void transfer(final Cursor c, final Memory user, final long origin, final ByteBuffer packed,
                                 final int packedIndex, final boolean toPacked,
                                 final DataRepresentation representation) {
        int at = packedIndex;
        if (c.isTyped()) {
            final boolean external = representation == DataRepresentation.EXTERNAL32;
            while (c.next()) {
                final long u = origin + c.offset();
                user.check(u, c.length());
                at += toPacked ? External32.pack(user, u, c, packed, at, external)
                    : External32.unpack(packed, at, c, user, u, external);
            }
            return;
        }
        final Object userBase = user.rawBase();
        final Object packedBase = RawCopy.AVAILABLE ? RawCopy.base(packed) : RawCopy.UNADDRESSABLE;
        if (userBase == RawCopy.UNADDRESSABLE || packedBase == RawCopy.UNADDRESSABLE) {
            while (c.next()) {
                final long u = origin + c.offset();
                final int len = (int) c.length();
                user.check(u, len);
                if (toPacked) {
                    user.read(u, packed, at, len);
                } else {
                    user.write(u, packed, at, len);
                }
                at += len;
            }
            return;
        }
        final long userOffset = user.rawOffset();
        final long packedOffset = RawCopy.offset(packed);
        while (c.next()) {
            final long u = origin + c.offset();
            final long len = c.length();
            final long repeats = c.repeats();
            final long stride = c.repeatStride();
            user.check(u, len);
            if (repeats > 0) {
                user.check(u + repeats * stride, len);
            }
            if (toPacked) {
                RawCopy.copyRuns(userBase, userOffset + u, stride, packedBase, packedOffset + at, len, len,
                    repeats + 1);
            } else {
                RawCopy.copyRuns(packedBase, packedOffset + at, len, userBase, userOffset + u, stride, len,
                    repeats + 1);
            }
            at += (int) (len * (repeats + 1));
            c.skipRepeats(repeats);
        }
    }

    /**
     * Packs {@code count} elements into a new array.
     *
     * @param src   user memory (a primitive array, {@code byte[]}, {@code ByteBuffer} or {@link Memory})
     * @param type  the memory layout
     * @param count number of elements
     * @return the packed stream in the native representation
     */
    public static byte[] pack(final Object src, final Datatype type, final long count) {
        return pack(src, type, count, DataRepresentation.NATIVE);
    }

    /**
     * Packs {@code count} elements into a new array.
     *
     * @param src            user memory (a primitive array, {@code byte[]}, {@code ByteBuffer} or {@link Memory})
     * @param type           the memory layout
     * @param count          number of elements
     * @param representation representation of the packed stream
     * @return the packed stream
     */
    public static byte[] pack(final Object src, final Datatype type, final long count,
                              final DataRepresentation representation) {
        final long size = packedSize(type, count, representation);
        if (size > Integer.MAX_VALUE - 8) {
            throw ParioException.argument("pack: " + size + " packed bytes do not fit one array; pack by ranges");
        }
        final byte[] out = new byte[(int) size];
        final Memory m = Memory.ofObject(src);
        pack(m, m.origin(), type, count, representation, 0, ByteBuffer.wrap(out), 0, out.length);
        return out;
    }

    /**
     * Unpacks a whole packed stream.
     *
     * @param packed the native packed stream of {@code count} elements
     * @param dst    user memory (a primitive array, {@code byte[]}, {@code ByteBuffer} or {@link Memory})
     * @param type   the memory layout
     * @param count  number of elements
     */
    public static void unpack(final byte[] packed, final Object dst, final Datatype type, final long count) {
        unpack(packed, dst, type, count, DataRepresentation.NATIVE);
    }

    /**
     * Unpacks a whole packed stream.
     *
     * @param packed         the packed stream of {@code count} elements
     * @param dst            user memory
     * @param type           the memory layout
     * @param count          number of elements
     * @param representation representation of the packed stream
     */
    public static void unpack(final byte[] packed, final Object dst, final Datatype type, final long count,
                              final DataRepresentation representation) {
        final long size = packedSize(type, count, representation);
        if (packed.length < size) {
            throw new ParioException(org.pario.ErrorCategory.TRUNCATE, "unpack: " + count + " elements need "
                + size + " packed bytes, got " + packed.length);
        }
        final Memory m = Memory.ofObject(dst);
        unpack(ByteBuffer.wrap(packed), 0, (int) size, m, m.origin(), type, count, representation, 0);
    }

    /** Bytes {@link #copy} moves at a time through its buffer: small enough to stay in the cache in between. */
    private static final int COPY_CHUNK = 256 << 10;

    /**
     * Copies the data of {@code scount x stype} in {@code src} into the layout {@code rcount x rtype} in
     * {@code dst}, as a message from a rank to itself delivers it: the packed stream of the one is unpacked into
     * the other, so the two types need only agree on their bytes. When both sides are one gap-free run of
     * bytes in memory a copy can address directly (arrays, direct buffers), this is one memory copy; otherwise
     * the stream goes through one buffer of at most 256 KiB, a piece at a time.
     *
     * @param src    the source memory
     * @param stype  the source layout
     * @param scount number of source elements
     * @param dst    the destination memory
     * @param rtype  the destination layout
     * @param rcount number of destination elements: room for at least the source's bytes
     * @throws ParioException {@code TRUNCATE} when the destination layout holds fewer bytes than the source's
     */
    public static void copy(final Memory src, final Datatype stype, final long scount, final Memory dst,
                            final Datatype rtype, final long rcount) {
        final long total = packedSize(stype, scount, DataRepresentation.NATIVE);
        if (total > packedSize(rtype, rcount, DataRepresentation.NATIVE)) {
            throw new ParioException(org.pario.ErrorCategory.TRUNCATE, "copy: " + total + " bytes of " + scount
                + " x " + stype + " do not fit " + rcount + " x " + rtype);
        }
        if (total == 0) {
            return;
        }
        final Object srcBase = src.rawBase();
        final Object dstBase = dst.rawBase();
        if (stype.isContiguous() && rtype.isContiguous() && srcBase != RawCopy.UNADDRESSABLE
            && dstBase != RawCopy.UNADDRESSABLE) {
            final long from = Checks.add("memory", src.origin(), stype.lb());
            final long to = Checks.add("memory", dst.origin(), rtype.lb());
            src.check(from, total);
            dst.check(to, total);
            RawCopy.copy(srcBase, src.rawOffset() + from, dstBase, dst.rawOffset() + to, total);
            return;
        }
        final ByteBuffer piece = ByteBuffer.allocate((int) Math.min(total, COPY_CHUNK));
        for (long from = 0; from < total; from += piece.capacity()) {
            final int length = (int) Math.min(piece.capacity(), total - from);
            pack(src, src.origin(), stype, scount, DataRepresentation.NATIVE, from, piece, 0, length);
            unpack(piece, 0, length, dst, dst.origin(), rtype, rcount, DataRepresentation.NATIVE, from);
        }
    }

    /**
     * @param type           the layout
     * @param count          number of elements
     * @param representation representation of the stream
     * @return the packed size in bytes ({@code MPI_Pack_size}, {@code MPI_Pack_external_size}; exact, no slack)
     */
    public static long packedSize(final Datatype type, final long count, final DataRepresentation representation) {
        Checks.nonNegative("pack", "count", count);
        return Checks.mul("pack", count, type.size(representation));
    }

    /**
     * Checks a range of the stream and returns a cursor over it, or null when stream byte {@code p} of any count of
     * {@code type} is memory byte {@code lb + p}: then the range is one copy, without a cursor (which a small
     * message would otherwise create for its single run).
     */
    private static Cursor rangeCursor(final Datatype type, final long count, final DataRepresentation representation,
                                      final long streamFrom, final int length) {
        Checks.notNull("pack", "type", type);
        Checks.nonNegative("pack", "count", count);
        Checks.nonNegative("pack", "length", length);
        final long total = Cursor.streamSize(type, count, representation);
        final long end = Checks.add("pack", streamFrom, length);
        if (streamFrom < 0 || end > total) {
            throw ParioException.argument("pack: stream range [" + streamFrom + ", " + end + ") is outside the "
                + total + "-byte stream of " + count + " x " + type);
        }
        if (representation != DataRepresentation.EXTERNAL32 && type.isContiguous()) {
            return null;
        }
        return new Cursor(type, count, representation, false).seek(streamFrom).limit(end);
    }

    /** Absolute bulk copies check against the limit; callers' position and limit must not matter. */
    private static ByteBuffer fullView(final ByteBuffer b) {
        return b.duplicate().clear();
    }

    private static void checkBuffer(final String name, final ByteBuffer b, final int index, final int length) {
        if (index < 0 || index > b.capacity() - length) {
            throw ParioException.argument("pack: " + name + " range [" + index + ", " + ((long) index + length)
                + ") is outside a buffer of " + b.capacity() + " bytes");
        }
    }
}
