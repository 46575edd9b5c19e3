package org.pario.comm;

import org.pario.ErrorCategory;
import org.pario.ParioException;
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
        final long capacity = Math.multiplyExact(count, type.size());
        final long bytes = MessageAccess.bytes(m);
        if (bytes > capacity) {
            throw new ParioException(ErrorCategory.TRUNCATE, "message of " + bytes + " bytes from rank "
                + MessageAccess.source(m) + " (tag " + MessageAccess.tag(m) + ") does not fit the receive buffer of "
                + count + " x " + type + " = " + capacity + " bytes");
        }
        final String sent = MessageAccess.basicType(m);
        final String expected = type.homogeneousBasicType().map(Datatype::toString).orElse(null);
        if (sent != null && expected != null && !sent.equals(expected) && !untyped(sent) && !untyped(expected)
            && bytes > 0) {
            throw new ParioException(ErrorCategory.MISMATCH, "type signatures do not match: rank "
                + MessageAccess.source(m) + " sent " + sent + " data, the receive expects " + expected);
        }
    }

    static Status status(final Message m) {
        return new Status(MessageAccess.source(m), MessageAccess.tag(m), MessageAccess.bytes(m));
    }

    private static boolean untyped(final String name) {
        return name.equals("byte") || name.equals("packed");
    }
}
