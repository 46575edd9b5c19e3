package org.pario.comm.internal.tcp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import org.pario.comm.internal.Message;
import org.pario.comm.internal.MessageAccess;
import org.pario.comm.internal.Scratch;

/**
 * Pario's wire format between ranks. Every frame starts with a magic number and a kind:
 * <pre>
 * HELLO  magic:int 1:byte rank:int tokenLength:short token:bytes     first frame of every connection
 * DATA   magic:int 2:byte context:int source:int tag:int typeLength:short type:utf8 length:long payload:bytes
 * BYE    magic:int 3:byte                                             the sender is finishing normally
 * BEAT   magic:int 4:byte                                             the sender is alive (sent when idle)
 * ABORT  magic:int 5:byte length:short reason:utf8                     the sender leaves after an error
 * RTS    magic:int 6:byte context:int source:int tag:int typeLength:short type:utf8 length:long sendId:long
 *                                                                     a message whose data waits at the sender
 * CTS    magic:int 7:byte sendId:long receiveId:long                  send that data now (receiveId -1: drop it)
 * RDATA  magic:int 8:byte receiveId:long length:long payload:bytes    the next piece of a message announced by RTS
 * CREDIT magic:int 9:byte bytes:long                                  eager bytes the receiver has consumed
 * SHM    magic:int 10:byte context:int source:int tag:int typeLength:short type:utf8 length:long sendId:long
 *        offset:long pathLength:short path:utf8    an RTS whose data also lies in a shared-memory file: at offset
 *                                                  the count of bytes packed so far (a native long on a cache line
 *                                                  of its own), the data 64 bytes after it
 * NODATA magic:int 11:byte receiveId:long length:short reason:utf8   the data of a message announced by RTS
 *                                                                     will not come: packing it failed
 * </pre>
 * All integers are big-endian. The decoder never aggregates a payload in Netty buffers: as bytes arrive it
 * unpacks them into the receive buffer that asked for them (RDATA, and DATA for a receive already posted) or
 * copies them into the message's own chunks, so a message costs its size once whatever its length.
 */
final class Frames {
    static final int MAGIC = 0x50617231;
    static final byte HELLO = 1;
    static final byte DATA = 2;
    static final byte BYE = 3;
    static final byte HEARTBEAT = 4;
    static final byte ABORT = 5;
    static final byte RTS = 6;
    static final byte CTS = 7;
    static final byte RDATA = 8;
    static final byte CREDIT = 9;
    static final byte SHM = 10;
    static final byte NODATA = 11;
    /** Longest reason sent (ABORT, NODATA), in characters (its UTF-8 form stays within {@link #MAX_SHORT_FIELD}). */
    private static final int MAX_REASON_CHARS = 300;
    /** Longest basic-type name or token accepted. */
    static final int MAX_SHORT_FIELD = 1024;

    private Frames() {
    }

    /** The first frame of a connection. */
    record Hello(int rank, byte[] token) {
    }

    /** A peer's announcement that it finishes normally. */
    record Bye() {
    }

    /** A peer's announcement that it leaves after an error, and why: its pending peers must fail. */
    record Abort(String reason) {
    }

    /**
     * A message whose data stays at the sender until the receiver asks for it; {@code shmPath}, when not null,
     * names a shared-memory file that holds the data too, from {@code shmOffset}.
     */
    record Rts(int context, int source, int tag, String type, long length, long sendId, String shmPath,
               long shmOffset) {
    }

    /** The receiver's request for a parked message's data (or, with a negative receive id, permission to drop it). */
    record Cts(long sendId, long receiveId) {
    }

    /** Eager bytes a receiver has consumed: the sender may send that many more eagerly. */
    record Credit(long bytes) {
    }

    /** Where the data of an RDATA frame goes: the posted receive buffer that asked for it. */
    interface Landing {
        /** Takes {@code n} bytes from the buffer (at its reader index) into the receive buffer. */
        void accept(ByteBuf in, int n);

        /**
         * Where the socket may put the next {@code left} bytes of this data itself: an empty buffer over exactly
         * the receive memory they belong in, which {@link #accept} then recognises and does not copy.
         *
         * @return the buffer, or null when the bytes must be copied (the receive memory is not one run of a direct
         *     buffer)
         */
        default ByteBuf space(final long left) {
            return null;
        }

        /**
         * Where the socket may put the next bytes of this data itself when the receive memory is one run of a Java
         * array ({@link ArraySockets}): the array and the byte of it the next byte belongs in; the reader then says
         * how many it put there with {@link #landedInPlace}.
         *
         * @return the place, or null when the bytes must be copied
         */
        default Gate.ArrayRun arraySpace() {
            return null;
        }

        /** {@code n} more bytes of this data were read straight into {@link #arraySpace()}. */
        default void landedInPlace(final int n) {
            throw new IllegalStateException("this landing offers no array space");
        }
    }

    /** Finds where arriving data goes: the receive that asked for RDATA, or one already posted for DATA. */
    interface Landings {
        /**
         * @return the landing of {@code receiveId} expecting exactly {@code length} bytes, or null if there is none
         *     (the decoder refuses data nobody asked for)
         */
        Landing open(long receiveId, long length);

        /** The data {@code receiveId} asked for will not come, for {@code reason}. */
        default void refused(final long receiveId, final String reason) {
        }

        /**
         * An eager message's envelope: where its {@code length} bytes go when a posted receive takes it now.
         *
         * @return the landing, or null to hold the message whole and deliver it once complete
         */
        default Landing expect(final int context, final int source, final int tag, final long length,
                               final String type) {
            return null;
        }

        /** @return where the arrays of a message held whole come from and go back to, or null for new ones */
        default Scratch arrays() {
            return null;
        }
    }

    /** A peer's sign of life on an idle connection. */
    record Heartbeat() {
    }

    static ByteBuf heartbeat(final ByteBufAllocator alloc) {
        return alloc.buffer(5).writeInt(MAGIC).writeByte(HEARTBEAT);
    }

    static ByteBuf hello(final ByteBufAllocator alloc, final int rank, final byte[] token) {
        final ByteBuf b = alloc.buffer(11 + token.length);
        b.writeInt(MAGIC).writeByte(HELLO).writeInt(rank).writeShort(token.length).writeBytes(token);
        return b;
    }

    static ByteBuf bye(final ByteBufAllocator alloc) {
        return alloc.buffer(5).writeInt(MAGIC).writeByte(BYE);
    }

    /** A reason's UTF-8 bytes, cut to {@link #MAX_REASON_CHARS} characters. */
    private static byte[] reason(final String reason) {
        final String text = reason.length() > MAX_REASON_CHARS ? reason.substring(0, MAX_REASON_CHARS) + "..." : reason;
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static ByteBuf abort(final ByteBufAllocator alloc, final String reason) {
        final byte[] utf8 = reason(reason);
        return alloc.buffer(7 + utf8.length).writeInt(MAGIC).writeByte(ABORT).writeShort(utf8.length).writeBytes(utf8);
    }

    static ByteBuf rts(final ByteBufAllocator alloc, final int context, final int source, final int tag,
                       final String type, final long length, final long sendId) {
        return rts(alloc, context, source, tag, type, length, sendId, null, 0);
    }

    /** An RTS, or with a shared-memory path a SHM frame. */
    static ByteBuf rts(final ByteBufAllocator alloc, final int context, final int source, final int tag,
                       final String type, final long length, final long sendId, final String shmPath,
                       final long shmOffset) {
        final int nameLength = nameLength(type);
        final byte[] path = shmPath == null ? null : shmPath.getBytes(StandardCharsets.UTF_8);
        final ByteBuf b = alloc.buffer(45 + nameLength + (path == null ? 0 : path.length));
        b.writeInt(MAGIC).writeByte(path == null ? RTS : SHM).writeInt(context).writeInt(source).writeInt(tag)
            .writeShort(nameLength);
        writeName(b, type);
        b.writeLong(length).writeLong(sendId);
        if (path != null) {
            b.writeLong(shmOffset).writeShort(path.length).writeBytes(path);
        }
        return b;
    }

    static ByteBuf cts(final ByteBufAllocator alloc, final long sendId, final long receiveId) {
        return alloc.buffer(21).writeInt(MAGIC).writeByte(CTS).writeLong(sendId).writeLong(receiveId);
    }

    static ByteBuf noData(final ByteBufAllocator alloc, final long receiveId, final String reason) {
        final byte[] utf8 = reason(reason);
        return alloc.buffer(15 + utf8.length).writeInt(MAGIC).writeByte(NODATA).writeLong(receiveId)
            .writeShort(utf8.length).writeBytes(utf8);
    }

    static ByteBuf credit(final ByteBufAllocator alloc, final long bytes) {
        return alloc.buffer(13).writeInt(MAGIC).writeByte(CREDIT).writeLong(bytes);
    }

    /** Bytes of an RDATA frame before its payload. */
    static final int RDATA_HEADER = 21;

    /** The header of an RDATA frame; the payload follows as its own buffer. */
    static ByteBuf rdataHeader(final ByteBufAllocator alloc, final long receiveId, final long length) {
        return alloc.buffer(RDATA_HEADER).writeInt(MAGIC).writeByte(RDATA).writeLong(receiveId).writeLong(length);
    }

    /**
     * Makes an RDATA frame of a buffer whose readable bytes are the payload and which has at least {@link
     * #RDATA_HEADER} bytes before its reader index: the header is written there and the frame is that buffer.
     */
    static ByteBuf rdataInFront(final ByteBuf payload, final long receiveId) {
        final int at = payload.readerIndex() - RDATA_HEADER;
        final long length = payload.readableBytes();
        payload.setInt(at, MAGIC).setByte(at + 4, RDATA).setLong(at + 5, receiveId).setLong(at + 13, length);
        return payload.readerIndex(at);
    }

    /**
     * The frame of a message packed straight from memory into one buffer of the channel's allocator (direct and
     * pooled): no intermediate heap copy, and nothing for the socket layer to copy again before writing.
     */
    static ByteBuf dataFrom(final java.util.function.IntFunction<ByteBuf> directBuffer, final int context,
                            final int source, final int tag, final org.pario.datatypes.Memory memory,
                            final org.pario.datatypes.Datatype type, final long count, final int bytes) {
        final ByteBuf b = dataHeaderFor(directBuffer, context, source, tag, type, bytes);
        try {
            final int header = b.writerIndex();
            org.pario.datatypes.Packer.pack(memory, memory.origin(), type, count,
                org.pario.datatypes.DataRepresentation.NATIVE, 0, b.nioBuffer(header, bytes), 0, bytes);
            b.writerIndex(header + bytes);
            return b;
        } catch (RuntimeException e) {
            b.release();
            throw e;
        }
    }

    /**
     * A buffer for a whole DATA frame of {@code bytes} of data with only its header written: the data is to be
     * packed after it (up to the writer index is the frame so far).
     */
    static ByteBuf dataHeaderFor(final java.util.function.IntFunction<ByteBuf> directBuffer, final int context,
                                 final int source, final int tag, final org.pario.datatypes.Datatype type,
                                 final int bytes) {
        final String basic = MessageAccess.basicName(type);
        final ByteBuf b = directBuffer.apply(dataHeaderBytes(basic) + bytes);
        writeDataHeader(b, context, source, tag, basic, bytes);
        return b;
    }

    /**
     * The frame of an eager message whose data is {@code region} of the caller's direct memory: a header of its own
     * and the region itself, not copied (it must stay unchanged until the frame is written).
     */
    static ByteBuf dataInPlace(final ByteBufAllocator alloc, final int context, final int source, final int tag,
                               final org.pario.datatypes.Datatype type, final ByteBuffer region) {
        final String basic = MessageAccess.basicName(type);
        final ByteBuf header = alloc.directBuffer(dataHeaderBytes(basic));
        writeDataHeader(header, context, source, tag, basic, region.remaining());
        return Unpooled.wrappedUnmodifiableBuffer(header, Unpooled.wrappedBuffer(region));
    }

    /** @return the bytes of a DATA frame's header for a message of basic type {@code basic} */
    private static int dataHeaderBytes(final String basic) {
        return 27 + nameLength(basic);
    }

    /** Writes a DATA frame's header: its data, {@code bytes} of them, follows it. */
    private static void writeDataHeader(final ByteBuf b, final int context, final int source, final int tag,
                                        final String basic, final long bytes) {
        b.writeInt(MAGIC).writeByte(DATA).writeInt(context).writeInt(source).writeInt(tag)
            .writeShort(nameLength(basic));
        writeName(b, basic);
        b.writeLong(bytes);
    }

    /** The frame of a message: its header, then its chunks without copying them. */
    static ByteBuf data(final ByteBufAllocator alloc, final Message m) {
        final String type = MessageAccess.basicType(m);
        final ByteBuf header = alloc.buffer(dataHeaderBytes(type));
        writeDataHeader(header, MessageAccess.context(m), MessageAccess.source(m), MessageAccess.tag(m), type,
            MessageAccess.bytes(m));
        final ByteBuffer[] chunks = MessageAccess.chunks(m);
        final ByteBuf[] parts = new ByteBuf[chunks.length + 1];
        parts[0] = header;
        for (int i = 0; i < chunks.length; i++) {
            parts[i + 1] = Unpooled.wrappedBuffer(chunks[i].duplicate().clear());
        }
        return Unpooled.wrappedUnmodifiableBuffer(parts);
    }

    /** @return the bytes of a basic type's name on the wire (UTF-8), 0 for none */
    private static int nameLength(final String name) {
        return name == null ? 0 : io.netty.buffer.ByteBufUtil.utf8Bytes(name);
    }

    /** Writes a basic type's name as UTF-8 straight into the frame, without an array per message. */
    private static void writeName(final ByteBuf b, final String name) {
        if (name != null) {
            b.writeCharSequence(name, StandardCharsets.UTF_8);
        }
    }

    /**
     * The basic type names a connection has carried, so that reading one again takes no new string: a connection
     * carries few, mostly the same one message after message.
     */
    static final class Names {
        private static final int SIZE = 8;
        private final byte[][] bytes = new byte[SIZE][];
        private final String[] names = new String[SIZE];
        private int next;

        /** Reads a name of {@code length} bytes from {@code in}. */
        String read(final ByteBuf in, final int length) {
            final int at = in.readerIndex();
            for (int i = 0; i < SIZE; i++) {
                final byte[] b = bytes[i];
                if (b != null && b.length == length && sameBytes(in, at, b)) {
                    in.skipBytes(length);
                    return names[i];
                }
            }
            final byte[] read = new byte[length];
            in.readBytes(read);
            // the constant of the receiver's own type, so that comparing the two usually finds the same object
            final String name = new String(read, StandardCharsets.UTF_8).intern();
            bytes[next] = read;
            names[next] = name;
            next = (next + 1) % SIZE;
            return name;
        }

        private static boolean sameBytes(final ByteBuf in, final int at, final byte[] b) {
            for (int i = 0; i < b.length; i++) {
                if (in.getByte(at + i) != b[i]) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Decodes frames; payloads stream into a message's chunks. Malformed or oversized input closes the channel. */
    static final class Decoder extends ByteToMessageDecoder {
        private final long maxMessage;
        private final Landings landings;
        private final Names names = new Names();
        private MessageAccess.Builder pending;
        private Landing landing;
        private long landingLeft;

        /** Data streams into receives on this many of the rank's connections now (see {@link #landingSpace}). */
        private final AtomicInteger streams;
        /** Whether this connection counts in {@link #streams}. */
        private boolean streaming;
        /** On how many connections data must stream into receives at once before it is read in place. */
        private final int inPlaceMinStreams;

        /** A decoder that refuses RDATA frames (no receive asks for data). */
        Decoder(final long maxMessage) {
            this(maxMessage, (id, length) -> null);
        }

        Decoder(final long maxMessage, final Landings landings) {
            this(maxMessage, landings, new AtomicInteger());
        }

        /** A decoder whose data goes in place whenever it streams into a receive that offers the space. */
        Decoder(final long maxMessage, final Landings landings, final AtomicInteger streams) {
            this(maxMessage, landings, streams, 1);
        }

        /**
         * @param maxMessage        the largest message accepted
         * @param landings          where arriving data goes
         * @param streams           shared by all of a rank's inbound connections: on how many data streams into a
         *                          receive
         * @param inPlaceMinStreams on how many connections data must stream into receives at once before the socket
         *                          reads it in place (see {@link #landingSpace})
         */
        Decoder(final long maxMessage, final Landings landings, final AtomicInteger streams,
                final int inPlaceMinStreams) {
            this.maxMessage = maxMessage;
            this.landings = landings;
            this.streams = streams;
            this.inPlaceMinStreams = Math.max(1, inPlaceMinStreams);
        }

        /** Data now goes to {@code to} for {@code length} bytes, or (null) to no receive. */
        private void land(final Landing to, final long length) {
            final boolean now = to != null && length > 0;
            if (now != streaming) {
                streaming = now;
                streams.addAndGet(now ? 1 : -1);
            }
            landing = to;
            landingLeft = length;
        }

        @Override
        protected void handlerRemoved0(final ChannelHandlerContext ctx) {
            // a connection closed in the middle of a message no longer streams
            land(null, 0);
        }

        /**
         * Where the socket may read the next bytes itself, with no copy: the rest of the data being received, when
         * nothing else waits to be decoded and its receive memory allows it ({@link Landing#space}).
         *
         * @return an empty buffer over receive memory, or null to read into a buffer of the connection's own
         */
        ByteBuf landingSpace() {
            // in place, the receiving core copies each byte once instead of twice. Under BBR congestion control a
            // lone stream was faster through the connection's small buffers: it drained the socket in smaller,
            // steadier steps, and BBR paced the sender less; inPlaceMinStreams 2 keeps that
            return landing == null || streams.get() < inPlaceMinStreams || internalBuffer().isReadable() ? null
                : landing.space(landingLeft);
        }

        /**
         * Reads the rest of the data being received straight from the socket into its receive array, as far as the
         * socket has it, when nothing else waits to be decoded and the receive memory is one run of a Java array
         * (see {@link #landingSpace} for when data goes in place). Called on the event loop before the socket is
         * read the usual way, which then finds what follows the data, or nothing.
         *
         * @param socket the connection's file descriptor
         * @return the bytes read in place
         */
        long readIntoArray(final int socket) {
            long total = 0;
            while (landing != null && streams.get() >= inPlaceMinStreams && !internalBuffer().isReadable()) {
                final Gate.ArrayRun space = landing.arraySpace();
                if (space == null) {
                    break;
                }
                final long wanted = landingLeft;
                final long n = ArraySockets.read(socket, space.array(), space.offset(), wanted);
                if (n <= 0) {
                    // nothing there, the end, or an error: the usual read finds which
                    break;
                }
                total += n;
                final Landing to = landing;
                landingLeft -= n;
                if (landingLeft == 0) {
                    land(null, 0);
                }
                to.landedInPlace((int) n);
                if (n < Math.min(wanted, ArraySockets.MAX_CALL_BYTES)) {
                    // the socket had no more: asking again would only hear so, one system call more a wake-up
                    break;
                }
            }
            return total;
        }

        /** The envelope of DATA and RTS frames. */
        private record Envelope(int context, int source, int tag, String type, long length) {
        }

        /**
         * Reads an envelope (context, source, tag, type name, length) when it and {@code trailing} more bytes have
         * arrived; otherwise returns null, and the caller rewinds.
         */
        private Envelope envelope(final ByteBuf in, final int trailing) {
            if (in.readableBytes() < 14) {
                return null;
            }
            final int context = in.readInt();
            final int source = in.readInt();
            final int tag = in.readInt();
            final int nameLength = in.readUnsignedShort();
            if (nameLength > MAX_SHORT_FIELD) {
                throw new TooLongFrameException("type name of " + nameLength + " bytes");
            }
            if (in.readableBytes() < nameLength + 8 + trailing) {
                return null;
            }
            final String name = nameLength == 0 ? null : names.read(in, nameLength);
            final long length = in.readLong();
            if (length < 0 || length > maxMessage) {
                throw new TooLongFrameException("message of " + length + " bytes (limit " + maxMessage + ")");
            }
            return new Envelope(context, source, tag, name, length);
        }

        /**
         * Reads the length of a field of at most {@link #MAX_SHORT_FIELD} bytes.
         *
         * @return the length when that many bytes have arrived after it, else -1 (the caller rewinds)
         */
        private static int shortField(final ByteBuf in, final String what) {
            final int length = in.readUnsignedShort();
            if (length > MAX_SHORT_FIELD) {
                throw new TooLongFrameException(what + " of " + length + " bytes");
            }
            return in.readableBytes() < length ? -1 : length;
        }

        @Override
        protected void decode(final ChannelHandlerContext ctx, final ByteBuf in, final List<Object> out) {
            while (true) {
                if (landing != null) {
                    final int n = (int) Math.min(in.readableBytes(), landingLeft);
                    if (n > 0) {
                        landing.accept(in, n);
                        landingLeft -= n;
                    }
                    if (landingLeft > 0) {
                        return;
                    }
                    land(null, 0);
                }
                if (pending != null) {
                    final int n = (int) Math.min(in.readableBytes(), pending.remaining());
                    if (n > 0) {
                        pending.append(in, n);
                    }
                    if (pending.remaining() > 0) {
                        return;
                    }
                    out.add(pending.build());
                    pending = null;
                }
                if (in.readableBytes() < 5) {
                    return;
                }
                in.markReaderIndex();
                if (in.readInt() != MAGIC) {
                    throw new CorruptedFrameException("not a Pario frame (bad magic number)");
                }
                final byte kind = in.readByte();
                switch (kind) {
                    case HELLO -> {
                        if (in.readableBytes() < 6) {
                            in.resetReaderIndex();
                            return;
                        }
                        final int rank = in.readInt();
                        final int length = shortField(in, "token");
                        if (length < 0) {
                            in.resetReaderIndex();
                            return;
                        }
                        final byte[] token = new byte[length];
                        in.readBytes(token);
                        out.add(new Hello(rank, token));
                    }
                    case BYE -> out.add(new Bye());
                    case ABORT -> {
                        if (in.readableBytes() < 2) {
                            in.resetReaderIndex();
                            return;
                        }
                        final int length = shortField(in, "abort reason");
                        if (length < 0) {
                            in.resetReaderIndex();
                            return;
                        }
                        out.add(new Abort(in.readCharSequence(length, StandardCharsets.UTF_8).toString()));
                    }
                    case HEARTBEAT -> out.add(new Heartbeat());
                    case DATA -> {
                        final Envelope e = envelope(in, 0);
                        if (e == null) {
                            in.resetReaderIndex();
                            return;
                        }
                        if (!out.isEmpty()) {
                            // messages decoded before this one must reach their receives first: a receive
                            // claimed now could be the one an earlier message from this peer is due to match
                            in.resetReaderIndex();
                            return;
                        }
                        final Landing to = landings.expect(e.context, e.source, e.tag, e.length, e.type);
                        if (to != null) {
                            land(to, e.length);
                        } else {
                            pending = MessageAccess.builder(e.context, e.source, e.tag, e.length, e.type,
                                landings.arrays());
                        }
                    }
                    case RTS -> {
                        final Envelope e = envelope(in, 8);
                        if (e == null) {
                            in.resetReaderIndex();
                            return;
                        }
                        out.add(new Rts(e.context, e.source, e.tag, e.type, e.length, in.readLong(), null, 0));
                    }
                    case SHM -> {
                        final Envelope e = envelope(in, 18);
                        if (e == null) {
                            in.resetReaderIndex();
                            return;
                        }
                        final long sendId = in.readLong();
                        final long offset = in.readLong();
                        final int length = shortField(in, "shared-memory path");
                        if (length < 0) {
                            in.resetReaderIndex();
                            return;
                        }
                        out.add(new Rts(e.context, e.source, e.tag, e.type, e.length, sendId,
                            in.readCharSequence(length, StandardCharsets.UTF_8).toString(), offset));
                    }
                    case CTS -> {
                        if (in.readableBytes() < 16) {
                            in.resetReaderIndex();
                            return;
                        }
                        out.add(new Cts(in.readLong(), in.readLong()));
                    }
                    case CREDIT -> {
                        if (in.readableBytes() < 8) {
                            in.resetReaderIndex();
                            return;
                        }
                        final long bytes = in.readLong();
                        if (bytes < 0) {
                            throw new CorruptedFrameException("negative credit " + bytes);
                        }
                        out.add(new Credit(bytes));
                    }
                    case NODATA -> {
                        if (in.readableBytes() < 10) {
                            in.resetReaderIndex();
                            return;
                        }
                        final long id = in.readLong();
                        final int length = shortField(in, "reason");
                        if (length < 0) {
                            in.resetReaderIndex();
                            return;
                        }
                        landings.refused(id, in.readCharSequence(length, StandardCharsets.UTF_8).toString());
                    }
                    case RDATA -> {
                        if (in.readableBytes() < 16) {
                            in.resetReaderIndex();
                            return;
                        }
                        final long id = in.readLong();
                        final long length = in.readLong();
                        final Landing to = length < 0 ? null : landings.open(id, length);
                        if (to == null) {
                            throw new CorruptedFrameException("data of " + length + " bytes for receive " + id
                                + ", which asked for no such data");
                        }
                        land(to, length);
                    }
                    default -> throw new CorruptedFrameException("unknown frame kind " + kind);
                }
            }
        }
    }
}
