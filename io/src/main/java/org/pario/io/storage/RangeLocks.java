package org.pario.io.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Byte-range locks among the threads of one JVM, per file. Operating-system locks ({@code fcntl} through
 * {@code FileChannel.lock}) exclude other processes only: within one JVM, Java refuses overlapping locks on one
 * file with an exception instead of waiting. Ranks that run as threads of one JVM therefore take this lock first,
 * which serialises overlapping ranges among them, and then the system lock, which serialises them against other
 * JVMs.
 */
final class RangeLocks {
    private static final ConcurrentHashMap<Object, RangeLocks> FILES = new ConcurrentHashMap<>();

    private final List<long[]> held = new ArrayList<>();
    private int users;

    private RangeLocks() {
    }

    /** @return the table of a file, counted as used until {@link #release()} */
    static RangeLocks of(final Object fileKey) {
        return FILES.compute(fileKey, (k, t) -> {
            final RangeLocks table = t == null ? new RangeLocks() : t;
            synchronized (table) {
                table.users++;
            }
            return table;
        });
    }

    /** Forgets the table when its last user goes, so tables do not pile up over a long run. */
    void release(final Object fileKey) {
        FILES.computeIfPresent(fileKey, (k, t) -> {
            synchronized (t) {
                return --t.users == 0 ? null : t;
            }
        });
    }

    /** Waits until no thread of this JVM holds a range overlapping {@code [start, end)}, then holds it. */
    synchronized long[] acquire(final long start, final long end) throws InterruptedException {
        while (overlaps(start, end)) {
            wait();
        }
        final long[] range = {start, end};
        held.add(range);
        return range;
    }

    synchronized void unlock(final long[] range) {
        held.remove(range);
        notifyAll();
    }

    private boolean overlaps(final long start, final long end) {
        for (final long[] r : held) {
            if (r[0] < end && start < r[1]) {
                return true;
            }
        }
        return false;
    }
}
