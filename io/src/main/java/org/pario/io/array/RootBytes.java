package org.pario.io.array;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.pario.comm.Communicator;
import org.pario.datatypes.Datatype;

/**
 * Rank 0's bytes (a header's text, a planned checkpoint's description) on every rank: one broadcast carries their
 * length and their first bytes, all of them up to some 64 KiB, and a second one the rest of longer ones. A
 * checkpoint's fixed cost is its collectives, and a length broadcast before the bytes was one more.
 */
final class RootBytes {
    /** The bytes of the first broadcast: a length and as many bytes as fit after it. */
    static final int FIRST_BROADCAST_BYTES = 64 << 10;

    private RootBytes() {
    }

    /**
     * Collective: rank 0's {@code bytes} on every rank.
     *
     * @param comm  the ranks
     * @param bytes on rank 0, the bytes to send, or null for none; ignored elsewhere
     * @return rank 0's bytes (rank 0's own array there), or null on every rank when rank 0 gave none
     */
    static byte[] broadcast(final Communicator comm, final byte[] bytes) {
        final boolean root = comm.rank() == 0;
        final ByteBuffer first = ByteBuffer.allocate(FIRST_BROADCAST_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        if (root) {
            first.putLong(bytes == null ? -1 : bytes.length);
            if (bytes != null) {
                first.put(bytes, 0, Math.min(bytes.length, first.remaining()));
            }
        }
        comm.bcast(first.array(), first.capacity(), Datatype.BYTE, 0);
        final long length = first.getLong(0);
        if (length < 0) {
            return null;
        }
        final int inFirst = (int) Math.min(length, first.capacity() - Long.BYTES);
        final byte[] all = root ? bytes : new byte[Math.toIntExact(length)];
        if (!root) {
            first.get(Long.BYTES, all, 0, inFirst);
        }
        if (all.length > inFirst) {
            // the rest straight from and into the arrays
            final ByteBuffer rest = ByteBuffer.wrap(all, inFirst, all.length - inFirst).slice();
            comm.bcast(rest, rest.capacity(), Datatype.BYTE, 0);
        }
        return all;
    }
}
