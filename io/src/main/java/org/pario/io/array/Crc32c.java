package org.pario.io.array;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC-32C arithmetic beyond {@link CRC32C}: the checksum of a run of zeros, and a checksum moved past more bytes,
 * in time logarithmic in their number (polynomial arithmetic modulo the Castagnoli polynomial, as zlib combines
 * CRC-32s). With them a chunk's checksum is assembled from the checksums of its pieces, whoever wrote them and in
 * whatever order: the checksum is affine in the data, so a chunk whose pieces are {@code D_i} at disjoint places is
 * {@code zeros(L)} XOR the {@link #contribution} of every piece.
 */
final class Crc32c {
    /** The Castagnoli polynomial, bit-reflected. */
    private static final int POLY = 0x82F63B78;
    /** {@code x^(2^k) mod POLY}. */
    private static final int[] X2N = new int[32];

    static {
        int p = 1 << 30; // x^1
        X2N[0] = p;
        for (int k = 1; k < 32; k++) {
            p = multiply(p, p);
            X2N[k] = p;
        }
    }

    private Crc32c() {
    }

    /** @return {@code a * b mod POLY}, both reflected */
    private static int multiply(final int a, int b) {
        int m = 1 << 31;
        int p = 0;
        while (true) {
            if ((a & m) != 0) {
                p ^= b;
                if ((a & (m - 1)) == 0) {
                    return p;
                }
            }
            m >>>= 1;
            b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
        }
    }

    /** @return {@code x^(8 n) mod POLY}: what {@code n} zero bytes do to the register */
    private static int zeroBytesOperator(long n) {
        int p = 1 << 31; // x^0
        int k = 3;
        while (n != 0) {
            if ((n & 1) != 0) {
                p = multiply(X2N[k & 31], p);
            }
            n >>>= 1;
            k++;
        }
        return p;
    }

    /** @return the register {@code crc} after {@code n} more zero bytes, without the final inversion */
    static int shift(final int crc, final long n) {
        return n == 0 ? crc : multiply(zeroBytesOperator(n), crc);
    }

    /** @return the CRC-32C of {@code n} zero bytes */
    static int zeros(final long n) {
        return shift(-1, n) ^ -1;
    }

    /** @return the CRC-32C of {@code a} followed by {@code b}, from theirs and {@code b}'s length */
    static int combine(final int crcA, final int crcB, final long lengthB) {
        return shift(crcA, lengthB) ^ crcB;
    }

    /**
     * @param crc    the CRC-32C of a piece of a chunk
     * @param length the piece's length
     * @param after  how many bytes of the chunk follow the piece
     * @return what the piece adds to its chunk's checksum: {@code zeros(L)} XOR every piece's contribution is the
     *     chunk's CRC-32C, the bytes no piece covers being zeros
     */
    static int contribution(final int crc, final long length, final long after) {
        return shift(crc ^ zeros(length), after);
    }

    /** @return the CRC-32C of the buffer's remaining bytes, leaving its position where it was */
    static int of(final ByteBuffer data) {
        final CRC32C crc = new CRC32C();
        crc.update(data.duplicate());
        return (int) crc.getValue();
    }
}
