package org.pario.comm;

import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;

import org.pario.comm.internal.Message;
import org.pario.comm.internal.Scratch;
import org.pario.comm.internal.coll.CollectiveContext;
import org.pario.comm.settings.CollectiveTuning;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;

/** A communicator as the collective algorithms see it: its port, in the context of its collectives. */
final class CollectivePort implements CollectiveContext {
    private final Port port;
    private final int context;
    private final CollectiveTuning tuning;
    private final Scratch scratch;

    CollectivePort(final Port port, final int context, final CollectiveTuning tuning, final Scratch scratch) {
        this.port = port;
        this.context = context;
        this.tuning = tuning;
        this.scratch = scratch;
    }

    @Override
    public int rank() {
        return port.rank();
    }

    @Override
    public int size() {
        return port.size();
    }

    @Override
    public CollectiveTuning tuning() {
        return tuning;
    }

    @Override
    public Scratch scratch() {
        return scratch;
    }

    @Override
    public void send(final Memory m, final long count, final Datatype type, final int dest, final int tag) {
        port.send(context, m, count, type, dest, tag);
    }

    @Override
    public Transfer sendInPlace(final Memory m, final long count, final Datatype type, final int dest,
                                final int tag) {
        final Request<Void> r = port.sendInPlace(context, m, count, type, dest, tag);
        return millis -> {
            r.join(millis, TimeUnit.MILLISECONDS);
            return 0;
        };
    }

    @Override
    public Transfer receive(final Memory m, final long count, final Datatype type, final int source,
                            final int tag, final boolean prompt) {
        final Request<Status> posted = port.receive(context, m, count, type, source, tag);
        final Request<Status> r = prompt ? posted.sentPromptly() : posted;
        return millis -> r.join(millis, TimeUnit.MILLISECONDS).bytes();
    }

    @Override
    public Message peek(final int source, final IntPredicate tag) {
        return port.peekWhere(context, source, tag);
    }
}
