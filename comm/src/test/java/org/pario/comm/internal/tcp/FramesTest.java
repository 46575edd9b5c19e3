package org.pario.comm.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.Test;
import org.pario.comm.internal.Message;
import org.pario.comm.internal.MessageAccess;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/** The wire format: round trips byte by byte, and what the decoder refuses. */
class FramesTest {
    @Test
    void dataFramesRoundTripEvenWhenBytesArriveOneAtATime() {
        final int[] values = new int[1000];
        for (int i = 0; i < values.length; i++) {
            values[i] = i * 31;
        }
        final Message m = MessageAccess.pack(5, 2, 77, Memory.of(values), Datatype.INT, values.length);
        final ByteBuf wire = Frames.data(ByteBufAllocator.DEFAULT, m);
        final EmbeddedChannel ch = new EmbeddedChannel(new Frames.Decoder(1 << 20));
        while (wire.isReadable()) {
            ch.writeInbound(wire.readRetainedSlice(Math.min(wire.readableBytes(), 7)));
        }
        wire.release();
        final Message got = ch.readInbound();
        assertEquals(77, MessageAccess.tag(got));
        assertEquals(2, MessageAccess.source(got));
        assertEquals(5, MessageAccess.context(got));
        assertEquals("int", MessageAccess.basicType(got));
        final int[] back = new int[values.length];
        MessageAccess.unpack(got, Memory.of(back), Datatype.INT, back.length);
        assertArrayEquals(values, back);
    }

    /**
     * Basic type names: each arrives intact whatever else the connection carried before (more names than it keeps,
     * one not ASCII), and a name it has carried before arrives as the very string the receiver's type has, so a
     * check compares two references instead of two strings.
     */
    @Test
    void typeNamesArriveIntactAndKnownOnesAsTheReceiversOwnString() {
        final String[] names = {"int", "double", "float", "long", "short", "char", "signed_char", "unsigned",
            "long_long", "unsigned_long", "int", "double", "typ\u00e9", "int", "wchar", "typ\u00e9"};
        final EmbeddedChannel ch = new EmbeddedChannel(new Frames.Decoder(1 << 20));
        for (final String name : names) {
            ch.writeInbound(Frames.rts(ByteBufAllocator.DEFAULT, 1, 2, 3, name, 8, 9));
            assertEquals(new Frames.Rts(1, 2, 3, name, 8, 9, null, 0), ch.readInbound());
        }
        for (final Datatype t : new Datatype[] {Datatype.INT, Datatype.DOUBLE, Datatype.LONG}) {
            ch.writeInbound(Frames.rts(ByteBufAllocator.DEFAULT, 1, 2, 3, t.homogeneousBasicName(), 8, 9));
            final Frames.Rts got = ch.readInbound();
            assertSame(t.homogeneousBasicName(), got.type());
        }
        ch.writeInbound(Frames.rts(ByteBufAllocator.DEFAULT, 1, 2, 3, null, 8, 9));
        assertEquals(new Frames.Rts(1, 2, 3, null, 8, 9, null, 0), ch.readInbound());
        // and in a data frame, packed straight from memory
        final int[] one = {7};
        ch.writeInbound(Frames.dataFrom(ByteBufAllocator.DEFAULT::directBuffer, 1, 2, 3, Memory.of(one), Datatype.INT,
            1, 4));
        final Message data = ch.readInbound();
        assertSame(Datatype.INT.homogeneousBasicName(), MessageAccess.basicType(data));
        final int[] back = new int[1];
        MessageAccess.unpack(data, Memory.of(back), Datatype.INT, 1);
        assertArrayEquals(one, back);
    }

    @Test
    void oversizedMessagesAndBadMagicAreRefused() {
        final ByteBuf big = Unpooled.buffer();
        big.writeInt(Frames.MAGIC).writeByte(Frames.DATA).writeInt(0).writeInt(0).writeInt(0).writeShort(0)
            .writeLong(1L << 40);
        final EmbeddedChannel ch = new EmbeddedChannel(new Frames.Decoder(1 << 20));
        assertThrows(DecoderException.class, () -> ch.writeInbound(big));
        final EmbeddedChannel bad = new EmbeddedChannel(new Frames.Decoder(1 << 20));
        assertThrows(DecoderException.class, () -> bad.writeInbound(Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5})));
        final ByteBuf negative = Unpooled.buffer();
        negative.writeInt(Frames.MAGIC).writeByte(Frames.DATA).writeInt(0).writeInt(0).writeInt(0).writeShort(0)
            .writeLong(-5);
        assertThrows(DecoderException.class, () -> new EmbeddedChannel(new Frames.Decoder(1 << 20))
            .writeInbound(negative));
    }

    /**
     * RTS, CTS, CREDIT and NODATA round trip; RDATA streams into the landing that asked for it, and only there.
     */
    @Test
    void rendezvousFramesRoundTripAndDataGoesOnlyWhereItWasAskedFor() {
        final java.io.ByteArrayOutputStream landed = new java.io.ByteArrayOutputStream();
        final Frames.Landing sink = (in, n) -> {
            final byte[] b = new byte[n];
            in.readBytes(b);
            landed.write(b, 0, n);
        };
        final java.util.List<String> refused = new java.util.ArrayList<>();
        final EmbeddedChannel ch = new EmbeddedChannel(new Frames.Decoder(1 << 20, new Frames.Landings() {
            @Override
            public Frames.Landing open(final long id, final long length) {
                return id == 42 && length == 5 ? sink : null;
            }

            @Override
            public void refused(final long receiveId, final String reason) {
                refused.add(receiveId + ": " + reason);
            }
        }));
        final ByteBuf wire = Unpooled.buffer();
        append(wire, Frames.rts(ByteBufAllocator.DEFAULT, 1, 2, 3, "int", 400, 77));
        append(wire, Frames.rts(ByteBufAllocator.DEFAULT, 4, 5, 6, null, 1 << 19, 78,
            "/dev/shm/pario-12-3/to-1", 4096));
        append(wire, Frames.cts(ByteBufAllocator.DEFAULT, 77, 42));
        append(wire, Frames.credit(ByteBufAllocator.DEFAULT, 4096));
        append(wire, Frames.rdataHeader(ByteBufAllocator.DEFAULT, 42, 5));
        wire.writeBytes(new byte[] {1, 2, 3, 4, 5});
        append(wire, Frames.noData(ByteBufAllocator.DEFAULT, 43, "packing failed: näive"));
        append(wire, Frames.bye(ByteBufAllocator.DEFAULT));
        while (wire.isReadable()) {
            ch.writeInbound(wire.readRetainedSlice(1));
        }
        wire.release();
        assertEquals(new Frames.Rts(1, 2, 3, "int", 400, 77, null, 0), ch.readInbound());
        assertEquals(new Frames.Rts(4, 5, 6, null, 1 << 19, 78, "/dev/shm/pario-12-3/to-1", 4096), ch.readInbound());
        assertEquals(new Frames.Cts(77, 42), ch.readInbound());
        assertEquals(new Frames.Credit(4096), ch.readInbound());
        assertEquals(new Frames.Bye(), ch.readInbound());
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, landed.toByteArray());
        assertEquals(java.util.List.of("43: packing failed: näive"), refused);
        final EmbeddedChannel unasked = new EmbeddedChannel(new Frames.Decoder(1 << 20));
        assertThrows(DecoderException.class, () -> unasked.writeInbound(
            Frames.rdataHeader(ByteBufAllocator.DEFAULT, 42, 5)));
    }

    /**
     * By default the socket reads a message's data straight into its receive as soon as it streams there: only the
     * rest of that message's bytes, and only with nothing else waiting to be decoded.
     */
    @Test
    void aLoneStreamGoesInPlaceByDefault() {
        final java.util.concurrent.atomic.AtomicInteger streams = new java.util.concurrent.atomic.AtomicInteger();
        final Frames.Decoder decoder = new Frames.Decoder(1 << 20, (id, length) -> new Frames.Landing() {
            @Override
            public void accept(final ByteBuf in, final int n) {
                in.skipBytes(n);
            }

            @Override
            public ByteBuf space(final long left) {
                return receiveMemory(left);
            }
        }, streams);
        final EmbeddedChannel a = new EmbeddedChannel(decoder);
        assertEquals(null, decoder.landingSpace(), "no message streams yet");
        a.writeInbound(Frames.rdataHeader(ByteBufAllocator.DEFAULT, 1, 100), Unpooled.wrappedBuffer(new byte[30]));
        assertEquals(1, streams.get());
        assertEquals(70, decoder.landingSpace().writableBytes(), "the rest of the message");
        // the message completes with a frame's first bytes behind it: nothing goes in place
        a.writeInbound(Unpooled.wrappedBuffer(new byte[70]), Unpooled.wrappedBuffer(new byte[] {0x50, 0x61}));
        assertEquals(0, streams.get());
        assertEquals(null, decoder.landingSpace());
        a.close();
    }

    /**
     * With {@code inPlaceMinStreams} 2 the socket may read a message's data straight into its receive only while
     * data streams into receives on at least two of the rank's connections at once, only the rest of that message's
     * bytes, and only with nothing else waiting to be decoded; a connection stops counting when its message is
     * complete or it closes.
     */
    @Test
    void dataGoesInPlaceOnlyWhileSeveralConnectionsStreamIntoReceivesWhenAsked() {
        final java.util.concurrent.atomic.AtomicInteger streams = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.List<Long> asked = new java.util.ArrayList<>();
        final java.util.function.Supplier<Frames.Landings> landings = () -> (id, length) -> new Frames.Landing() {
            @Override
            public void accept(final ByteBuf in, final int n) {
                in.skipBytes(n);
            }

            @Override
            public ByteBuf space(final long left) {
                asked.add(left);
                return receiveMemory(left);
            }
        };
        final Frames.Decoder first = new Frames.Decoder(1 << 20, landings.get(), streams, 2);
        final Frames.Decoder second = new Frames.Decoder(1 << 20, landings.get(), streams, 2);
        final EmbeddedChannel a = new EmbeddedChannel(first);
        final EmbeddedChannel b = new EmbeddedChannel(second);
        assertEquals(null, first.landingSpace());
        a.writeInbound(Frames.rdataHeader(ByteBufAllocator.DEFAULT, 1, 100), Unpooled.wrappedBuffer(new byte[30]));
        assertEquals(1, streams.get());
        assertEquals(null, first.landingSpace(), "a lone stream goes through the connection's buffers");
        b.writeInbound(Frames.rdataHeader(ByteBufAllocator.DEFAULT, 2, 50), Unpooled.wrappedBuffer(new byte[10]));
        assertEquals(2, streams.get());
        assertEquals(70, first.landingSpace().writableBytes(), "the rest of the first message");
        assertEquals(40, second.landingSpace().writableBytes());
        assertEquals(java.util.List.of(70L, 40L), asked);
        // the second message completes, and a frame's first bytes wait behind it: nothing goes in place
        b.writeInbound(Unpooled.wrappedBuffer(new byte[40]), Unpooled.wrappedBuffer(new byte[] {0x50, 0x61}));
        assertEquals(1, streams.get());
        assertEquals(null, second.landingSpace());
        assertEquals(null, first.landingSpace());
        b.writeInbound(Frames.rdataHeader(ByteBufAllocator.DEFAULT, 3, 0).skipBytes(2));
        assertEquals(1, streams.get(), "an empty message does not stream");
        b.writeInbound(Frames.rdataHeader(ByteBufAllocator.DEFAULT, 4, 8));
        assertEquals(2, streams.get());
        b.close();
        assertEquals(1, streams.get(), "a closed connection no longer streams");
        a.writeInbound(Unpooled.wrappedBuffer(new byte[70]));
        assertEquals(0, streams.get());
        a.close();
        assertEquals(0, streams.get());
    }

    /**
     * A DATA frame may land in a posted receive, but only once every frame before it has reached the handler
     * after the decoder: otherwise a later message could take the receive an earlier one is due to match.
     */
    @Test
    void eagerDataLandsOnlyAfterEveryEarlierFrameWasHandedOn() {
        final java.util.List<String> events = new java.util.ArrayList<>();
        final java.io.ByteArrayOutputStream landed = new java.io.ByteArrayOutputStream();
        final Frames.Landings landings = new Frames.Landings() {
            @Override
            public Frames.Landing open(final long receiveId, final long length) {
                return null;
            }

            @Override
            public Frames.Landing expect(final int context, final int source, final int tag, final long length,
                                         final String type) {
                events.add("expect tag " + tag);
                if (tag != 2) {
                    return null;
                }
                return (in, n) -> {
                    final byte[] b = new byte[n];
                    in.readBytes(b);
                    landed.write(b, 0, n);
                };
            }
        };
        final EmbeddedChannel ch = new EmbeddedChannel(new Frames.Decoder(1 << 20, landings),
            new io.netty.channel.ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(final io.netty.channel.ChannelHandlerContext ctx, final Object msg) {
                    events.add(msg instanceof Message m ? "message tag " + MessageAccess.tag(m) : "rts");
                }
            });
        final ByteBuf wire = Unpooled.buffer();
        final int[] one = {7, 8};
        append(wire, Frames.data(ByteBufAllocator.DEFAULT,
            MessageAccess.pack(0, 0, 1, Memory.of(one), Datatype.INT, 2)));
        append(wire, Frames.rts(ByteBufAllocator.DEFAULT, 0, 0, 3, "int", 400, 77));
        final int[] two = {9, 10, 11};
        append(wire, Frames.dataFrom(ByteBufAllocator.DEFAULT::directBuffer, 0, 0, 2, Memory.of(two), Datatype.INT,
            3, 12));
        ch.writeInbound(wire);
        assertEquals(java.util.List.of("expect tag 1", "message tag 1", "rts", "expect tag 2"), events);
        final java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(landed.toByteArray()).order(java.nio.ByteOrder.nativeOrder());
        assertArrayEquals(new int[] {9, 10, 11}, new int[] {b.getInt(), b.getInt(), b.getInt()});
    }

    /** Appends a frame to a wire buffer and releases the frame, as a channel's write would. */
    private static void append(final ByteBuf wire, final ByteBuf frame) {
        try {
            wire.writeBytes(frame);
        } finally {
            frame.release();
        }
    }

    /** An empty buffer over receive memory, as {@link Unpacking#space} gives: a view the decoder never owns. */
    private static ByteBuf receiveMemory(final long left) {
        return Unpooled.wrappedBuffer(java.nio.ByteBuffer.allocateDirect((int) left)).clear();
    }
}
