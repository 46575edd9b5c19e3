package org.pario.datatypes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

/**
 * Which raw copies a JVM gets: from the classes of the build directory the {@code sun.misc.Unsafe} ones; from the
 * multi-release jar on Java 22+ (the build's {@code multi-release-jar} run sets {@code pario.expectRawCopy=ffm}) the
 * foreign-memory ones, which copy the same bytes; with {@code pario.rawCopy=false}, none.
 */
class RawCopyVersionTest {
    @Test
    void theJvmGetsTheRawCopiesOfItsVersionAndTheyCopyBytes() {
        if ("false".equals(System.getProperty("pario.rawCopy"))) {
            assertFalse(RawCopy.AVAILABLE, "pario.rawCopy=false turns raw copies off");
            return;
        }
        final double[] values = {1.5, -2.25, 3e300, Double.MIN_VALUE, 7, 8, 9, 10, 11, 12};
        final Object base = RawCopy.base((Object) values);
        if ("ffm".equals(System.getProperty("pario.expectRawCopy"))) {
            assertTrue(Runtime.version().feature() >= 22, "the jar's versioned classes need Java 22+");
            assertTrue(base.getClass().getName().contains("MemorySegment"), base.getClass().getName());
            assertEquals(0, RawCopy.arrayBase(double[].class));
        } else {
            assertSame(values, base, "the base classes address arrays through Unsafe");
        }
        final ByteBuffer direct = ByteBuffer.allocateDirect(128).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        direct.position(40);
        // short (8-byte loads) and long (copy call) runs, into a buffer whose position is not 0
        RawCopy.copy(base, RawCopy.arrayBase(double[].class) + 8, RawCopy.base(direct), RawCopy.offset(direct) + 16,
            24);
        RawCopy.copy(base, RawCopy.arrayBase(double[].class), RawCopy.base(direct), RawCopy.offset(direct) + 48,
            80);
        assertEquals(-2.25, direct.getDouble(16));
        assertEquals(3e300, direct.getDouble(24));
        assertEquals(Double.MIN_VALUE, direct.getDouble(32));
        for (int i = 0; i < 10; i++) {
            assertEquals(values[i], direct.getDouble(48 + 8 * i));
        }
        final double[] back = new double[10];
        RawCopy.copy(RawCopy.base(direct), RawCopy.offset(direct) + 48, RawCopy.base((Object) back),
            RawCopy.arrayBase(double[].class), 80);
        assertEquals(java.util.Arrays.toString(values), java.util.Arrays.toString(back));
    }
}
