package org.pario.comm.internal.tcp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import io.netty.channel.Channel;
import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.internal.Endpoint;
import org.pario.comm.internal.Pull;
import org.pario.comm.internal.Scratch;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/**
 * The receiving side of a rank: receives that asked for a parked message's data, fetched from the sender's
 * shared-memory file or over the connection; eager messages unpacked into a posted receive as they arrive; arrays of
 * eager messages that arrive before their receive, kept for reuse.
 */
final class Arrivals {
    private static final System.Logger LOG = System.getLogger(Arrivals.class.getName());

    private final Links links;
    private final Credit credit;
    private final Endpoint endpoint;
    private final TcpCounters counters;
    /** Where peers of this host stage large messages for this rank, or null. */
    private final SharedMemory sharedMemory;
    /** How long a sender may pack nothing more into shared memory before its message fails: the failure timeout. */
    private final LongSupplier failureTimeoutMillis;
    /** Ids of receives waiting for parked data; unique per rank. */
    private final AtomicLong ids = new AtomicLong();
    /** Receives that asked for parked data, by receive id. */
    private final Map<Long, Incoming> incoming = new ConcurrentHashMap<>();
    /** Per peer: the eager message being unpacked into a posted receive as it arrives, or null. */
    private final AtomicReferenceArray<EagerLanding> landingFrom;
    /**
     * Arrays of eager messages that arrive before their receive, given back once the receive has taken them:
     * allocating one for each such message cost a 64 KiB allreduce at 4 ranks a fresh 64 KiB per call. Up to 8 MiB,
     * and a sixty-fourth of the heap.
     */
    private final Scratch heldWhole = new Scratch(Math.min(8L << 20, Runtime.getRuntime().maxMemory() / 64));

    Arrivals(final Links links, final Credit credit, final Endpoint endpoint, final TcpCounters counters,
             final SharedMemory sharedMemory, final LongSupplier failureTimeoutMillis) {
        this.links = links;
        this.credit = credit;
        this.endpoint = endpoint;
        this.counters = counters;
        this.sharedMemory = sharedMemory;
        this.failureTimeoutMillis = failureTimeoutMillis;
        this.landingFrom = new AtomicReferenceArray<>(links.fabric().size());
    }

    Credit credit() {
        return credit;
    }

    /** @return bytes of arrays kept for eager messages that arrive before their receive */
    long arraysKept() {
        return heldWhole.held();
    }

    /** @return where the data arriving on one inbound connection goes */
    Frames.Landings landingsFor(final Channel inbound) {
        return new Frames.Landings() {
            @Override
            public Scratch arrays() {
                return heldWhole;
            }

            @Override
            public Frames.Landing open(final long receiveId, final long length) {
                return land(receiveId, length);
            }

            @Override
            public void refused(final long receiveId, final String reason) {
                final Incoming in = incoming.get(receiveId);
                if (in != null) {
                    in.done.completeExceptionally(new ParioException(ErrorCategory.TRANSPORT, reason));
                }
            }

            @Override
            public Frames.Landing expect(final int context, final int source, final int tag, final long length,
                                         final String type) {
                // the peer is known once its hello has come
                final Integer peer = InboundHandler.peerOf(inbound);
                return peer == null ? null : landEager(peer, context, source, tag, length, type);
            }
        };
    }

    /**
     * The decoder's lookup: the receive that asked for this data, if it did and still expects that many bytes (the
     * data comes in pieces, in order, each its own frame).
     */
    private Frames.Landing land(final long receiveId, final long length) {
        final Incoming in = incoming.get(receiveId);
        if (in == null || length > in.total - in.received()) {
            return null;
        }
        if (length == 0) {
            in.done.complete(null);
        }
        return in;
    }

    /** @return where an eager message goes when a posted receive takes it now, or null to hold it whole */
    private Frames.Landing landEager(final int peer, final int context, final int source, final int tag,
                                     final long length, final String type) {
        final Endpoint.Claim claim = endpoint.claim(context, source, tag, length, type);
        if (claim == null) {
            return null;
        }
        counters.landedInPlace.incrementAndGet();
        final EagerLanding landing = new EagerLanding(peer, claim, length, this);
        if (length == 0) {
            landing.complete(null);
        } else {
            landingFrom.set(peer, landing);
        }
        return landing;
    }

    /** An eager message has landed whole (or failed): nothing of it is under way from its peer any more. */
    void landed(final EagerLanding landing) {
        landingFrom.compareAndSet(landing.peer, landing, null);
    }

    /** @return the receive side of a message parked at {@code peer}: asks for its data when a receive matches it */
    Pull pullFrom(final int peer, final Frames.Rts rts) {
        return new RemotePull(peer, rts.sendId(), rts.length(), rts.shmPath(), rts.shmOffset());
    }

    /** A rank left: fail the receives waiting for its data. */
    void departed(final int worldRank) {
        for (final Incoming in : incoming.values()) {
            if (in.peer == worldRank) {
                links.fabric().failTransfer(in.done, worldRank);
            }
        }
        final EagerLanding landing = landingFrom.getAndSet(worldRank, null);
        if (landing != null) {
            landing.claim.failed(links.fabric().lost(worldRank));
        }
    }

    /** The receive side of a parked message: asks for its data when a receive has matched it. */
    private final class RemotePull implements Pull {
        private final int peer;
        private final long sendId;
        private final long bytes;
        /** The shared-memory file that holds the data too, or null; and where in it. */
        private final String shmPath;
        private final long shmOffset;

        RemotePull(final int peer, final long sendId, final long bytes, final String shmPath, final long shmOffset) {
            this.peer = peer;
            this.sendId = sendId;
            this.bytes = bytes;
            this.shmPath = shmPath;
            this.shmOffset = shmOffset;
        }

        @Override
        public CompletableFuture<Void> fetch(final Memory memory, final Datatype type, final long count) {
            if (shmPath != null && sharedMemory != null) {
                final CompletableFuture<Void> local = fromSharedMemory(memory, type, count);
                if (local != null) {
                    return local;
                }
            }
            final Incoming in = new Incoming(peer, memory, type, count, bytes);
            final long id = ids.incrementAndGet();
            incoming.put(id, in);
            // before the request goes: the data may arrive, and its sender leave, before this thread goes on
            in.done.whenComplete((v, e) -> incoming.remove(id));
            if (links.fabric().departed(peer)) {
                links.fabric().failTransfer(in.done, peer);
                return in.done;
            }
            links.write(peer, Frames.cts(links.alloc(peer), sendId, id));
            return in.done;
        }

        /**
         * Unpacks the data from the sender's shared-memory file and lets the sender drop it.
         *
         * @return the completed (or, if unpacking failed, failed) transfer, or null when the file cannot be
         *     mapped here and the data must come over the connection
         */
        private CompletableFuture<Void> fromSharedMemory(final Memory memory, final Datatype type, final long count) {
            final SharedMemory.Staged staged;
            try {
                staged = sharedMemory.staged(shmPath, shmOffset, bytes);
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "rank " + links.rank() + " fetches over the connection: " + e);
                return null;
            }
            final ByteBuffer source = staged.data();
            final long timeoutMillis = failureTimeoutMillis.getAsLong();
            final long stallNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            final BooleanSupplier senderLeft = () -> links.fabric().departed(peer);
            long unpacked = 0;
            try {
                while (unpacked < bytes) {
                    final long packed = staged.awaitMore(unpacked, stallNanos, senderLeft);
                    if (packed == SharedMemory.PACKING_FAILED) {
                        // the sender says why over the connection
                        LOG.log(System.Logger.Level.DEBUG, "rank " + peer + " could not pack send " + sendId);
                        return null;
                    }
                    if (packed < 0) {
                        // a sender that still runs stops packing and frees the space
                        discard();
                        return CompletableFuture.failedFuture(stopped(packed, unpacked, timeoutMillis));
                    }
                    Packer.unpack(source, (int) unpacked, (int) (packed - unpacked), memory, memory.origin(), type,
                        count, DataRepresentation.NATIVE, unpacked);
                    unpacked = packed;
                }
            } catch (RuntimeException e) {
                discard();
                return CompletableFuture.failedFuture(e);
            }
            discard();
            return CompletableFuture.completedFuture(null);
        }

        /** @return why a receive gave up waiting for the next chunk of a staged message */
        private ParioException stopped(final long why, final long unpacked, final long timeoutMillis) {
            final String arrived = " (" + unpacked + " of its " + bytes + " bytes in shared memory had arrived)";
            if (links.fabric().departed(peer)) {
                final ParioException gone = links.fabric().lost(peer);
                return new ParioException(gone.category(), gone.getMessage() + arrived, gone);
            }
            return new ParioException(ErrorCategory.TRANSPORT, "rank " + peer + (why == SharedMemory.SENDER_GONE
                ? "'s process ended" : " packed nothing more for " + timeoutMillis + " ms")
                + " while it packed a message for this rank" + arrived);
        }

        @Override
        public void discard() {
            if (!links.fabric().departed(peer)) {
                links.write(peer, Frames.cts(links.alloc(peer), sendId, -1), f -> { });
            }
        }
    }
}
