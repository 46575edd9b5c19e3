package org.pario.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
import org.pario.datatypes.Memory;
import org.pario.datatypes.Order;
import org.pario.datatypes.Packer;

/**
 * Pack and unpack throughput of noncontiguous layouts of doubles, beside {@code System.arraycopy} of the same
 * number of bytes (the limit). Every benchmark moves exactly {@link #PACKED} bytes of packed data per operation,
 * so throughput is {@code PACKED / time} and the ratio to the limit is a ratio of times.
 *
 * <ul>
 *   <li>{@code vector}: runs of {@code runBytes} bytes, every other run skipped;</li>
 *   <li>{@code subarray3d}: a 128^3 block of a 256^3 array (runs of 1 KiB);</li>
 *   <li>{@code darrayCyclic}: rank 0 of a 1024 x 4096 array distributed (NONE, CYCLIC(1)) on 1 x 2 (runs of 8 B).</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgs = {"-Xms3g", "-Xmx3g"})
public class PackBenchmark {
    /** Packed bytes moved by every operation: 16 MiB. */
    public static final int PACKED = 16 << 20;

    /** The memory-copy limit: the same number of bytes, one contiguous copy. */
    @State(Scope.Benchmark)
    public static class Copy {
        final byte[] from = new byte[PACKED];
        final byte[] to = new byte[PACKED];
    }

    /** The same strided runs as {@link Vector}, copied by a bare loop of arraycopy calls: the pattern's own limit. */
    @State(Scope.Benchmark)
    public static class Strided {
        @Param({"8", "64", "1024", "65536"})
        int runBytes;
        byte[] from;
        final byte[] to = new byte[PACKED];

        @Setup(Level.Trial)
        public void setup() {
            from = new byte[2 * PACKED];
        }
    }

    /** A layout, its user memory and the packed buffer. */
    public abstract static class Layout {
        Datatype type;
        Memory memory;
        ByteBuffer packed;

        void init(final Datatype t, final int doubles) {
            if (t.size() != PACKED) {
                throw new IllegalStateException(t + " packs " + t.size() + " bytes, not " + PACKED);
            }
            type = t;
            final double[] values = new double[doubles];
            for (int i = 0; i < doubles; i++) {
                values[i] = i;
            }
            memory = Memory.of(values);
            packed = ByteBuffer.allocate(PACKED);
        }
    }

    /** Vectors of doubles with runs of 8 B to 64 KiB. */
    @State(Scope.Benchmark)
    public static class Vector extends Layout {
        @Param({"8", "64", "1024", "65536"})
        int runBytes;

        @Setup(Level.Trial)
        public void setup() {
            final int perRun = runBytes / 8;
            final int runs = PACKED / runBytes;
            init(Datatype.vector(runs, perRun, 2L * perRun, Datatype.DOUBLE), 2 * runs * perRun);
        }
    }

    /** A 128^3 subarray of a 256^3 array of doubles. */
    @State(Scope.Benchmark)
    public static class Subarray3d extends Layout {
        @Setup(Level.Trial)
        public void setup() {
            init(Datatype.subarray(new long[] {256, 256, 256}, new long[] {128, 128, 128}, new long[] {64, 64, 64},
                Order.C, Datatype.DOUBLE), 256 * 256 * 256);
        }
    }

    /** Rank 0 of a (NONE, CYCLIC(1)) darray of 1024 x 4096 doubles on a 1 x 2 grid. */
    @State(Scope.Benchmark)
    public static class DarrayCyclic extends Layout {
        @Setup(Level.Trial)
        public void setup() {
            init(Datatype.darray(2, 0, new long[] {1024, 4096}, new Distribution[] {Distribution.NONE, Distribution.CYCLIC},
                new long[] {Datatype.DISTRIBUTE_DFLT_DARG, 1}, new long[] {1, 2}, Order.C, Datatype.DOUBLE), 1024 * 4096);
        }
    }

    private static ByteBuffer pack(final Layout l) {
        Packer.pack(l.memory, 0, l.type, 1, DataRepresentation.NATIVE, 0, l.packed, 0, PACKED);
        return l.packed;
    }

    private static Memory unpack(final Layout l) {
        Packer.unpack(l.packed, 0, PACKED, l.memory, 0, l.type, 1, DataRepresentation.NATIVE, 0);
        return l.memory;
    }

    /** @return the destination, so the copy is not optimised away */
    @Benchmark
    public byte[] arraycopyLimit(final Copy c) {
        System.arraycopy(c.from, 0, c.to, 0, PACKED);
        return c.to;
    }

    /**
     * Two {@code double[]} of {@link #PACKED} bytes, and a type of all of their bytes in two 8 MiB runs, the upper
     * half first: not contiguous as a type, though every byte is moved in a long run.
     */
    @State(Scope.Benchmark)
    public static class Arrays {
        final double[] from = new double[PACKED / 8];
        final double[] to = new double[PACKED / 8];
        final Datatype halves = Datatype.indexed(new long[] {PACKED / 16, PACKED / 16}, new long[] {PACKED / 16, 0},
            Datatype.DOUBLE);
    }

    /** @return the destination: {@code Packer.copy} between contiguous layouts, one memory copy */
    @Benchmark
    public double[] copyContiguous(final Arrays a) {
        Packer.copy(Memory.of(a.from), Datatype.DOUBLE, PACKED / 8, Memory.of(a.to), Datatype.DOUBLE, PACKED / 8);
        return a.to;
    }

    /**
     * @return the destination: {@code Packer.copy} of the same bytes through a type that is not contiguous, so the
     *     copy packs and unpacks the stream through a 256 KiB piece at a time
     */
    @Benchmark
    public double[] copyThroughStream(final Arrays a) {
        Packer.copy(Memory.of(a.from), a.halves, 1, Memory.of(a.to), Datatype.DOUBLE, PACKED / 8);
        return a.to;
    }

    /** @return the destination; one arraycopy per run of the vector pattern, no datatype involved */
    @Benchmark
    public byte[] stridedArraycopy(final Strided s) {
        final int run = s.runBytes;
        for (int k = 0, out = 0; out < PACKED; k += 2 * run, out += run) {
            System.arraycopy(s.from, k, s.to, out, run);
        }
        return s.to;
    }

    @Benchmark
    public ByteBuffer packVector(final Vector v) {
        return pack(v);
    }

    @Benchmark
    public Memory unpackVector(final Vector v) {
        return unpack(v);
    }

    @Benchmark
    public ByteBuffer packSubarray3d(final Subarray3d s) {
        return pack(s);
    }

    @Benchmark
    public Memory unpackSubarray3d(final Subarray3d s) {
        return unpack(s);
    }

    @Benchmark
    public ByteBuffer packDarrayCyclic(final DarrayCyclic d) {
        return pack(d);
    }

    @Benchmark
    public Memory unpackDarrayCyclic(final DarrayCyclic d) {
        return unpack(d);
    }
}
