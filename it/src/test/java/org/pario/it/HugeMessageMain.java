package org.pario.it;

import org.pario.comm.Communicator;
import org.pario.comm.Pario;
import org.pario.comm.Status;
import org.pario.datatypes.Datatype;

/**
 * A 2-rank job that sends one message of 2.25 GiB from rank 0 to rank 1. Rank 0 sends a block of 768 MiB less 56
 * bytes three times over, as an {@code hvector} of stride 0 (a send may read memory more than once), so that the
 * boundaries of the pieces the message travels in fall inside blocks; rank 1 probes for it, then receives it into one
 * {@code long[]} and checks every value. Rank 0 prints {@code rank 0 sending} right before it sends; each rank then
 * prints {@code rank R ok BYTES} or {@code rank R failed: MESSAGE}.
 */
public final class HugeMessageMain {
    /** Longs per block: 768 MiB less 7 longs. */
    static final int BLOCK = 3 * (1 << 25) - 7;
    static final int BLOCKS = 3;

    private HugeMessageMain() {
    }

    static long value(final int i) {
        return i * 0x9E3779B97F4A7C15L + 12345;
    }

    public static void main(final String[] args) {
        int rank = -1;
        try (Communicator world = Pario.init()) {
            rank = world.rank();
            long bytes = 0;
            if (rank == 0) {
                final long[] block = new long[BLOCK];
                for (int i = 0; i < BLOCK; i++) {
                    block[i] = value(i);
                }
                world.barrier();
                System.out.println("rank 0 sending");
                world.send(block, 1, Datatype.hvector(BLOCKS, BLOCK, 0, Datatype.LONG), 1, 3);
                bytes = 8L * BLOCK * BLOCKS;
            } else if (rank == 1) {
                final long[] all = new long[BLOCK * BLOCKS];
                world.barrier();
                // the message is announced before any receive is posted for it: its data must wait at rank 0 (this
                // rank's heap has no room for a second copy of it)
                final Status announced = world.probe(0, 3);
                if (announced.bytes() != 8L * all.length) {
                    throw new IllegalStateException("probe saw " + announced.bytes() + " bytes");
                }
                final Status status = world.recv(all, all.length, Datatype.LONG, 0, 3);
                for (int b = 0; b < BLOCKS; b++) {
                    for (int i = 0; i < BLOCK; i++) {
                        if (all[b * BLOCK + i] != value(i)) {
                            throw new IllegalStateException("long " + (b * (long) BLOCK + i) + " is "
                                + all[b * BLOCK + i] + ", expected " + value(i));
                        }
                    }
                }
                bytes = status.bytes();
            } else {
                world.barrier();
            }
            System.out.println("rank " + rank + " ok " + bytes);
        } catch (RuntimeException e) {
            System.out.println("rank " + rank + " failed: " + e);
            e.printStackTrace(System.out);
            System.exit(3);
        }
    }
}
