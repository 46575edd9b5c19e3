package org.pario.comm.internal.tcp;

import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * The buffers an inbound connection reads into: while a message's data streams into a receive whose memory is one
 * run of a direct buffer (on as many of the rank's connections at once as the decoder asks for), the socket reads
 * the rest of that data straight into the receive ({@link Frames.Decoder#landingSpace}); otherwise, and for
 * everything else, the connection's usual buffers. The bytes then cross memory once, in the kernel, instead of into
 * a buffer of Netty's and from there into the receive. Only the data of the message being received is read that
 * way, never bytes after it, so frames that follow go through the decoder as before. On Java 22+ a receive that is
 * one run of a Java array is read into the same way, before each usual read ({@link Frames.Decoder#readIntoArray}).
 */
final class InPlaceReads implements RecvByteBufAllocator {
    private final RecvByteBufAllocator usual;
    private final Frames.Decoder decoder;
    private final AtomicLong bytesInPlace;
    /** The connection's file descriptor where receive arrays may be read into straight (Java 22+), else -1. */
    private final int arraySocket;
    private final AtomicLong bytesIntoArrays;
    /** Tells the connection's handlers that bytes came, when they went into an array and not through them. */
    private final Runnable bytesCame;

    /**
     * @param usual           the connection's allocator, for every read that is not a message's data going in place
     * @param decoder         the connection's decoder, which knows where arriving data goes
     * @param bytesInPlace    counts the bytes read straight into receive memory
     * @param arraySocket     the connection's file descriptor, for reads straight into receive arrays where the JVM
     *                        can make them ({@link ArraySockets}); -1 for none
     * @param bytesIntoArrays counts the bytes read straight into receive arrays
     * @param bytesCame       tells the connection's handlers that bytes came (an empty read through its pipeline),
     *                        so that a peer whose data all goes into arrays is not taken for silent
     */
    InPlaceReads(final RecvByteBufAllocator usual, final Frames.Decoder decoder, final AtomicLong bytesInPlace,
                 final int arraySocket, final AtomicLong bytesIntoArrays, final Runnable bytesCame) {
        this.usual = usual;
        this.decoder = decoder;
        this.bytesInPlace = bytesInPlace;
        this.arraySocket = ArraySockets.AVAILABLE ? arraySocket : -1;
        this.bytesIntoArrays = bytesIntoArrays;
        this.bytesCame = bytesCame;
    }

    @Override
    public Handle newHandle() {
        return new InPlace((ExtendedHandle) usual.newHandle());
    }

    /** The usual handle, except for where it reads. */
    private final class InPlace implements ExtendedHandle {
        private final ExtendedHandle usual;
        /** Whether the buffer of the read under way is receive memory. */
        private boolean inPlace;

        InPlace(final ExtendedHandle usual) {
            this.usual = usual;
        }

        @Override
        public ByteBuf allocate(final ByteBufAllocator alloc) {
            if (arraySocket >= 0) {
                // data bound for an array goes there first; the read Netty makes next finds what follows it
                final long n = decoder.readIntoArray(arraySocket);
                if (n > 0) {
                    bytesIntoArrays.addAndGet(n);
                    bytesCame.run();
                }
            }
            final ByteBuf space = decoder.landingSpace();
            inPlace = space != null;
            return inPlace ? space : usual.allocate(alloc);
        }

        @Override
        public int guess() {
            return usual.guess();
        }

        @Override
        public void reset(final ChannelConfig config) {
            usual.reset(config);
        }

        @Override
        public void incMessagesRead(final int numMessages) {
            usual.incMessagesRead(numMessages);
        }

        @Override
        public void lastBytesRead(final int bytes) {
            if (inPlace && bytes > 0) {
                bytesInPlace.addAndGet(bytes);
            }
            usual.lastBytesRead(bytes);
        }

        @Override
        public int lastBytesRead() {
            return usual.lastBytesRead();
        }

        @Override
        public void attemptedBytesRead(final int bytes) {
            usual.attemptedBytesRead(bytes);
        }

        @Override
        public int attemptedBytesRead() {
            return usual.attemptedBytesRead();
        }

        @Override
        public boolean continueReading() {
            return usual.continueReading();
        }

        @Override
        public boolean continueReading(final UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return usual.continueReading(maybeMoreDataSupplier);
        }

        @Override
        public void readComplete() {
            usual.readComplete();
        }
    }
}
