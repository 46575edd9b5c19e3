package org.pario.comm.internal;

import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/** Read access to a {@link Message} for the communicator, which lives in another package. */
public final class MessageAccess {
    private MessageAccess() {
    }

    /** @return the sender's rank in the communicator */
    public static int source(final Message m) {
        return m.source;
    }

    /** @return the tag */
    public static int tag(final Message m) {
        return m.tag;
    }

    /** @return the data bytes */
    public static long bytes(final Message m) {
        return m.bytes;
    }

    /** @return the single basic type of the data, or null */
    public static String basicType(final Message m) {
        return m.basicType;
    }

    /** Unpacks the message into memory laid out as {@code count x type}. */
    public static void unpack(final Message m, final Memory memory, final Datatype type, final long count) {
        m.unpackInto(memory, type, count);
    }

    /** Packs a new message. */
    public static Message pack(final int context, final int source, final int tag, final Memory memory,
                               final Datatype type, final long count) {
        return Message.pack(context, source, tag, memory, type, count);
    }
}
