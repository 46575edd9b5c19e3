package org.pario.io;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;

import org.pario.io.storage.DirectBuffers;
import org.pario.io.storage.Storage;

/**
 * The buffers of one file's two-phase calls, kept from call to call and grown as needed: where a rank packs its
 * outgoing pieces, where an aggregator receives pieces (one set per round parity, since a pipelined write places
 * one round while the next arrives), where a rank receives its pieces of a read, the aggregator's two round windows
 * and the mask of the window bytes a round placed. Used by the rank's own thread only. Where the storage prefers
 * direct buffers (a local file) every buffer but the mask is direct, off the heap; elsewhere they are heap buffers.
 *
 * <p>The mask is kept rather than made every round: made anew, it was 2 MiB of garbage a 16 MiB round (128 MiB a GiB
 * on a host's one aggregator), and the young collections it caused copied the live buffers into memory the JVM had
 * not touched yet, a page fault per page. Where a fault is dear (a virtual machine; {@code bench/c/first_touch.c}
 * measures it) that was a third of a CYCLIC(1) checkpoint's write (docs/benchmarks.md, "Checkpoints").
 *
 * <p>A closed file hands its direct buffers on to the next files the JVM opens ({@link #release}; at most 128 MiB
 * a JVM, {@code -Dpario.io.keptBufferBytes=N} sets the bound and 0 keeps none), each later request taking the
 * smallest kept buffer that fits. Off the heap, they cost the heap nothing and no collection copies them; made anew,
 * a file's buffers were first touched again: on a host's aggregator some 4,000-14,000 page faults a warm 1 GiB
 * read or write, a tenth of its time on this project's virtual machine, and the young collections of a JVM's first
 * checkpoint copied the heap pieces into memory touched for the first time.
 *
 * <p>A closed file can also hand its whole set on to the next file the JVM opens with the same ranks and
 * aggregators, the same storage kind and the same role for the rank ({@link #forFile}), with
 * {@code -Dpario.io.keptRoundBuffers=N} (at most N sets kept, the most recent). It is off by default: measured when
 * a local file's pieces still lived on the heap, the sets kept raised its occupancy, and a later large allocation
 * (a restore's part) then paid for the heap's growth instead (the history of docs/benchmarks.md, "2026-11-29,
 * evening"); where the buffers are heap buffers (storage that does not prefer direct ones) that still holds.
 */
final class RoundBuffers {
    /** The system property that sets how many released sets the JVM keeps for later files (default 0). */
    static final String KEPT_PROPERTY = "pario.io.keptRoundBuffers";
    /** The system property that bounds the bytes of closed files' direct buffers the JVM keeps (default 128 MiB). */
    static final String KEPT_BYTES_PROPERTY = "pario.io.keptBufferBytes";
    private static final long DEFAULT_KEPT_BYTES = 128L << 20;
    /** Released sets, most recent first. */
    private static final ArrayDeque<RoundBuffers> IDLE = new ArrayDeque<>();
    /** Direct buffers of released files, most recent first; guarded by {@link #IDLE}. */
    private static final ArrayDeque<ByteBuffer> IDLE_BUFFERS = new ArrayDeque<>();
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final int ranks;
    private final int aggregators;
    /** Whether the rank is one of the aggregators, whose buffers are the large ones. */
    private final boolean aggregator;
    private final boolean direct;
    /** What window addresses are congruent to their file offsets modulo: the storage's block, as a power of two. */
    private final int block;
    /** Where outgoing pieces are packed: sends copy their data out before they return, so one buffer serves all. */
    private ByteBuffer outgoing = EMPTY;
    /** Per round parity and rank, the aggregator's buffer for that rank's pieces. */
    private ByteBuffer[][] incoming;
    /** Per aggregator, this rank's buffer for its pieces of a read. */
    private ByteBuffer[] readBuffers;
    /** The two round windows of an aggregator, a spare block at the front of each (see {@link #window}). */
    private ByteBuffer[] windows;
    /** One bit per window byte: which bytes a write round placed. */
    private long[] covered = new long[0];

    private RoundBuffers(final int ranks, final int aggregators, final boolean aggregator, final boolean direct,
                         final int block) {
        this.ranks = ranks;
        this.aggregators = aggregators;
        this.aggregator = aggregator;
        this.direct = direct;
        this.block = block;
    }

    /**
     * @param ranks       the file's ranks
     * @param aggregators how many of them aggregate
     * @param aggregator  whether this rank is one of them
     * @param storage     the file's storage
     * @return the buffers for a file's two-phase calls: a set a closed file released for the same ranks,
     *     aggregators, role and storage kind where the JVM keeps one, otherwise a new, empty one
     */
    static RoundBuffers forFile(final int ranks, final int aggregators, final boolean aggregator,
                                final Storage storage) {
        final boolean direct = storage.prefersDirectBuffers();
        final int block = Chunks.alignment(storage.preferredBlockSize());
        synchronized (IDLE) {
            for (final Iterator<RoundBuffers> it = IDLE.iterator(); it.hasNext(); ) {
                final RoundBuffers b = it.next();
                if (b.ranks == ranks && b.aggregators == aggregators && b.aggregator == aggregator
                    && b.direct == direct && b.block == block) {
                    it.remove();
                    return b;
                }
            }
        }
        return new RoundBuffers(ranks, aggregators, aggregator, direct, block);
    }

    /**
     * Hands these buffers on to later files: the whole set where the JVM keeps sets, otherwise the direct buffers.
     * The caller must not use them again, and nothing may still be reading or writing them.
     */
    void release() {
        final int kept = kept();
        final long keptBytes = keptBytes();
        synchronized (IDLE) {
            if (kept > 0) {
                IDLE.addFirst(this);
            } else if (direct) {
                keep(outgoing);
                if (incoming != null) {
                    keep(incoming[0]);
                    keep(incoming[1]);
                }
                keep(readBuffers);
                keep(windows);
                outgoing = EMPTY;
                incoming = null;
                readBuffers = null;
                windows = null;
            }
            while (IDLE.size() > Math.max(0, kept)) {
                IDLE.removeLast();
            }
            trimKept(keptBytes);
        }
    }

    /**
     * Hands direct buffers of a closing file other than its round buffers (its packing chunks) on to later files, as
     * {@link #release} does; the caller must not use them again.
     */
    static void keepReleased(final ByteBuffer... buffers) {
        final long keptBytes = keptBytes();
        synchronized (IDLE) {
            keep(buffers);
            trimKept(keptBytes);
        }
    }

    /** Drops the oldest kept buffers past {@code keptBytes}; the caller holds the lock. */
    private static void trimKept(final long keptBytes) {
        long bytes = 0;
        for (final Iterator<ByteBuffer> it = IDLE_BUFFERS.iterator(); it.hasNext(); ) {
            final ByteBuffer b = it.next();
            bytes += b.capacity();
            if (bytes > keptBytes) {
                it.remove();
            }
        }
    }

    /** Adds the direct ones of {@code buffers} (any may be null) to the kept buffers; the caller holds the lock. */
    private static void keep(final ByteBuffer... buffers) {
        if (buffers == null) {
            return;
        }
        for (final ByteBuffer b : buffers) {
            if (b != null && b.isDirect() && b.capacity() > 0) {
                IDLE_BUFFERS.addFirst(b);
            }
        }
    }

    /** @return how many released sets the JVM keeps: {@value #KEPT_PROPERTY}, 0 where it is not set */
    static int kept() {
        return Integer.getInteger(KEPT_PROPERTY, 0);
    }

    /** @return how many bytes of closed files' direct buffers the JVM keeps: {@value #KEPT_BYTES_PROPERTY} */
    static long keptBytes() {
        return Long.getLong(KEPT_BYTES_PROPERTY, DEFAULT_KEPT_BYTES);
    }

    /**
     * @param bytes     the capacity wanted
     * @param alignment what the first byte's address must be a multiple of
     * @return the smallest kept direct buffer of at least {@code bytes} (and at most twice as many) whose first
     *     byte is aligned so, or null; taken from the kept ones (a file's other direct buffers, its packing chunks,
     *     take them too, so that they are not first touched again)
     */
    static ByteBuffer keptBuffer(final int bytes, final int alignment) {
        synchronized (IDLE) {
            ByteBuffer best = null;
            for (final ByteBuffer b : IDLE_BUFFERS) {
                if (b.capacity() >= bytes && b.capacity() / 2 <= bytes && b.alignmentOffset(0, alignment) == 0
                    && (best == null || b.capacity() < best.capacity())) {
                    best = b;
                }
            }
            if (best != null) {
                IDLE_BUFFERS.remove(best);
            }
            return best;
        }
    }

    /** @return a buffer for pieces of at least {@code len} bytes: direct (a kept one if any) where the storage is */
    private ByteBuffer pieceBuffer(final int len) {
        if (!direct) {
            return ByteBuffer.allocate(len);
        }
        final ByteBuffer kept = keptBuffer(len, 1);
        return kept != null ? kept : ByteBuffer.allocateDirect(len);
    }

    ByteBuffer outgoing(final int len) {
        if (outgoing.capacity() < len) {
            outgoing = pieceBuffer(len);
        }
        return outgoing;
    }

    /**
     * @return a buffer of at least {@code len} bytes for rank {@code r}'s piece of a round, kept from round to
     *     round (a piece is placed into the window before the next round's arrive)
     */
    ByteBuffer incoming(final long round, final int r, final int len) {
        if (incoming == null) {
            incoming = new ByteBuffer[2][ranks];
        }
        final ByteBuffer[] set = incoming[(int) (round & 1)];
        if (set[r] == null || set[r].capacity() < len) {
            set[r] = pieceBuffer(len);
        }
        return set[r];
    }

    /**
     * @return a buffer of at least {@code len} bytes for this rank's piece from aggregator {@code a} in a read
     *     round, kept from round to round (unpacked before the next round's arrive)
     */
    ByteBuffer readBuffer(final int a, final int len) {
        if (readBuffers == null) {
            readBuffers = new ByteBuffer[aggregators];
        }
        if (readBuffers[a] == null || readBuffers[a].capacity() < len) {
            readBuffers[a] = pieceBuffer(len);
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
        final int span = Math.addExact(size, block);
        if (windows[which] == null || windows[which].capacity() < span) {
            // placed as a new one would be, for the same reason
            final ByteBuffer kept = direct ? keptBuffer(span, DirectBuffers.placement(span, block)) : null;
            windows[which] = kept != null ? kept : direct ? DirectBuffers.allocate(span, block)
                : ByteBuffer.allocate(span);
        }
        return windows[which].slice((int) Math.floorMod(ws, (long) block), size).order(ByteOrder.nativeOrder());
    }

    /**
     * @param longs the mask's length in longs: one bit per byte of the round's window
     * @return the mask of the bytes a write round placed, all clear in its first {@code longs} longs
     */
    long[] covered(final int longs) {
        if (covered.length < longs) {
            covered = new long[longs];
        } else {
            Arrays.fill(covered, 0, longs, 0L);
        }
        return covered;
    }
}
