package org.pario.comm.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.pario.ParioException;

/**
 * One rank's message matching ({@code MPI_Recv} semantics): per communicator context, posted receives in the
 * order they were posted and unexpected messages in the order they arrived. An arriving message completes the
 * first posted receive it matches (source or any, tag or any), otherwise it waits for one; messages from one
 * sender on one context are matched in the order they were sent (MPI's non-overtaking rule).
 *
 * <p>Thread-safe: one lock guards the queues. Receives are failed, never left pending, when their possible
 * senders fail or finish ({@link #peerGone}).
 */
public final class Endpoint {
    /** Matches any sender. */
    public static final int ANY_SOURCE = -1;
    /** Matches any tag. */
    public static final int ANY_TAG = -1;

    private final int worldRank;
    private final Map<Integer, ArrayDeque<Message>> unexpected = new HashMap<>();
    private final List<Posted> posted = new ArrayList<>();
    private final Fabric fabric;

    /** A posted receive: what it matches, who could satisfy it, and its future. */
    static final class Posted {
        final int context;
        final int source;
        final int tag;
        /** World ranks of the communicator's group, to translate sources and to notice departed peers. */
        final int[] group;
        final CompletableFuture<Message> future = new CompletableFuture<>();
        final boolean probeOnly;
        /** Where a receive's data goes, or null (a probe, or a receive that takes only whole messages). */
        final Target target;

        Posted(final int context, final int source, final int tag, final int[] group, final boolean probeOnly,
               final Target target) {
            this.context = context;
            this.source = source;
            this.tag = tag;
            this.group = group;
            this.probeOnly = probeOnly;
            this.target = target;
        }

        boolean matches(final Message m) {
            return m.context == context && (source == ANY_SOURCE || source == m.source)
                && (tag == ANY_TAG || tag == m.tag);
        }
    }

    /**
     * A posted receive's buffer, and which messages it takes: a message that arrives for it may be unpacked
     * straight into the buffer as its bytes come in, instead of being held whole and unpacked afterwards.
     */
    public interface Target {
        /**
         * @param basicType the single basic type the sender's data consists of, or null
         * @return true when a message of {@code bytes} bytes of that type fits the buffer and matches its type
         *     (otherwise the receive must see the message to report the error)
         */
        boolean accepts(long bytes, String basicType);

        /** @return the receive buffer */
        org.pario.datatypes.Memory memory();

        /** @return the receive's datatype */
        org.pario.datatypes.Datatype type();

        /** @return the receive's element count */
        long count();
    }

    /** A receive an arriving message has taken before its data is in: completed once every byte has landed. */
    public static final class Claim {
        private final Posted posted;
        private final Message envelope;

        Claim(final Posted posted, final Message envelope) {
            this.posted = posted;
            this.envelope = envelope;
        }

        /** @return where the message's bytes go */
        public Target target() {
            return posted.target;
        }

        /** Every byte is in the receive buffer; {@code consumed} runs once the receive has taken the message. */
        public void landed(final Runnable consumed) {
            posted.future.complete(new Message(envelope.context, envelope.source, envelope.tag, envelope.bytes,
                new java.nio.ByteBuffer[0], envelope.basicType, null, consumed, true));
        }

        /** The data could not land (unpacking failed, or the sender was lost): the receive fails with it. */
        public void failed(final Throwable cause) {
            posted.future.completeExceptionally(cause);
        }
    }

    public Endpoint(final int worldRank, final Fabric fabric) {
        this.worldRank = worldRank;
        this.fabric = fabric;
    }

    /** @return this endpoint's rank in the world */
    public int worldRank() {
        return worldRank;
    }

    /** Hands an arriving message to the first matching posted receive, or queues it. */
    public void deliver(final Message m) {
        final List<Posted> completed = new ArrayList<>();
        synchronized (this) {
            final Iterator<Posted> it = posted.iterator();
            boolean consumed = false;
            while (it.hasNext()) {
                final Posted p = it.next();
                if (p.matches(m)) {
                    it.remove();
                    completed.add(p);
                    if (!p.probeOnly) {
                        consumed = true;
                        break;
                    }
                }
            }
            if (!consumed) {
                unexpected.computeIfAbsent(m.context, k -> new ArrayDeque<>()).addLast(m);
            }
        }
        for (final Posted p : completed) {
            p.future.complete(m);
        }
    }

    /**
     * An eager message's envelope has arrived, its data not yet: when the receive it would be delivered to is
     * posted and takes it (it fits, its type matches, no probe comes first), that receive is taken off the
     * posted list now, in the order {@link #deliver} would take it, so the data can be unpacked into its buffer
     * as it arrives.
     *
     * @return the claimed receive, or null: the message is then held whole and delivered as usual
     */
    public synchronized Claim claim(final int context, final int source, final int tag, final long bytes,
                                    final String basicType) {
        final Message envelope = new Message(context, source, tag, bytes, new java.nio.ByteBuffer[0], basicType);
        final Iterator<Posted> it = posted.iterator();
        while (it.hasNext()) {
            final Posted p = it.next();
            if (p.matches(envelope)) {
                if (p.probeOnly || p.target == null || !p.target.accepts(bytes, basicType)) {
                    return null;
                }
                it.remove();
                return new Claim(p, envelope);
            }
        }
        return null;
    }

    /**
     * Posts a receive, or a probe when {@code probeOnly} (which matches without consuming).
     *
     * @return a future completed with the matched message, or failed when no sender can satisfy it any more
     */
    public CompletableFuture<Message> post(final int context, final int source, final int tag, final int[] group,
                                           final boolean probeOnly) {
        return post(context, source, tag, group, probeOnly, null);
    }

    /**
     * Posts a receive whose data may land straight in {@code target}'s buffer (see {@link #claim}); otherwise
     * like {@link #post(int, int, int, int[], boolean)}.
     */
    public CompletableFuture<Message> post(final int context, final int source, final int tag, final int[] group,
                                           final boolean probeOnly, final Target target) {
        final Posted p = new Posted(context, source, tag, group, probeOnly, target);
        synchronized (this) {
            final ArrayDeque<Message> queue = unexpected.get(context);
            if (queue != null) {
                final Iterator<Message> it = queue.iterator();
                while (it.hasNext()) {
                    final Message m = it.next();
                    if (p.matches(m)) {
                        if (!probeOnly) {
                            it.remove();
                            if (queue.isEmpty()) {
                                // contexts come and go (a communicator per file, per split): keep no empty queues
                                unexpected.remove(context);
                            }
                        }
                        p.future.complete(m);
                        return p.future;
                    }
                }
            }
            final ParioException gone = fabric.unreachable(p, worldRank);
            if (gone != null) {
                p.future.completeExceptionally(gone);
                return p.future;
            }
            posted.add(p);
        }
        return p.future;
    }

    /** @return the bytes of data held here in messages no receive has matched yet (parked data does not count) */
    public synchronized long unexpectedBytes() {
        long sum = 0;
        for (final ArrayDeque<Message> q : unexpected.values()) {
            for (final Message m : q) {
                sum += m.pull == null ? m.bytes : 0;
            }
        }
        return sum;
    }

    /** @return how many contexts have messages waiting for a receive */
    public synchronized int contextsWithQueuedMessages() {
        return unexpected.size();
    }

    /** Non-blocking probe: the first matching queued message, without consuming it, or null. */
    public synchronized Message peek(final int context, final int source, final int tag) {
        final ArrayDeque<Message> queue = unexpected.get(context);
        if (queue == null) {
            return null;
        }
        final Posted probe = new Posted(context, source, tag, null, true, null);
        for (final Message m : queue) {
            if (probe.matches(m)) {
                return m;
            }
        }
        return null;
    }

    /** @return the first queued message from {@code source} on {@code context} whose tag passes the test, or null */
    public synchronized Message peekWhere(final int context, final int source,
                                          final java.util.function.IntPredicate tag) {
        final ArrayDeque<Message> queue = unexpected.get(context);
        if (queue == null) {
            return null;
        }
        for (final Message m : queue) {
            if (m.source == source && tag.test(m.tag)) {
                return m;
            }
        }
        return null;
    }

    /** Fails every posted receive that departed or failed peers make impossible. */
    void peerGone() {
        final List<Posted> failed = new ArrayList<>();
        final List<ParioException> causes = new ArrayList<>();
        synchronized (this) {
            final Iterator<Posted> it = posted.iterator();
            while (it.hasNext()) {
                final Posted p = it.next();
                final ParioException gone = fabric.unreachable(p, worldRank);
                if (gone != null) {
                    it.remove();
                    failed.add(p);
                    causes.add(gone);
                }
            }
        }
        for (int i = 0; i < failed.size(); i++) {
            failed.get(i).future.completeExceptionally(causes.get(i));
        }
    }
}
