package org.pario.comm.internal;

import java.lang.reflect.Array;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Byte arrays of reductions (packed operands, partial results, blocks received from partners), and of eager messages
 * that arrive before their receive, kept for the next use instead of left to the garbage collector; also arrays of
 * the caller's kind ({@code double[]} and the like) in which a large allreduce keeps its partial results. G1 puts an
 * array of half a heap region or more (2 MiB with a few GiB of heap) straight into the old generation; a large
 * allreduce allocated several such arrays per call, and every few calls one started a young pause and a concurrent
 * marking cycle, whose threads then ran on the cores the transfer needs.
 *
 * <p>Smaller arrays are kept too, from a page on: a small allreduce allocated several times its operand per call,
 * and while a young JVM's heap grows every new array lands on pages the kernel must first clear.
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
    private final ArrayDeque<Object> kept = new ArrayDeque<>();
    private long held;

    /** @param limitBytes the most bytes kept at once; 0 keeps none */
    public Scratch(final long limitBytes) {
        this.limitBytes = limitBytes;
    }

    /**
     * @param ranksInThisJvm ranks whose scratch stores share this JVM's heap
     * @param limit          the most bytes to keep (setting {@code scratchBytes})
     * @return a scratch store with that limit, within its rank's share of an eighth of the heap
     */
    public static Scratch configured(final int ranksInThisJvm, final long limit) {
        final long share = Runtime.getRuntime().maxMemory() / 8 / Math.max(1, ranksInThisJvm);
        return new Scratch(Math.max(0, Math.min(limit, share)));
    }

    /** @return an array of exactly {@code length} bytes; its contents are undefined */
    public byte[] take(final int length) {
        final Object kept = length >= MIN_BYTES ? keptArray(byte.class, length) : null;
        return kept != null ? (byte[]) kept : new byte[length];
    }

    /**
     * @param component a primitive type: {@code byte.class}, or {@code double.class} and the like for reductions that
     *                  keep partial results in the caller's kind of array
     * @return an array of exactly {@code length} elements of it; its contents are undefined
     */
    public Object takeArray(final Class<?> component, final int length) {
        final Object kept = (long) length * bytesOf(component) >= MIN_BYTES ? keptArray(component, length) : null;
        return kept != null ? kept : Array.newInstance(component, length);
    }

    /** @return a kept array of exactly that kind and length, no longer kept, or null */
    private synchronized Object keptArray(final Class<?> component, final int length) {
        final Iterator<Object> it = kept.descendingIterator();
        while (it.hasNext()) {
            final Object a = it.next();
            if (a.getClass().getComponentType() == component && Array.getLength(a) == length) {
                it.remove();
                held -= length * bytesOf(component);
                return a;
            }
        }
        return null;
    }

    /** Takes back an array nobody uses any more (null is ignored). */
    public void give(final byte[] a) {
        giveArray(a);
    }

    /** Takes back a primitive array from {@link #takeArray} that nobody uses any more (null is ignored). */
    public void giveArray(final Object a) {
        if (a == null) {
            return;
        }
        final long bytes = bytesIn(a);
        if (bytes < MIN_BYTES || bytes > limitBytes) {
            return;
        }
        synchronized (this) {
            for (final Object k : kept) {
                if (k == a) {
                    throw new IllegalStateException("a scratch array was given back twice");
                }
            }
            kept.addLast(a);
            held += bytes;
            while (held > limitBytes || kept.size() > MAX_ARRAYS) {
                held -= bytesIn(kept.removeFirst());
            }
        }
    }

    private static long bytesIn(final Object array) {
        return Array.getLength(array) * bytesOf(array.getClass().getComponentType());
    }

    private static long bytesOf(final Class<?> component) {
        if (component == byte.class || component == boolean.class) {
            return 1;
        }
        if (component == short.class || component == char.class) {
            return 2;
        }
        return component == int.class || component == float.class ? 4 : 8;
    }

    /** @return bytes kept now */
    public synchronized long held() {
        return held;
    }
}
