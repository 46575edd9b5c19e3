package org.pario.comm;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.internal.Endpoint;
import org.pario.comm.internal.Message;
import org.pario.comm.internal.MessageAccess;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/** Completes a receive: checks the message against the receive buffer, then unpacks it. */
final class Delivery {
    private Delivery() {
    }

    /**
     * @return completed with the receive's status once the data is in the buffer; failed (and the message
     *     refused) when it does not fit or its type does not match
     */
    static java.util.concurrent.CompletableFuture<Status> complete(final Message m, final Memory memory,
                                                                   final long count, final Datatype type) {
        try {
            check(m, count, type);
        } catch (RuntimeException e) {
            MessageAccess.refuse(m);
            throw e;
        }
        return MessageAccess.unpack(m, memory, type, count).thenApply(done -> status(m));
    }

    private static void check(final Message m, final long count, final Datatype type) {
        final ParioException problem = problem(MessageAccess.bytes(m), MessageAccess.basicType(m),
            MessageAccess.source(m), MessageAccess.tag(m), count, type);
        if (problem != null) {
            throw problem;
        }
    }

    /** @return why a message of {@code bytes} bytes of basic type {@code sent} can't be received so, or null */
    private static ParioException problem(final long bytes, final String sent, final int source, final int tag,
                                          final long count, final Datatype type) {
        final long capacity = Math.multiplyExact(count, type.size());
        if (bytes > capacity) {
            return new ParioException(ErrorCategory.TRUNCATE, "message of " + bytes + " bytes from rank "
                + source + " (tag " + tag + ") does not fit the receive buffer of "
                + count + " x " + type + " = " + capacity + " bytes");
        }
        final String expected = type.homogeneousBasicName();
        if (sent != null && expected != null && !sent.equals(expected) && !untyped(sent) && !untyped(expected)
            && bytes > 0) {
            return new ParioException(ErrorCategory.MISMATCH, "type signatures do not match: rank "
                + source + " sent " + sent + " data, the receive expects " + expected);
        }
        return null;
    }

    /** A receive's buffer, which messages that fit it and match its type may land in as they arrive. */
    record Into(Memory memory, Datatype type, long count) implements Endpoint.Target {
        @Override
        public boolean accepts(final long bytes, final String basicType) {
            try {
                return problem(bytes, basicType, 0, 0, count, type) == null;
            } catch (ArithmeticException e) {
                return false;
            }
        }
    }

    static Status status(final Message m) {
        return new Status(MessageAccess.source(m), MessageAccess.tag(m), MessageAccess.bytes(m));
    }

    private static boolean untyped(final String name) {
        return name.equals("byte") || name.equals("packed");
    }
}
