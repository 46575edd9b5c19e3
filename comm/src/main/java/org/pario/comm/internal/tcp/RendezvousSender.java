package org.pario.comm.internal.tcp;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import org.pario.ParioException;
import org.pario.comm.internal.Message;
import org.pario.comm.internal.MessageAccess;
import org.pario.comm.settings.CommSettings;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/**
 * The sender's side of rendezvous (RTS/CTS): a message announced to its receiver whose data waits here, as a {@link
 * ParkedSend}, until the matching receive asks for it (or lets it go). Its data is packed while the request travels,
 * and sent in pieces as they are packed once asked for; to a rank of this host it is staged in shared memory the
 * receiver unpacks from; a collective's large message may instead leave straight from the caller's memory.
 */
final class RendezvousSender {
    private static final System.Logger LOG = System.getLogger(RendezvousSender.class.getName());
    /** Pieces of a message packed as it leaves that are packed and not yet written, at most. */
    private static final int PACK_LATE_WINDOW = 2;

    private final Links links;
    private final TcpCounters counters;
    /** Where large messages to peers of this host are staged, or null (off, unusable, or TLS). */
    private final SharedMemory sharedMemory;
    /** Per peer: whether it runs on this host, so a shared-memory file can reach it (filled in at start-up). */
    private final boolean[] sameHost;
    /** Ids of parked sends; unique per rank. */
    private final AtomicLong ids = new AtomicLong();
    /** Messages whose data waits here until their receiver asks for it (CTS), by send id. */
    private final Map<Long, ParkedSend> parked = new ConcurrentHashMap<>();
    private final long eagerMax;
    /**
     * Rendezvous data is packed and sent in pieces of this size, each as soon as it is packed once the receiver has
     * asked, so that packing overlaps the transfer instead of coming before it (setting {@code
     * rendezvousPieceBytes}). Smaller pieces measured slower for messages of a few MiB (4 MiB broadcasts between 2
     * ranks, in 1 MiB pieces: about a quarter slower), where packing takes little longer than the request's round
     * trip anyway.
     */
    private final int piece;
    /**
     * Pieces per block of a parked message's memory (setting {@code rendezvousBlockBytes} over the piece size, at
     * least one). Blocks rather than one buffer per message, so that a message beyond 2 GiB can wait at its sender,
     * and so that once its receiver asks, packing can stay a few blocks ahead of the socket ({@link #awaitRoom}):
     * the same few spare blocks serve the whole message, warm in the cache, instead of fresh memory of its size.
     */
    private final int blockPieces;
    /**
     * Messages from this size to a rank of this host go through a shared-memory file whatever the eager limit says
     * (setting {@code sharedMemoryMinBytes}): the receiver unpacks straight from the file, with no socket copy.
     */
    private final long sharedMemoryMin;
    /**
     * Smallest message staged in shared memory for which the rank owes its receiver progress, as for one waiting for
     * its receiver's request over the connection (setting {@code stagedOweMinBytes}; 0 makes every staged message
     * count). A smaller one is fetched from the file; all its receiver says over the connection is that it is done
     * with it, which the rank takes in at its next wait or send. Counting those, each wait that ended before the
     * receiver said so woke the background thread to drive the loop, on the cores the two ranks' copies needed, and
     * slowed exchanges of such messages. From a MiB the woken thread pays for itself, unpacking the peer's next
     * message while the rank's own thread combines or copies (docs/history/benchmarks-2026-11.md).
     */
    private final long stagedOweMin;
    /** Whether collectives' large sends leave from the caller's memory (setting {@code sendInPlace}). */
    private final boolean sendInPlace;
    /**
     * Smallest message a collective sends in place (setting {@code sendInPlaceMinBytes}). Packing a rendezvous
     * message overlaps its request's round trip, and the sender's call returns once the data is packed; in place,
     * the sender waits for the round trip and for its receiver to drain the data. For messages of a few MiB that
     * wait costs more than the copy saves, for 16 MiB the two are even, and from 32 MiB in place wins
     * (docs/history/benchmarks-2026-11.md).
     */
    private final long sendInPlaceMin;
    /**
     * The same where this host runs more ranks than it has cores (setting {@code crowdedSendInPlaceMinBytes}): CPU
     * time is then what the ranks are short of, and a copy saved counts for more than the wait.
     */
    private final long crowdedSendInPlaceMin;
    /**
     * Smallest message from memory other than one run of a direct buffer that a collective sends packed piece by
     * piece as the socket takes it (setting {@code packLateMinBytes}).
     */
    private final long packLateMin;
    /**
     * The pieces such a message is packed and written in (setting {@code packLatePieceBytes}, default 1 MiB): small
     * enough that a piece is still in the core's cache when the kernel copies it into the socket, large enough that
     * writing it costs few system calls (256 KiB pieces saved as much kernel copying but spent it again in writes
     * and wake-ups).
     */
    private final int packLatePiece;
    /**
     * Whether such a message that is one run of a Java array goes into the socket straight from the array instead
     * (setting {@code arraySockets}, where the JVM can: {@link ArraySockets}), packed only where the socket fills.
     */
    private final boolean fromArrays;

    RendezvousSender(final Links links, final TcpCounters counters, final SharedMemory sharedMemory,
                     final boolean[] sameHost, final CommSettings settings) {
        this.links = links;
        this.counters = counters;
        this.sharedMemory = sharedMemory;
        this.sameHost = sameHost;
        this.eagerMax = settings.eagerMaxBytes();
        this.piece = settings.rendezvousPieceBytes();
        this.blockPieces = (int) Math.max(1, settings.rendezvousBlockBytes() / piece);
        this.sharedMemoryMin = settings.sharedMemoryMinBytes();
        this.stagedOweMin = settings.stagedOweMinBytes();
        this.sendInPlace = settings.sendInPlace();
        this.sendInPlaceMin = Math.max(eagerMax + 1, settings.sendInPlaceMinBytes());
        this.crowdedSendInPlaceMin = Math.max(eagerMax + 1, settings.crowdedSendInPlaceMinBytes());
        this.packLateMin = Math.max(eagerMax + 1, settings.packLateMinBytes());
        this.packLatePiece = settings.packLatePieceBytes();
        this.fromArrays = settings.arraySockets() && ArraySockets.AVAILABLE;
    }

    /** @return whether a message of {@code bytes} to {@code dest} goes through a shared-memory arena */
    boolean viaSharedMemory(final int dest, final long bytes) {
        return sharedMemory != null && sameHost[dest] && bytes >= sharedMemoryMin;
    }

    /** @return the size of the pieces rendezvous data travels in, in bytes */
    int pieceBytes() {
        return piece;
    }

    /** @return how many messages' data waits here for their receivers to ask for it */
    int parkedMessages() {
        return parked.size();
    }

    /**
     * Announces the message (RTS) and packs the data into memory that waits here. For a peer on this host that is a
     * shared-memory file whose path the announcement carries (SHM), so the receiver can unpack from it directly,
     * chunk by chunk as they are packed. Otherwise, or when no file can be made, direct blocks, so that the CTS round
     * trip overlaps the packing.
     */
    void park(final int dest, final int context, final int source, final int tag, final Memory memory,
              final Datatype type, final long count, final long bytes) {
        final long id = ids.incrementAndGet();
        final boolean staged = viaSharedMemory(dest, bytes) && bytes <= Message.CHUNK;
        if (staged) {
            // takes in the word of receivers done with earlier messages, so that their space, warm in the cache, is
            // used again instead of fresh memory further on
            links.pollOnce();
        }
        final SharedMemory.Segment segment = staged ? sharedMemory.takeMessage(dest, (int) bytes) : null;
        if (segment != null) {
            final StagedSend p = new StagedSend(dest, Unpooled.wrappedBuffer(segment.data((int) bytes)).clear(),
                segment, bytes);
            if (announce(id, p, Frames.rts(links.alloc(dest), context, source, tag, MessageAccess.basicName(type),
                bytes, id, segment.arena().file().toString(), segment.offset()))) {
                packStaged(id, p, memory, type, count);
            }
            return;
        }
        final BlockSend p = new BlockSend(dest, bytes, piece, blockPieces);
        if (announce(id, p, Frames.rts(links.alloc(dest), context, source, tag, MessageAccess.basicName(type),
            bytes, id, null, 0))) {
            packBlocks(id, p, memory, type, count);
        }
    }

    /** Packs an announced message into its blocks, sending each piece at once if its receiver has asked. */
    private void packBlocks(final long id, final BlockSend p, final Memory memory, final Datatype type,
                            final long count) {
        for (int i = 0; i < p.pieces; i++) {
            final int length = p.pieceLength(i);
            try {
                final int b = p.blockOf(i);
                if (p.blocks.get(b) == null) {
                    awaitRoom(p, b);
                    p.blocks.set(b, p.takeBlock(links, b));
                }
                Packer.pack(memory, memory.origin(), type, count, DataRepresentation.NATIVE, (long) i * p.pieceBytes,
                    p.blocks.get(b).nioBuffer(p.pieceAt(i) + Frames.RDATA_HEADER, length), 0, length);
            } catch (RuntimeException e) {
                packingFailed(id, p, e);
                throw e;
            }
            synchronized (p) {
                p.packedPieces = i + 1;
                if (p.abandoned) {
                    break;
                }
                if (p.waitingReceiveId >= 0) {
                    // its receiver asked while this was packing: the piece goes now, while the next is packed
                    p.writePieces(links);
                }
            }
            if (i + 1 < p.pieces) {
                // moves on what the socket did not take of the pieces written so far, on this thread
                links.pollOnce();
            }
        }
        final boolean abandoned;
        final boolean allSent;
        synchronized (p) {
            p.packed = true;
            abandoned = p.abandoned;
            allSent = p.sentPieces == p.pieces;
        }
        if (abandoned) {
            release(p);
        } else if (allSent) {
            // only once the last piece is queued: a goodbye written after the parked set is empty then follows it
            parked.remove(id);
            release(p);
        }
    }

    /**
     * Packs an announced message staged in shared memory, a chunk at a time, publishing after each how much is
     * packed: its receiver unpacks each chunk as soon as it is published, while this thread packs the next. A
     * receiver that could not map the file and asked over the connection gets the data once all is packed; one that
     * let the message go meanwhile (it refused it) stops the packing, which then gives the space back.
     */
    private void packStaged(final long id, final StagedSend p, final Memory memory, final Datatype type,
                            final long count) {
        final int bytes = (int) p.bytes;
        final ByteBuffer data = p.shared.nioBuffer(0, bytes);
        final int chunk = sharedMemory.chunkBytes();
        try {
            for (int at = 0; at < bytes; at += chunk) {
                final int length = Math.min(chunk, bytes - at);
                Packer.pack(memory, memory.origin(), type, count, DataRepresentation.NATIVE, at, data, at, length);
                p.segment.publish(at + length);
                if (p.abandoned()) {
                    break;
                }
            }
        } catch (RuntimeException e) {
            // the receiver stops reading at this count, then asks over the connection and is told why
            p.segment.publish(SharedMemory.PACKING_FAILED);
            packingFailed(id, p, e);
            final boolean abandoned;
            synchronized (p) {
                p.packed = true;
                abandoned = p.abandoned;
            }
            if (abandoned) {
                release(p);
            }
            throw e;
        }
        p.shared.writerIndex(bytes);
        final boolean abandoned;
        final long waiting;
        synchronized (p) {
            p.packed = true;
            abandoned = p.abandoned;
            waiting = p.waitingReceiveId;
        }
        if (abandoned) {
            release(p);
        } else if (waiting >= 0) {
            sendStaged(id, p, waiting);
        }
    }

    /**
     * A collective's message of at least {@code sendInPlaceMinBytes} ({@code crowdedSendInPlaceMinBytes} where ranks
     * outnumber cores) whose data is one run of a direct buffer goes by rendezvous straight from that memory, with
     * no packing: its pieces are written from it once the receiver asks, so the only copy on this side is the
     * kernel's. One of at least {@code packLateMinBytes} that is one run of other memory is packed piece by piece as
     * the socket takes it.
     *
     * @param crowded whether this host runs more ranks than it has cores
     * @return the message's future, done once nothing reads the caller's memory any more; or null when the message
     *     is to be sent as any other
     */
    CompletableFuture<Void> sendFromCaller(final int dest, final int context, final int source, final int tag,
                                           final Memory memory, final Datatype type, final long count,
                                           final long bytes, final boolean crowded) {
        // one run of memory to a peer over a connection: the only kind that may leave from the caller's memory
        final boolean oneRunOverTcp = sendInPlace && !viaSharedMemory(dest, bytes) && type.isContiguous();
        final long from = memory.origin() + type.lb();
        // a run beyond what one buffer can address is never one direct buffer either
        final ByteBuffer region = !oneRunOverTcp || bytes < (crowded ? crowdedSendInPlaceMin : sendInPlaceMin)
            || bytes > Integer.MAX_VALUE ? null
            : memory.directRegion(from, (int) bytes, false);
        if (region == null) {
            if (oneRunOverTcp && bytes >= packLateMin && EagerSender.covers(memory, from, bytes)) {
                return sendPackedLate(dest, context, source, tag, memory, type, count, bytes);
            }
            return null;
        }
        links.fabric().checkAlive(dest);
        counters.sentInPlace.addAndGet(bytes);
        final long id = ids.incrementAndGet();
        return announceFromCaller(id, new InPlaceSend(dest, Unpooled.wrappedBuffer(region), bytes, piece), context,
            source, tag, type);
    }

    /**
     * A large message of a collective whose data is not one run of a direct buffer: announced at once, and packed
     * only once its receiver asks, a piece at a time as the socket takes the previous ones, into a small buffer the
     * kernel copies from while it is still in the core's cache. Packed up front, the whole message would go through
     * memory twice more before the kernel read it (the collective leaves its buffers alone until the send is done,
     * so the data cannot change in between).
     */
    private CompletableFuture<Void> sendPackedLate(final int dest, final int context, final int source,
                                                   final int tag, final Memory memory, final Datatype type,
                                                   final long count, final long bytes) {
        links.fabric().checkAlive(dest);
        counters.packedLate.addAndGet(bytes);
        final long id = ids.incrementAndGet();
        return announceFromCaller(id, new LateSend(dest, id, memory, type, count, bytes, packLatePiece, this::packLate), context,
            source, tag, type);
    }

    /**
     * Announces a message whose data stays in the caller's memory until its receiver asks for it.
     *
     * @return the message's future: done once nothing reads that memory any more
     */
    private CompletableFuture<Void> announceFromCaller(final long id, final FromCallerSend p, final int context,
                                                       final int source, final int tag, final Datatype type) {
        announce(id, p, Frames.rts(links.alloc(p.dest), context, source, tag, MessageAccess.basicName(type), p.bytes,
            id, null, 0));
        return p.written;
    }

    /**
     * Packs and writes the next pieces of a message packed as it leaves, while fewer than {@link #PACK_LATE_WINDOW}
     * wait for the socket; each finished write calls this again (caller holds {@code p}'s lock). The record leaves
     * the parked set once its last piece is handed over.
     */
    void packLate(final LateSend p) {
        if (p.packingLate) {
            // a write finished within a write of the loop below: the loop goes on
            return;
        }
        p.packingLate = true;
        try {
            final Gate gate = links.gate(p.dest);
            while (p.sentPieces < p.pieces && p.writesOut < PACK_LATE_WINDOW && p.writeFailure == null
                && !p.taken()) {
                final int length = p.pieceLength(p.sentPieces);
                final ByteBuf frame;
                try {
                    frame = links.direct(Frames.RDATA_HEADER + length, "send", p.bytes, p.dest, "");
                } catch (ParioException e) {
                    packLateFailed(p, e);
                    break;
                }
                final long pieceFrom = (long) p.sentPieces * p.pieceBytes;
                final Object array = fromArrays ? p.memory.heapArray() : null;
                if (array == null) {
                    try {
                        Packer.pack(p.memory, p.memory.origin(), p.type, p.count, DataRepresentation.NATIVE,
                            pieceFrom, frame.nioBuffer(Frames.RDATA_HEADER, length), 0, length);
                    } catch (RuntimeException e) {
                        frame.release();
                        packLateFailed(p, e);
                        break;
                    }
                }
                frame.setIndex(Frames.RDATA_HEADER, Frames.RDATA_HEADER + length);
                // one reference for the write, which releases it, and one to give the buffer back for the next piece
                Frames.rdataInFront(frame, p.waitingReceiveId).retain();
                p.sentPieces++;
                p.writesOut++;
                final ChannelFutureListener written = f -> {
                    links.give(frame);
                    p.pieceWritten(links, f);
                    links.failedSend(p.dest, f);
                };
                if (array == null) {
                    gate.write(frame, written);
                } else {
                    // the header, then the data straight from the array; packed only what the socket does not take
                    frame.writerIndex(Frames.RDATA_HEADER);
                    gate.writeFilling(frame, Frames.RDATA_HEADER + length, length,
                        (target, at, n, from) -> Packer.pack(p.memory, p.memory.origin(), p.type, p.count,
                            DataRepresentation.NATIVE, pieceFrom + from - Frames.RDATA_HEADER, target.nioBuffer(at, n),
                            0, n),
                        new Gate.ArrayRun(array, p.memory.origin() + p.type.lb() + pieceFrom), written);
                }
            }
            if ((p.sentPieces == p.pieces || p.writeFailure != null) && p.take()) {
                // only once the last piece is queued: a goodbye written after the parked set is empty follows it
                parked.remove(p.id);
            }
            p.finish(links);
        } finally {
            p.packingLate = false;
        }
    }

    /**
     * Packing a piece of a message packed as it leaves failed (the checks before it was announced make that
     * unexpected): its receiver is told why no more data comes, and the send fails with the reason.
     */
    private void packLateFailed(final LateSend p, final RuntimeException e) {
        p.failure = "rank " + links.rank() + " could not send the data of this message: " + e.getMessage();
        p.writeFailure = e;
        refuse(p.id, p, p.waitingReceiveId);
    }

    /**
     * Before block {@code b} of a message whose receiver streams its data is packed, waits until block {@code b - 2}
     * has been written: packing stays at most two blocks ahead of the socket, so the message holds a few blocks of
     * memory however long it is, and those are spares reused from block to block rather than fresh memory whose
     * pages must be faulted in. A message whose receiver has not asked is packed whole (sends are buffered).
     */
    private void awaitRoom(final BlockSend p, final int b) {
        if (b < 2) {
            return;
        }
        while (true) {
            final CompletableFuture<Void> back = new CompletableFuture<>();
            p.blockBack = back;
            synchronized (p) {
                if (p.waitingReceiveId < 0 || p.abandoned) {
                    return;
                }
            }
            if (p.holds.get(b - 2) == 0 || links.fabric().departed(p.dest)) {
                return;
            }
            // a peer that stops reading is declared lost within the failure timeout, which fails the writes
            links.fabric().waitBriefly(back);
            back.join();
        }
    }

    /**
     * @return whether a parked message needs this rank's loop driven while no thread waits: one waiting for its
     *     receiver's request over the connection, or a large staged one (see {@link #stagedOweMin})
     */
    boolean owesProgress() {
        if (parked.isEmpty()) {
            return false;
        }
        for (final ParkedSend p : parked.values()) {
            if (!(p instanceof StagedSend) || p.bytes >= stagedOweMin) {
                return true;
            }
        }
        return false;
    }

    /**
     * Records a parked message and announces it.
     *
     * @return false when its receiver has left: nothing is announced and the buffer is freed (a failed receiver
     *     fails this send)
     */
    private boolean announce(final long id, final ParkedSend p, final ByteBuf announcement) {
        parked.put(id, p);
        if (!(p instanceof StagedSend)) {
            // its request may come while this thread does something else: the loop must not sleep through it. A
            // message staged in shared memory is fetched from there, and its receiver's word that it is done can
            // wait for this rank's next wait or send: waking the loop's thread for it cost the cores a 1 MiB message
            // needed
            links.owing();
        }
        if (links.fabric().departed(p.dest)) {
            announcement.release();
            synchronized (p) {
                // nothing will be packed into it any more
                p.packed = true;
            }
            release(parked.remove(id));
            links.fabric().checkAlive(p.dest);
            return false;
        }
        links.write(p.dest, announcement);
        return true;
    }

    /**
     * Packing an announced message failed: its receiver, once it asks, is told why instead of getting data
     * (NODATA), so its receive fails rather than waits.
     */
    private void packingFailed(final long id, final ParkedSend p, final RuntimeException e) {
        final long waiting;
        synchronized (p) {
            p.failure = "rank " + links.rank() + " could not send the data of this message: " + e.getMessage();
            waiting = p.waitingReceiveId;
        }
        // a staged message's space goes once its receiver, which may still read what was published, has asked
        if (p instanceof BlockSend blocks && p.take()) {
            blocks.dropHolds(links);
        }
        if (waiting >= 0) {
            refuse(id, p, waiting);
        }
    }

    /** Tells the receive that asked for a message whose packing failed why no data comes. */
    private void refuse(final long id, final ParkedSend p, final long receiveId) {
        if (!links.fabric().departed(p.dest)) {
            links.write(p.dest, Frames.noData(links.alloc(p.dest), receiveId, p.failure), f -> { });
        }
        parked.remove(id);
        if (p instanceof StagedSend) {
            release(p);
        }
    }

    private void release(final ParkedSend p) {
        if (p == null) {
            return;
        }
        synchronized (p) {
            if (!p.packed && p.failure == null) {
                // the packing thread still writes into the buffer: it must not serve another message yet; if it
                // waits for the socket to drain, it stops waiting
                p.abandoned = true;
                p.wakePacker();
                return;
            }
        }
        if (p.take()) {
            if (p instanceof StagedSend staged) {
                staged.shared.release();
                staged.segment.release();
            } else if (p instanceof FromCallerSend fromCaller) {
                synchronized (p) {
                    fromCaller.finish(links);
                }
            } else if (p instanceof BlockSend blocks) {
                blocks.dropHolds(links);
            }
        }
    }

    /** A peer asks for (or lets us drop) the data of a parked message. */
    void clearToSend(final int peer, final Frames.Cts cts) {
        final ParkedSend p = parked.get(cts.sendId());
        if (p == null || p.dest != peer) {
            LOG.log(System.Logger.Level.WARNING, "rank " + links.rank() + " ignored a request from rank " + peer
                + " for data it does not hold (send " + cts.sendId() + ")");
            return;
        }
        if (cts.receiveId() < 0) {
            release(parked.remove(cts.sendId()));
            return;
        }
        final String failure;
        synchronized (p) {
            failure = p.failure;
            if (failure == null && !(p instanceof StagedSend) && !p.abandoned) {
                // the pieces packed so far go now; the packing thread sends the others as it packs them
                p.waitingReceiveId = cts.receiveId();
                p.writePieces(links);
                if (!p.packed || p.abandoned || p instanceof LateSend) {
                    // a message packed as it leaves leaves the parked set with its last piece
                    return;
                }
            } else if (!p.packed && failure == null) {
                p.waitingReceiveId = cts.receiveId();
                return;
            }
        }
        if (failure != null) {
            refuse(cts.sendId(), p, cts.receiveId());
        } else if (p instanceof StagedSend staged) {
            sendStaged(cts.sendId(), staged, cts.receiveId());
        } else {
            // only once the last piece is queued: a goodbye written after the parked set is empty then follows it
            parked.remove(cts.sendId());
            release(p);
        }
    }

    /**
     * Writes the data of a message staged in shared memory, whose receiver could not map the file, to the receive
     * that asked for it, as one RDATA frame.
     */
    private void sendStaged(final long id, final StagedSend p, final long receiveId) {
        if (!p.take()) {
            return;
        }
        final int peer = p.dest;
        // header and data in one write, so no other frame can come between them
        final ByteBuf frame = Unpooled.wrappedBuffer(Frames.rdataHeader(links.alloc(peer), receiveId,
            p.shared.readableBytes()), p.shared);
        links.write(peer, frame, f -> {
                p.segment.release();
                links.failedSend(peer, f);
            });
        // only once the write is queued: a goodbye written after the parked set is empty then follows the data
        parked.remove(id);
    }

    /** A rank left: the data parked for it is dropped. */
    void departed(final int worldRank) {
        parked.entrySet().removeIf(e -> {
            if (e.getValue().dest == worldRank) {
                release(e.getValue());
                return true;
            }
            return false;
        });
    }

    /**
     * Waits (at most {@code timeoutMillis}) until every parked message has been fetched or its receiver left, then
     * drops what is left.
     */
    void drain(final long timeoutMillis) {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!parked.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!parked.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "rank " + links.rank() + " leaves with " + parked.size()
                + " message(s) no receive has asked for");
        }
        releaseAll();
    }

    /** Drops every parked message. */
    void releaseAll() {
        parked.values().forEach(this::release);
        parked.clear();
    }
}
