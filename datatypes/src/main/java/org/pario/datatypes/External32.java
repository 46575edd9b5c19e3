package org.pario.datatypes;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.pario.ErrorCategory;
import org.pario.ParioException;

/**
 * Conversion between this machine's native layout and MPI's {@code external32} representation, one run of a
 * basic type at a time. Same-size types are copied and byte-swapped in bulk; narrowed types ({@code long},
 * {@code unsigned long}, {@code wchar}), x87 {@code long double} and runs cut inside an element go element by
 * element through small scratch buffers.
 */
final class External32 {
    private static final VarHandle SHORT_BE = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_BE = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG_BE = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final int CHUNK = 64 * 1024;

    private External32() {
    }

    /** Packs the cursor's current run from memory at {@code at}; returns the stream bytes written. */
    static int pack(final Memory src, final long at, final Cursor c, final ByteBuffer dst, final int out,
                    final boolean external) {
        final BasicType b = c.basic();
        final int streamLength = (int) c.streamLength();
        if (!external || wholeSameSize(b, c)) {
            src.read(at, dst, out, streamLength);
            if (external) {
                swapInPlace(b, dst, out, streamLength);
            }
            return streamLength;
        }
        final ByteBuffer nat = ByteBuffer.allocate(32);
        final ByteBuffer ext = ByteBuffer.allocate(32);
        final int ns = (int) b.size;
        final int es = (int) b.externalSize;
        int done = 0;
        for (long e = 0; done < streamLength; e++) {
            src.read(at + e * ns, nat, 0, ns);
            toExternal(b, nat, ext, true);
            final int from = e == 0 ? (int) c.skip() : 0;
            final int take = Math.min(es - from, streamLength - done);
            dst.put(out + done, ext, from, take);
            done += take;
        }
        return streamLength;
    }

    /** Unpacks the cursor's current run into memory at {@code at}; returns the stream bytes consumed. */
    static int unpack(final ByteBuffer src, final int in, final Cursor c, final Memory dst, final long at,
                      final boolean external) {
        final BasicType b = c.basic();
        final int streamLength = (int) c.streamLength();
        if (!external) {
            dst.write(at, src, in, streamLength);
            return streamLength;
        }
        if (wholeSameSize(b, c) && b.conversion != BasicType.Conversion.X87) {
            final ByteBuffer scratch = ByteBuffer.allocate(Math.min(CHUNK, streamLength));
            for (int done = 0; done < streamLength; ) {
                final int n = Math.min(scratch.capacity(), streamLength - done);
                scratch.put(0, src, in + done, n);
                swapInPlace(b, scratch, 0, n);
                dst.write(at + done, scratch, 0, n);
                done += n;
            }
            return streamLength;
        }
        final ByteBuffer nat = ByteBuffer.allocate(32);
        final ByteBuffer ext = ByteBuffer.allocate(32);
        final int ns = (int) b.size;
        final int es = (int) b.externalSize;
        int done = 0;
        for (long e = 0; done < streamLength; e++) {
            final int from = e == 0 ? (int) c.skip() : 0;
            final int take = Math.min(es - from, streamLength - done);
            if (take < es) {
                // part of an element: the rest of its external bytes come from what memory holds now, narrowed
                // without a range check (that value may be half written by an earlier range)
                dst.read(at + e * ns, nat, 0, ns);
                toExternal(b, nat, ext, false);
            }
            ext.put(from, src, in + done, take);
            toNative(b, ext, nat);
            dst.write(at + e * ns, nat, 0, ns);
            done += take;
        }
        return streamLength;
    }

    private static boolean wholeSameSize(final BasicType b, final Cursor c) {
        return c.skip() == 0 && b.size == (int) b.externalSize && c.streamLength() == c.length();
    }

    /** Reverses the byte order of every component of the whole elements in {@code [index, index + length)}. */
    private static void swapInPlace(final BasicType b, final ByteBuffer buf, final int index, final int length) {
        switch (b.componentSize) {
            case 1 -> {
            }
            case 2 -> {
                for (int i = index; i < index + length; i += 2) {
                    SHORT_BE.set(buf, i, (short) Memory.SHORT_LE.get(buf, i));
                }
            }
            case 4 -> {
                for (int i = index; i < index + length; i += 4) {
                    INT_BE.set(buf, i, (int) Memory.INT_LE.get(buf, i));
                }
            }
            case 8 -> {
                for (int i = index; i < index + length; i += 8) {
                    LONG_BE.set(buf, i, (long) Memory.LONG_LE.get(buf, i));
                }
            }
            default -> {
                final ByteBuffer nat = ByteBuffer.allocate(16);
                final ByteBuffer ext = ByteBuffer.allocate(16);
                for (int i = index; i < index + length; i += 16) {
                    nat.put(0, buf, i, 16);
                    x87ToQuad(nat, 0, ext, 0);
                    buf.put(i, ext, 0, 16);
                }
            }
        }
    }

    /** Converts one native element at index 0 of {@code nat} into external32 bytes at index 0 of {@code ext}. */
    static void toExternal(final BasicType b, final ByteBuffer nat, final ByteBuffer ext, final boolean checked) {
        switch (b.conversion) {
            case COPY -> ext.put(0, nat.get(0));
            case SWAP -> {
                ext.put(0, nat, 0, (int) b.size);
                swapInPlace(b, ext, 0, (int) b.size);
            }
            case NARROW_SIGNED -> {
                final long v = (long) Memory.LONG_LE.get(nat, 0);
                if (checked && (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE)) {
                    throw new ParioException(ErrorCategory.TRUNCATE, "external32: " + b.name + " value " + v
                        + " does not fit its 4-byte external32 representation");
                }
                INT_BE.set(ext, 0, (int) v);
            }
            case NARROW_UNSIGNED -> {
                if (b.size == 8) {
                    final long v = (long) Memory.LONG_LE.get(nat, 0);
                    if (checked && (v >>> 32) != 0) {
                        throw new ParioException(ErrorCategory.TRUNCATE, "external32: " + b.name + " value "
                            + Long.toUnsignedString(v) + " does not fit its 4-byte external32 representation");
                    }
                    INT_BE.set(ext, 0, (int) v);
                } else {
                    final int v = (int) Memory.INT_LE.get(nat, 0);
                    if (checked && (v >>> 16) != 0) {
                        throw new ParioException(ErrorCategory.TRUNCATE, "external32: " + b.name + " value "
                            + Integer.toUnsignedString(v) + " does not fit its 2-byte external32 representation");
                    }
                    SHORT_BE.set(ext, 0, (short) v);
                }
            }
            case X87 -> {
                for (int i = 0; i < b.size; i += 16) {
                    x87ToQuad(nat, i, ext, i);
                }
            }
            default -> throw new IllegalStateException(b.conversion.toString());
        }
    }

    /** Converts one external32 element at index 0 of {@code ext} into native bytes at index 0 of {@code nat}. */
    static void toNative(final BasicType b, final ByteBuffer ext, final ByteBuffer nat) {
        switch (b.conversion) {
            case COPY -> nat.put(0, ext.get(0));
            case SWAP -> {
                nat.put(0, ext, 0, (int) b.size);
                swapInPlace(b, nat, 0, (int) b.size);
            }
            case NARROW_SIGNED -> Memory.LONG_LE.set(nat, 0, (long) (int) INT_BE.get(ext, 0));
            case NARROW_UNSIGNED -> {
                if (b.size == 8) {
                    Memory.LONG_LE.set(nat, 0, ((int) INT_BE.get(ext, 0)) & 0xFFFFFFFFL);
                } else {
                    Memory.INT_LE.set(nat, 0, ((short) SHORT_BE.get(ext, 0)) & 0xFFFF);
                }
            }
            case X87 -> {
                for (int i = 0; i < b.size; i += 16) {
                    quadToX87(ext, i, nat, i);
                }
            }
            default -> throw new IllegalStateException(b.conversion.toString());
        }
    }

    /**
     * x87 80-bit extended (64-bit significand with explicit integer bit, 15-bit exponent, little-endian in 16
     * bytes) to IEEE binary128 (big-endian). Both formats share the exponent bias, so the conversion is exact.
     */
    static void x87ToQuad(final ByteBuffer nat, final int ni, final ByteBuffer ext, final int ei) {
        final long significand = (long) Memory.LONG_LE.get(nat, ni);
        final int signExp = ((short) Memory.SHORT_LE.get(nat, ni + 8)) & 0xFFFF;
        final long sign = (signExp >>> 15) & 1L;
        long exponent = signExp & 0x7FFF;
        final long fraction63 = significand & 0x7FFF_FFFF_FFFF_FFFFL;
        if (exponent == 0 && significand < 0) {
            exponent = 1;
        }
        final long hi = (sign << 63) | (exponent << 48) | (fraction63 >>> 15);
        final long lo = fraction63 << 49;
        LONG_BE.set(ext, ei, hi);
        LONG_BE.set(ext, ei + 8, lo);
    }

    /** IEEE binary128 (big-endian) to x87 80-bit extended in 16 little-endian bytes; extra fraction bits dropped. */
    static void quadToX87(final ByteBuffer ext, final int ei, final ByteBuffer nat, final int ni) {
        final long hi = (long) LONG_BE.get(ext, ei);
        final long lo = (long) LONG_BE.get(ext, ei + 8);
        final long sign = hi >>> 63;
        final long exponent = (hi >>> 48) & 0x7FFF;
        final long fraction63 = ((hi & 0xFFFF_FFFF_FFFFL) << 15) | (lo >>> 49);
        final long significand = exponent == 0 ? fraction63 : fraction63 | Long.MIN_VALUE;
        Memory.LONG_LE.set(nat, ni, significand);
        Memory.SHORT_LE.set(nat, ni + 8, (short) ((sign << 15) | exponent));
        for (int k = 10; k < 16; k++) {
            nat.put(ni + k, (byte) 0);
        }
    }
}
