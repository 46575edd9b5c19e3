package org.pario.io;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.pario.io.storage.DirectBuffers;
import org.pario.io.storage.Storage;

/**
 * The buffers of one file's two-phase calls, kept from call to call and grown as needed: where a rank packs its
 * outgoing pieces, where an aggregator receives pieces (one set per round parity, since a pipelined write places
 * one round while the next arrives), where a rank receives its pieces of a read, and the aggregator's two round
 * windows. Used by the rank's own thread only.
 */
final class RoundBuffers {
    private final int ranks;
    private final int aggregators;
    private final Storage storage;
    /** Where outgoing pieces are packed: sends copy their data out before they return, so one buffer serves all. */
    private byte[] outgoing = new byte[0];
    /** Per round parity and rank, the aggregator's buffer for that rank's pieces. */
    private byte[][][] incoming;
    /** Per aggregator, this rank's buffer for its pieces of a read. */
    private byte[][] readBuffers;
    /** The two round windows of an aggregator, a spare block at the front of each (see {@link #window}). */
    private ByteBuffer[] windows;

    RoundBuffers(final int ranks, final int aggregators, final Storage storage) {
        this.ranks = ranks;
        this.aggregators = aggregators;
        this.storage = storage;
    }

    byte[] outgoing(final int len) {
        if (outgoing.length < len) {
            outgoing = new byte[len];
        }
        return outgoing;
    }

    /**
     * @return a buffer of at least {@code len} bytes for rank {@code r}'s piece of a round, kept from round to
     *     round (a piece is placed into the window before the next round's arrive)
     */
    byte[] incoming(final long round, final int r, final int len) {
        if (incoming == null) {
            incoming = new byte[2][ranks][];
        }
        final byte[][] set = incoming[(int) (round & 1)];
        if (set[r] == null || set[r].length < len) {
            set[r] = new byte[len];
        }
        return set[r];
    }

    /**
     * @return a buffer of at least {@code len} bytes for this rank's piece from aggregator {@code a} in a read
     *     round, kept from round to round (unpacked before the next round's arrive)
     */
    byte[] readBuffer(final int a, final int len) {
        if (readBuffers == null) {
            readBuffers = new byte[aggregators][];
        }
        if (readBuffers[a] == null || readBuffers[a].length < len) {
            readBuffers[a] = new byte[len];
        }
        return readBuffers[a];
    }

    /**
     * One of the two round windows, for the window that starts at file byte {@code ws}: index 0 is file byte
     * {@code ws}, and a buffer address is congruent to its file offset modulo the storage's block, so that the
     * block-aligned stretches of the file sit on aligned memory. Direct where the storage prefers it: direct I/O
     * then reads and writes the window with no staging copy, and buffered I/O with no temporary direct copy.
     * Native byte order, for the 8-byte moves of {@link Placement#place}.
     */
    ByteBuffer window(final int which, final long ws, final int size) {
        if (windows == null) {
            windows = new ByteBuffer[2];
        }
        final int block = Chunks.alignment(storage.preferredBlockSize());
        if (windows[which] == null) {
            final int span = Math.addExact(size, block);
            windows[which] = storage.prefersDirectBuffers() ? DirectBuffers.allocate(span, block)
                : ByteBuffer.allocate(span);
        }
        return windows[which].slice((int) Math.floorMod(ws, (long) block), size).order(ByteOrder.nativeOrder());
    }
}
