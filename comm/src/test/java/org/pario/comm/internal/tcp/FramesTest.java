package org.pario.comm.internal.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
