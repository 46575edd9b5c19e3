package org.pario.comm.internal.tcp;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.netty.buffer.ByteBuf;

/**
 * A message sent over the connection whose data is packed into direct blocks as it waits: announced before its data
 * is packed, packed in pieces, each an RDATA frame of its own. A CTS that comes while the data is being packed is
 * answered with the pieces packed so far, and the packing thread sends each later one as soon as it is packed (or,
 * when packing fails, the reason). Blocks hold {@code blockPieces} pieces each, are made as packing reaches them and
 * given back as soon as their pieces are written, so a message of any length (beyond 2 GiB too) needs no single
 * buffer of its size, and its memory goes as its data leaves.
 */
final class BlockSend extends ParkedSend {
    /** Pieces per block. */
    final int blockPieces;
    /** Blocks of pieces, each with room for an RDATA header in front of every piece; null until packed into. */
    final AtomicReferenceArray<ByteBuf> blocks;
    /**
     * Holds on each block: one for this record until it is taken, and one per piece of it being written; whoever
     * drops the last gives the block back.
     */
    final AtomicIntegerArray holds;
    /** Guarded by this: blocks whose record hold was dropped once every piece of them was handed to Netty. */
    int blocksHandedOver;
    /** Completed when a block goes back; what a packing thread far ahead of the socket waits for. */
    volatile CompletableFuture<Void> blockBack = new CompletableFuture<>();

    BlockSend(final int dest, final long bytes, final int pieceBytes, final int blockPieces) {
        super(dest, bytes, piecesOf(bytes, pieceBytes), pieceBytes);
        this.blockPieces = blockPieces;
        final int blockCount = (pieces + blockPieces - 1) / blockPieces;
        this.blocks = new AtomicReferenceArray<>(blockCount);
        this.holds = new AtomicIntegerArray(blockCount);
        for (int b = 0; b < blockCount; b++) {
            holds.set(b, 1);
        }
    }

    /** @return the block that holds piece {@code i} */
    int blockOf(final int i) {
        return i / blockPieces;
    }

    /** @return where piece {@code i}'s RDATA header goes in its block; its data follows the header */
    int pieceAt(final int i) {
        return i % blockPieces * (pieceBytes + Frames.RDATA_HEADER);
    }

    /** @return the bytes of block {@code b}: its pieces, each with its header */
    int blockBytes(final int b) {
        final int first = b * blockPieces;
        final int last = Math.min(pieces, first + blockPieces) - 1;
        return pieceAt(last) + Frames.RDATA_HEADER + pieceLength(last);
    }

    /**
     * @return a new block for the pieces of block {@code b}
     * @throws org.pario.ParioException (MEMORY) when no direct memory is left for it: a message whose receive has not
     *     asked for it must be held whole, and the JVM's direct memory is bounded ({@code -XX:MaxDirectMemorySize},
     *     by default the heap's maximum)
     */
    ByteBuf takeBlock(final Links links, final int b) {
        return links.direct(blockBytes(b), "hold", bytes, dest, " until its receive asks for the data ("
            + (long) b * blockPieces * pieceBytes + " bytes of it packed; raise -XX:MaxDirectMemorySize, or post "
            + "the receive before the send)");
    }

    /**
     * Writes the pieces packed and not yet sent to the receive that asked for them, each an RDATA frame that shares
     * its block (caller holds this record's lock).
     */
    @Override
    void writePieces(final Links links) {
        final long receiveId = waitingReceiveId;
        final Gate gate = links.gate(dest);
        for (; sentPieces < packedPieces; sentPieces++) {
            final int i = sentPieces;
            final int b = blockOf(i);
            // a slice that shares the block and counts as a reference to it: the write releases it
            final ByteBuf frame = Frames.rdataInFront(blocks.get(b).retainedSlice(pieceAt(i),
                Frames.RDATA_HEADER + pieceLength(i)).readerIndex(Frames.RDATA_HEADER), receiveId);
            holds.incrementAndGet(b);
            gate.write(frame, f -> {
                    dropHold(links, b);
                    links.failedSend(dest, f);
                });
            if (i + 1 == pieces || blockOf(i + 1) != b) {
                // the block's last piece is on its way: the block goes back as soon as its writes are done
                blocksHandedOver = b + 1;
                dropHold(links, b);
            }
        }
    }

    /** Drops one hold on block {@code b}, giving the block back with the last. */
    void dropHold(final Links links, final int b) {
        if (holds.decrementAndGet(b) == 0) {
            final ByteBuf block = blocks.get(b);
            if (block != null) {
                links.give(block);
            }
            blockBack.complete(null);
        }
    }

    /** Drops the record's hold on every block it still holds: each goes back once its pieces are written. */
    void dropHolds(final Links links) {
        final int from;
        synchronized (this) {
            from = blocksHandedOver;
            blocksHandedOver = holds.length();
        }
        for (int b = from; b < holds.length(); b++) {
            dropHold(links, b);
        }
    }

    @Override
    void wakePacker() {
        blockBack.complete(null);
    }
}
