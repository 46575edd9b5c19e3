package org.pario.comm.internal;

import java.nio.ByteBuffer;

import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/**
 * A message between two ranks: its envelope (context, source, tag), its data as packed native bytes in chunks of
 * at most {@link #CHUNK} bytes (so messages beyond 2 GiB work), and the basic type of its data when that is a
 * single one, for signature checks. Immutable once built.
 */
public final class Message {
    /** Largest chunk of packed data: 1 GiB. */
    public static final int CHUNK = 1 << 30;

    final int context;
    final int source;
    final int tag;
    final long bytes;
    final ByteBuffer[] chunks;
    /** The single basic type name of the data, or null when mixed or unknown. */
    final String basicType;
    /** For a message whose data is still at the sender: how to fetch it; null when the data is here. */
    final Pull pull;
    /** Told once the data has been unpacked into a receive buffer (the transport returns eager credit), or null. */
    final Runnable consumed;
    /** True when the data was unpacked into the receive buffer as it arrived: nothing is left to unpack. */
    final boolean landed;

    Message(final int context, final int source, final int tag, final long bytes, final ByteBuffer[] chunks,
            final String basicType) {
        this(context, source, tag, bytes, chunks, basicType, null, null);
    }

    Message(final int context, final int source, final int tag, final long bytes, final ByteBuffer[] chunks,
            final String basicType, final Pull pull, final Runnable consumed) {
        this(context, source, tag, bytes, chunks, basicType, pull, consumed, false);
    }

    Message(final int context, final int source, final int tag, final long bytes, final ByteBuffer[] chunks,
            final String basicType, final Pull pull, final Runnable consumed, final boolean landed) {
        this.context = context;
        this.source = source;
        this.tag = tag;
        this.bytes = bytes;
        this.chunks = chunks;
        this.basicType = basicType;
        this.pull = pull;
        this.consumed = consumed;
        this.landed = landed;
    }

    /** Packs {@code count} elements of {@code type} from memory into a new message. */
    static Message pack(final int context, final int source, final int tag, final Memory memory, final Datatype type,
                        final long count) {
        final long bytes = Packer.packedSize(type, count, DataRepresentation.NATIVE);
        final int n = (int) ((bytes + CHUNK - 1) / CHUNK);
        final ByteBuffer[] chunks = new ByteBuffer[n];
        for (int i = 0; i < n; i++) {
            final long from = (long) i * CHUNK;
            final int len = (int) Math.min(CHUNK, bytes - from);
            chunks[i] = ByteBuffer.allocate(len);
            Packer.pack(memory, memory.origin(), type, count, DataRepresentation.NATIVE, from, chunks[i], 0, len);
        }
        return new Message(context, source, tag, bytes, chunks, basicName(type));
    }

    /** Unpacks the first {@code bytes} of this message into memory laid out as {@code count} x {@code type}. */
    void unpackInto(final Memory memory, final Datatype type, final long count) {
        for (int i = 0; i < chunks.length; i++) {
            final int len = chunks[i].capacity();
            Packer.unpack(chunks[i], 0, len, memory, memory.origin(), type, count, DataRepresentation.NATIVE,
                (long) i * CHUNK);
        }
    }

    static String basicName(final Datatype type) {
        return type.homogeneousBasicName();
    }
}
