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

    /**
     * Unpacks the message into memory laid out as {@code count x type}: at once when its data is here, or as the
     * data arrives from the sender when it stayed there (rendezvous).
     *
     * @return completed when every byte is in place
     */
    public static java.util.concurrent.CompletableFuture<Void> unpack(final Message m, final Memory memory,
                                                                      final Datatype type, final long count) {
        if (m.pull != null) {
            return m.pull.fetch(memory, type, count);
        }
        try {
            if (!m.landed) {
                m.unpackInto(memory, type, count);
            }
        } finally {
            // a receive that fails to unpack has taken the message all the same: its sender's credit comes back
            if (m.consumed != null) {
                m.consumed.run();
            }
        }
        return java.util.concurrent.CompletableFuture.completedFuture(null);
    }

    /** A receive refused the message: data still at the sender may be dropped, eager credit returned. */
    public static void refuse(final Message m) {
        if (m.pull != null) {
            m.pull.discard();
        } else if (m.consumed != null) {
            m.consumed.run();
        }
    }

    /** @return a message whose data stays at its sender until a receive fetches it */
    public static Message parked(final int context, final int source, final int tag, final long bytes,
                                 final String basicType, final Pull pull) {
        return new Message(context, source, tag, bytes, new java.nio.ByteBuffer[0], basicType, pull, null);
    }

    /** @return the context id */
    public static int context(final Message m) {
        return m.context;
    }

    /** @return the payload chunks (do not modify) */
    public static java.nio.ByteBuffer[] chunks(final Message m) {
        return m.chunks;
    }

    /** @return the name of the single basic type of {@code type}'s data, or null when mixed */
    public static String basicName(final Datatype type) {
        return Message.basicName(type);
    }

    /**
     * @param arrays where the chunks' arrays come from and go back to once the message has been consumed (unpacked
     *               or refused), or null for new arrays
     * @return a builder that fills a message's chunks from the wire
     */
    public static Builder builder(final int context, final int source, final int tag, final long bytes,
                                  final String basicType, final Scratch arrays) {
        return new Builder(context, source, tag, bytes, basicType, arrays);
    }

    /** @return the message with a hook run once its data has been consumed (unpacked or refused), after its own */
    public static Message whenConsumed(final Message m, final Runnable hook) {
        final Runnable own = m.consumed;
        final Runnable both = own == null ? hook : () -> {
            own.run();
            hook.run();
        };
        return new Message(m.context, m.source, m.tag, m.bytes, m.chunks, m.basicType, m.pull, both, m.landed);
    }

    /** Fills a message's payload as bytes arrive. */
    public static final class Builder {
        private final int context;
        private final int source;
        private final int tag;
        private final long bytes;
        private final String basicType;
        private final java.nio.ByteBuffer[] chunks;
        private final Scratch arrays;
        private long filled;

        Builder(final int context, final int source, final int tag, final long bytes, final String basicType,
                final Scratch arrays) {
            this.context = context;
            this.source = source;
            this.tag = tag;
            this.bytes = bytes;
            this.basicType = basicType;
            this.arrays = arrays;
            final int n = (int) ((bytes + Message.CHUNK - 1) / Message.CHUNK);
            chunks = new java.nio.ByteBuffer[n];
        }

        /** @return payload bytes still expected */
        public long remaining() {
            return bytes - filled;
        }

        /** Copies {@code n} bytes from the buffer into the payload. */
        public void append(final io.netty.buffer.ByteBuf in, final int n) {
            int left = n;
            while (left > 0) {
                final int chunk = (int) (filled / Message.CHUNK);
                if (chunks[chunk] == null) {
                    final int length = (int) Math.min(Message.CHUNK, bytes - (long) chunk * Message.CHUNK);
                    chunks[chunk] = java.nio.ByteBuffer.wrap(arrays == null ? new byte[length] : arrays.take(length));
                }
                final int at = (int) (filled % Message.CHUNK);
                final int take = Math.min(left, chunks[chunk].capacity() - at);
                in.readBytes(chunks[chunk].duplicate().clear().position(at).limit(at + take));
                filled += take;
                left -= take;
            }
        }

        /** @return the complete message; its arrays go back to where they came from once it is consumed */
        public Message build() {
            if (arrays == null || chunks.length == 0) {
                return new Message(context, source, tag, bytes, chunks, basicType);
            }
            return new Message(context, source, tag, bytes, chunks, basicType, null, () -> {
                for (final java.nio.ByteBuffer chunk : chunks) {
                    arrays.give(chunk.array());
                }
            });
        }
    }

    /** Packs a new message. */
    public static Message pack(final int context, final int source, final int tag, final Memory memory,
                               final Datatype type, final long count) {
        return Message.pack(context, source, tag, memory, type, count);
    }
}
