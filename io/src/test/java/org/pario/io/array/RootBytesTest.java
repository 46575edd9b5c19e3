package org.pario.io.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.comm.LocalCluster;

/** Rank 0's bytes reach every rank whole, whatever their length, and "none" reaches every rank as none. */
@Timeout(60)
class RootBytesTest {
    @Test
    void bytesOfEveryLengthAroundTheFirstBroadcastReachEveryRankWhole() {
        final int inFirst = RootBytes.FIRST_BROADCAST_BYTES - Long.BYTES;
        for (final int length : new int[] {0, 1, 1000, inFirst - 1, inFirst, inFirst + 1, 3 * inFirst + 17}) {
            final byte[] sent = new byte[length];
            new Random(length).nextBytes(sent);
            LocalCluster.run(3, comm -> assertArrayEquals(sent, RootBytes.broadcast(comm, comm.rank() == 0 ? sent
                : new byte[] {42}), length + " bytes, rank " + comm.rank()));
        }
    }

    @Test
    void noneFromRankZeroIsNoneOnEveryRank() {
        LocalCluster.run(3, comm -> assertNull(RootBytes.broadcast(comm, comm.rank() == 0 ? null : new byte[8]),
            "rank " + comm.rank()));
    }
}
