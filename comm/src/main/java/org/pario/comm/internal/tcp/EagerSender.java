package org.pario.comm.internal.tcp;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.netty.buffer.ByteBuf;
import org.pario.comm.settings.CommSettings;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Packer;

/**
 * Sends a message eagerly, its credit already reserved: its data goes to the socket at once, whether or not its
 * receive is posted. By where the data is: written straight from one run of the caller's direct memory (a header
 * and the memory in one gathering write); on Java 22+, written straight from one run of a Java array (the header,
 * then the array); packed piece by piece as it leaves when it is one run of a heap array and its receiver likely
 * waits for it; otherwise packed into one direct frame buffer.
 */
final class EagerSender {
    private final Links links;
    private final Credit credit;
    private final TcpCounters counters;
    /**
     * Smallest eager message written straight from the caller's memory when that is one run of a direct buffer
     * (setting {@code eagerInPlaceMinBytes}): the only copy on this side is the kernel's, and the send returns once
     * the socket has taken it all. Packing first cost a 1 MiB message most of a copy of it before its first byte
     * left; below 64 KiB the two make no difference (docs/history/benchmarks-2026-11.md).
     */
    private final long inPlaceMin;
    /**
     * Smallest eager message from one run of memory other than a direct buffer (a heap array) packed in pieces as it
     * leaves (setting {@code eagerPieceMinBytes}). Pieces pay where the receiver waits idle for the message, and cost a
     * little where both ranks send and receive at once, as in an alltoall of 512 KiB messages; hence more than 512
     * KiB. Messages sent while earlier ones to the same peer are still unconsumed there (a stream, such as a
     * pipelined bcast's segments) go whole, as pieces slowed them (docs/history/benchmarks-2026-11.md).
     */
    private final long pieceMin;
    /** The pieces of such a message (setting {@code eagerPieceBytes}). */
    private final int piece;
    /**
     * Whether an eager message of at least {@link #inPlaceMin} that is one run of a Java array goes into the socket
     * straight from the array (setting {@code arraySockets}, where the JVM can: {@link ArraySockets}).
     */
    private final boolean fromArrays;

    EagerSender(final Links links, final Credit credit, final TcpCounters counters, final CommSettings settings) {
        this.links = links;
        this.credit = credit;
        this.counters = counters;
        this.inPlaceMin = settings.eagerInPlaceMinBytes();
        this.pieceMin = settings.eagerPieceMinBytes();
        this.piece = settings.eagerPieceBytes();
        this.fromArrays = settings.arraySockets() && ArraySockets.AVAILABLE;
    }

    /** Sends a message of {@code bytes} (at most the eager limit) to {@code dest}, its credit reserved. */
    void send(final int dest, final int context, final int source, final int tag, final Memory memory,
              final Datatype type, final long count, final long bytes) {
        final ByteBuffer region;
        try {
            region = bytes >= inPlaceMin && type.isContiguous()
                ? memory.directRegion(memory.origin() + type.lb(), (int) bytes, false) : null;
        } catch (RuntimeException e) {
            // nothing was sent: the credit it reserved is not spent
            credit.unreserve(dest, Credit.cost(bytes));
            throw e;
        }
        if (region != null) {
            sendInPlace(dest, context, source, tag, type, region, bytes);
            return;
        }
        // from an array the socket can read (Java 22+): the kernel's copy is the only one, as from direct memory
        final Object array = fromArrays && bytes >= inPlaceMin && type.isContiguous() ? memory.heapArray() : null;
        if (array != null && covers(memory, memory.origin() + type.lb(), bytes)) {
            sendInPieces(dest, context, source, tag, memory, type, count, (int) bytes,
                new Gate.ArrayRun(array, memory.origin() + type.lb()));
            return;
        }
        // only when less than one return of credit is outstanding besides this message: the peer has consumed the
        // earlier large messages and is likely waiting for this one (the credit of consumed small ones comes back
        // only a quarter of the budget at a time, so some is always out)
        if (bytes >= pieceMin && credit.peerCaughtUp(dest, Credit.cost(bytes)) && type.isContiguous()
            && covers(memory, memory.origin() + type.lb(), bytes)) {
            sendInPieces(dest, context, source, tag, memory, type, count, (int) bytes, null);
            return;
        }
        // packed straight into one direct frame buffer, which a gate can write to the socket at once; a large one is
        // kept beyond the write (which releases it once) to serve a later message
        final ByteBuf frame;
        try {
            frame = Frames.dataFrom(size -> links.direct(size, "send", bytes, dest, ""), context, source, tag,
                memory, type, count, (int) bytes).retain();
        } catch (RuntimeException e) {
            credit.unreserve(dest, Credit.cost(bytes));
            throw e;
        }
        links.write(dest, frame, f -> {
                links.give(frame);
                links.failedSend(dest, f);
            });
    }

    /** @return whether {@code memory} holds bytes {@code [from, from + bytes)} */
    static boolean covers(final Memory memory, final long from, final long bytes) {
        return from >= 0 && from <= memory.byteSize() - bytes;
    }

    /**
     * Writes an eager message's frame from the caller's direct memory and waits until the socket has taken it: the
     * caller may change that memory once the send returns.
     */
    private void sendInPlace(final int dest, final int context, final int source, final int tag, final Datatype type,
                             final ByteBuffer region, final long bytes) {
        counters.sentEagerInPlace.addAndGet(bytes);
        final CompletableFuture<Void> written = new CompletableFuture<>();
        links.write(dest, Frames.dataInPlace(links.alloc(dest), context, source, tag, type, region), f -> {
            if (f.isSuccess()) {
                written.complete(null);
            } else {
                written.completeExceptionally(f.cause());
                links.failedSend(dest, f);
            }
        });
        links.fabric().waitBriefly(written);
        try {
            written.join();
        } catch (CompletionException e) {
            throw links.sendFailed(dest, bytes, e.getCause());
        }
    }

    /**
     * Sends an eager message whose data is one run of memory the socket cannot read (a heap array) packed a piece
     * at a time, each piece written into the socket as soon as it is packed: the receiver reads and unpacks one
     * while this thread packs the next, where packing the whole message first kept the receiver idle until the last
     * byte was packed. The pieces go through one small buffer of the sending thread's ({@link Gate#writeFilling}), so
     * packing writes memory still in the core's cache and the kernel copies from there. The send returns once every
     * piece is in the socket or handed to Netty, as a packed send does. The memory holds the run ({@link #covers}),
     * so packing a piece cannot fail once the first has left. Given where the run lies in a Java array ({@code
     * array}, Java 22+), the socket takes the data straight from the array instead, and only what it does not take
     * is packed.
     */
    private void sendInPieces(final int dest, final int context, final int source, final int tag, final Memory memory,
                              final Datatype type, final long count, final int bytes, final Gate.ArrayRun array) {
        final ByteBuf frame;
        try {
            frame = Frames.dataHeaderFor(size -> links.direct(size, "send", bytes, dest, ""), context, source, tag,
                type, bytes).retain();
        } catch (RuntimeException e) {
            credit.unreserve(dest, Credit.cost(bytes));
            throw e;
        }
        if (array == null) {
            counters.sentEagerInPieces.addAndGet(bytes);
        }
        final int header = frame.writerIndex();
        final long origin = memory.origin();
        final boolean filled = links.gate(dest).writeFilling(frame, header + bytes, piece,
            (target, at, length, from) -> Packer.pack(memory, origin, type, count, DataRepresentation.NATIVE,
                from - header, target.nioBuffer(at, length), 0, length),
            array, f -> {
                links.give(frame);
                links.failedSend(dest, f);
            });
        if (filled) {
            counters.eagerPiecesFilledSocket.incrementAndGet();
        }
    }
}
