package org.pario.io.array;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The CRC-32C arithmetic agrees with the JDK's checksum of the whole bytes. */
@Timeout(60)
class Crc32cTest {
    private static int crc(final byte[] b, final int from, final int to) {
        final CRC32C c = new CRC32C();
        c.update(b, from, to - from);
        return (int) c.getValue();
    }

    @Test
    void zerosAndCombineMatchTheWholeBytes() {
        final Random r = new Random(7);
        for (final int n : new int[] {0, 1, 7, 4096, 1 << 20, 3_000_001}) {
            assertEquals(crc(new byte[n], 0, n), Crc32c.zeros(n), n + " zeros");
        }
        final byte[] b = new byte[100_000];
        r.nextBytes(b);
        for (final int cut : new int[] {0, 1, 500, 99_999, 100_000}) {
            assertEquals(crc(b, 0, b.length), Crc32c.combine(crc(b, 0, cut), crc(b, cut, b.length), b.length - cut));
        }
    }

    /** Pieces at disjoint places, in any order, with the bytes between them zeros, make the chunk's checksum. */
    @Test
    void aChunkIsItsZerosXorEveryPiecesContribution() {
        final Random r = new Random(11);
        for (int trial = 0; trial < 200; trial++) {
            final int length = 1 + r.nextInt(5000);
            final byte[] chunk = new byte[length];
            int sum = Crc32c.zeros(length);
            int at = 0;
            while (at < length) {
                final int gap = r.nextInt(3) == 0 ? r.nextInt(Math.min(50, length - at) + 1) : 0;
                at += gap;
                if (at >= length) {
                    break;
                }
                final int piece = 1 + r.nextInt(Math.min(700, length - at));
                final byte[] d = new byte[piece];
                r.nextBytes(d);
                System.arraycopy(d, 0, chunk, at, piece);
                sum ^= Crc32c.contribution(Crc32c.of(ByteBuffer.wrap(d)), piece, length - at - piece);
                at += piece;
            }
            assertEquals(crc(chunk, 0, length), sum, "trial " + trial);
        }
    }
}
