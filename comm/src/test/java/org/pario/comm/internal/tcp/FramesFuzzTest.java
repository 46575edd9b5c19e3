package org.pario.comm.internal.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.Test;
import org.pario.comm.internal.MessageAccess;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Mutations;

/**
 * Hostile bytes on a connection: whatever arrives, in whatever pieces, the decoder yields frames or refuses the
 * stream with a decoder error (which closes the connection); nothing else escapes, and no frame claims more than
 * the configured maximum.
 */
class FramesFuzzTest {
    private static byte[] bytes(final ByteBuf b) {
        final byte[] out = ByteBufUtil.getBytes(b);
        b.release();
        return out;
    }

    @Test
    void mutatedStreamsDecodeOrAreRefused() {
        final int[] values = {1, 2, 3, 4, 5, 6, 7, 8};
        final byte[] data = bytes(Frames.data(ByteBufAllocator.DEFAULT, MessageAccess.pack(3, 1, 9, Memory.of(values),
            Datatype.INT, values.length)));
        final byte[] hello = bytes(Frames.hello(ByteBufAllocator.DEFAULT, 2, "token-abc".getBytes()));
        final byte[] bye = bytes(Frames.bye(ByteBufAllocator.DEFAULT));
        final byte[] two = new byte[data.length + hello.length];
        System.arraycopy(hello, 0, two, 0, hello.length);
        System.arraycopy(data, 0, two, hello.length, data.length);
        final byte[] rts = bytes(Frames.rts(ByteBufAllocator.DEFAULT, 3, 1, 9, "double", 1 << 20, 12));
        final byte[] cts = bytes(Frames.cts(ByteBufAllocator.DEFAULT, 12, 7));
        final byte[] credit = bytes(Frames.credit(ByteBufAllocator.DEFAULT, 65536));
        final byte[] abort = bytes(Frames.abort(ByteBufAllocator.DEFAULT, "disk on fire"));
        final Mutations m = new Mutations(7, data, hello, bye, two, rts, cts, credit, abort);
        int refused = 0;
        int frames = 0;
        for (int i = 0; i < Mutations.INPUTS; i++) {
            final byte[] input = m.next();
            final EmbeddedChannel ch = new EmbeddedChannel(new Frames.Decoder(1 << 16));
            try {
                int at = 0;
                while (at < input.length) {
                    final int n = Math.min(input.length - at, 1 + m.nextInt(24));
                    ch.writeInbound(Unpooled.wrappedBuffer(input, at, n));
                    at += n;
                }
                Object frame;
                while ((frame = ch.readInbound()) != null) {
                    frames++;
                    if (frame instanceof io.netty.util.ReferenceCounted rc) {
                        rc.release();
                    }
                }
            } catch (DecoderException expected) {
                refused++;
            } catch (RuntimeException | OutOfMemoryError e) {
                throw new AssertionError("input " + ByteBufUtil.hexDump(input) + " escaped with " + e, e);
            } finally {
                try {
                    ch.finishAndReleaseAll();
                } catch (DecoderException leftover) {
                    // a partial frame at the end of a refused stream: refused again, nothing else
                }
            }
        }
        System.out.println("wire frames: " + Mutations.INPUTS + " inputs, " + frames + " frames decoded, " + refused
            + " streams refused");
    }
}
