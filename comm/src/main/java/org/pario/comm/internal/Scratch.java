package org.pario.comm.internal;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Byte arrays of reductions (packed operands, partial results, blocks received from partners), and of eager messages
 * that arrive before their receive, kept for the next use instead of left to the garbage collector. G1 puts an
 * array of half a heap region or more (2 MiB with a few GiB of heap) straight into the old generation; a 16 MiB
 * allreduce allocated 24 MiB of them per call, and every few calls one started a young pause and a concurrent
 * marking cycle (1.5-2.5 ms of pause every fifth call, and marking threads on the cores the transfer needs).
 *
 * <p>Smaller arrays are kept too, from a page on: a 64 KiB allreduce at 4 ranks allocated four times its operand
 * per call (255 KB), and while a young JVM's heap grows every new array lands on pages the kernel must first clear.
 * Keeping them, and the arrays of messages that arrive before their receive, it allocates 3 KB per call.
 *
 * <p>Arrays are handed out by exact length, so their users may go on trusting {@code length}; their contents are
 * whatever the last user left, so every user overwrites all it reads. Arrays of at least {@link #MIN_BYTES} are
 * kept, up to {@code limitBytes} in all (for reductions {@code -Dpario.scratchBytes}, default 128 MiB, and at most
 * the rank's share of an eighth of the heap among the ranks of its JVM; 0 keeps none) and {@link #MAX_ARRAYS}
 * arrays, the oldest given up first. Arrays below a page take no more than a bump of the allocation pointer and
 * are not kept. Thread-safe: nonblocking collectives of one rank may run at once, and messages arrive meanwhile.
 */
public final class Scratch {
    /** The smallest array kept. */
    public static final int MIN_BYTES = 4 << 10;
    /** The most arrays kept at once, whatever their size: a search for a length looks at each. */
    public static final int MAX_ARRAYS = 64;

    private final long limitBytes;
    private final ArrayDeque<byte[]> kept = new ArrayDeque<>();
    private long held;

    /** @param limitBytes the most bytes kept at once; 0 keeps none */
    public Scratch(final long limitBytes) {
        this.limitBytes = limitBytes;
    }

    /**
     * @param ranksInThisJvm ranks whose scratch stores share this JVM's heap
     * @return a scratch store with the configured limit, within its rank's share of an eighth of the heap
     */
    public static Scratch configured(final int ranksInThisJvm) {
        final long limit = Long.getLong("pario.scratchBytes", 128L << 20);
        final long share = Runtime.getRuntime().maxMemory() / 8 / Math.max(1, ranksInThisJvm);
        return new Scratch(Math.max(0, Math.min(limit, share)));
    }

    /** @return an array of exactly {@code length} bytes; its contents are undefined */
    public byte[] take(final int length) {
        if (length >= MIN_BYTES) {
            synchronized (this) {
                final Iterator<byte[]> it = kept.descendingIterator();
                while (it.hasNext()) {
                    final byte[] a = it.next();
                    if (a.length == length) {
                        it.remove();
                        held -= length;
                        return a;
                    }
                }
            }
        }
        return new byte[length];
    }

    /** Takes back an array nobody uses any more (null is ignored). */
    public void give(final byte[] a) {
        if (a == null || a.length < MIN_BYTES || a.length > limitBytes) {
            return;
        }
        synchronized (this) {
            for (final byte[] k : kept) {
                if (k == a) {
                    throw new IllegalStateException("a scratch array was given back twice");
                }
            }
            kept.addLast(a);
            held += a.length;
            while (held > limitBytes || kept.size() > MAX_ARRAYS) {
                held -= kept.removeFirst().length;
            }
        }
    }

    /** @return bytes kept now */
    public synchronized long held() {
        return held;
    }
}
