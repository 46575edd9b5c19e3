package org.pario.io.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;

@Timeout(30)
class HeaderCodecTest {
    /** Checksums are written as eight lowercase hex digits, whatever their top bit, and read back as written. */
    @Test
    void chunkChecksumsAreEightHexDigitsAndRoundTrip() {
        final long[] crcs = {0L, 0x1L, 0x7fffffffL, 0x80000000L, 0xdeadbeefL, 0xffffffffL};
        final long bytes = crcs.length * CheckpointWriter.CHUNK;
        final StoredArray stored = new StoredArray("a", new long[] {bytes / 8}, Datatype.DOUBLE, Order.C,
            List.of(Dist.block()), new long[] {1}, Attributes.builder().build(), 0, bytes, crcs);
        final CheckpointHeader planned = new CheckpointHeader(HeaderCodec.VERSION, CheckpointWriter.CHUNK,
            Instant.parse("2026-11-29T08:00:00Z"), 1, Attributes.builder().build(), List.of(stored));
        final String first = HeaderCodec.json(planned);
        final CheckpointHeader h = planned.withArrays(List.of(stored.placed(
            HeaderCodec.firstOffset(first.getBytes(StandardCharsets.UTF_8).length + 64L))));
        final String json = HeaderCodec.json(h);
        assertTrue(json.contains("\"crc32c\":[\"00000000\",\"00000001\",\"7fffffff\",\"80000000\",\"deadbeef\","
            + "\"ffffffff\"]"), json);
        final CheckpointHeader back = HeaderCodec.parse(json, HeaderCodec.encode(h).remaining(), "test");
        assertArrayEquals(crcs, back.arrays().get(0).crc32c());
    }
}
