package org.pario.comm.internal.tcp;

import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.pario.ParioException;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/**
 * Arriving bytes of one message, unpacked in order into a receive buffer laid out as {@code count x type}; where
 * that buffer is one run of a direct buffer, the socket reads into it in place ({@link InPlaceReads}). A failed
 * unpack skips the rest of the message's bytes, so the connection stays in step.
 */
abstract class Unpacking implements Frames.Landing {
    final int peer;
    final long total;
    private final Memory memory;
    private final Datatype type;
    private final long count;
    private long received;
    private RuntimeException failure;
    /** The receive memory as one run of a direct buffer, null if it is not; looked up at the first read. */
    private ByteBuffer region;
    private boolean regionLookedUp;
    /** The last buffer over the receive memory given to the socket: its bytes are in place already. */
    private ByteBuf inPlace;

    Unpacking(final int peer, final Memory memory, final Datatype type, final long count, final long total) {
        this.peer = peer;
        this.memory = memory;
        this.type = type;
        this.count = count;
        this.total = total;
    }

    @Override
    public final void accept(final ByteBuf in, final int n) {
        if (failure == null && !given() && in != inPlace) {
            try {
                Packer.unpack(in.nioBuffer(in.readerIndex(), n), 0, n, memory, memory.origin(), type, count,
                    DataRepresentation.NATIVE, received);
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        in.skipBytes(n);
        received += n;
        if (received == total) {
            complete(failure);
        }
    }

    @Override
    public final ByteBuf space(final long left) {
        if (failure != null || given()) {
            return null;
        }
        if (!regionLookedUp) {
            regionLookedUp = true;
            // a run beyond what one buffer can address is never one direct buffer either
            if (type.isContiguous() && total <= Integer.MAX_VALUE) {
                try {
                    region = memory.directRegion(memory.origin() + type.lb(), (int) total, true);
                } catch (ParioException e) {
                    // a buffer too short for the message: unpacking reports it
                    region = null;
                }
            }
        }
        if (region == null) {
            return null;
        }
        inPlace = Unpooled.wrappedBuffer(region.slice((int) received, (int) left)).clear();
        return inPlace;
    }

    @Override
    public final Gate.ArrayRun arraySpace() {
        if (failure != null || given() || !type.isContiguous()) {
            return null;
        }
        final Object array = memory.heapArray();
        final long from = memory.origin() + type.lb();
        // a receive too short for the message takes the usual path, where unpacking reports it
        return array == null || from < 0 || from > memory.byteSize() - total ? null
            : new Gate.ArrayRun(array, from + received);
    }

    @Override
    public final void landedInPlace(final int n) {
        received += n;
        if (received == total) {
            complete(failure);
        }
    }

    /** @return how many of the message's bytes have arrived */
    final long received() {
        return received;
    }

    /** @return true when the receive has already been given an outcome: bytes still arriving are skipped */
    boolean given() {
        return false;
    }

    /** Every byte has arrived; {@code failure} is null when all of them landed. */
    abstract void complete(RuntimeException failure);
}
