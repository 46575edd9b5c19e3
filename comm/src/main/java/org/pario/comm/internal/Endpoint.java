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

        Posted(final int context, final int source, final int tag, final int[] group, final boolean probeOnly) {
            this.context = context;
            this.source = source;
            this.tag = tag;
            this.group = group;
            this.probeOnly = probeOnly;
        }

        boolean matches(final Message m) {
            return m.context == context && (source == ANY_SOURCE || source == m.source)
                && (tag == ANY_TAG || tag == m.tag);
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
     * Posts a receive, or a probe when {@code probeOnly} (which matches without consuming).
     *
     * @return a future completed with the matched message, or failed when no sender can satisfy it any more
     */
    public CompletableFuture<Message> post(final int context, final int source, final int tag, final int[] group,
                                           final boolean probeOnly) {
        final Posted p = new Posted(context, source, tag, group, probeOnly);
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
        final Posted probe = new Posted(context, source, tag, null, true);
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
