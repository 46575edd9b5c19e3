package org.pario.comm.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Set;

import org.pario.datatypes.BasicKind;
import org.pario.datatypes.Datatype;

/**
 * Predefined reductions combined straight into the caller's primitive arrays: {@code out[j] = in(i) op own[j]},
 * where {@code in} holds the little-endian values of a block received from a partner and {@code own} and {@code
 * out} are {@code double[]}, {@code float[]}, {@code long[]} or {@code int[]} arrays of the type's kind and size
 * (they may be one array, element by element in place). Packing the rank's own values into bytes, combining there
 * and unpacking the result reads and writes every value three times more, and loops over byte-buffer views run
 * slower than loops over arrays. Every result is the one {@link Reductions#combine} gives: the same expression on
 * the same operands, the received value on the left, so the same bits, but for which payload an operation on two
 * NaNs passes on, which Java leaves open (the compiler may swap the operands of a commutative operation). Every rank
 * still gets the same bits: each block of a reduction is combined on one rank and copied from there. Each kind of
 * array and operation has a loop of its own, written out: Java has no generics over primitives, and a loop that took
 * the operation or the element access as a parameter would call through it for every value instead of compiling to
 * plain loads and stores.
 */
public final class ArrayCombine {
    private static final VarHandle DOUBLES = MethodHandles.byteArrayViewVarHandle(double[].class,
        ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle FLOATS = MethodHandles.byteArrayViewVarHandle(float[].class,
        ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
        ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final Set<String> FLOATING_OPS = Set.of("SUM", "PROD", "MAX", "MIN");
    private static final Set<String> INTEGER_OPS = Set.of("SUM", "PROD", "MAX", "MIN", "BAND", "BOR", "BXOR");

    private ArrayCombine() {
    }

    /**
     * @param op   the name of a predefined operation (user operations are never handled)
     * @param type a basic type
     * @param own  the array of the rank's own values, or null
     * @param out  the array the results go to, or null
     * @return whether {@link #combine} handles {@code op} on {@code type} between these arrays
     */
    public static boolean handles(final String op, final Datatype type, final Object own, final Object out) {
        if (own == null || out == null || own.getClass() != out.getClass()) {
            return false;
        }
        final BasicKind kind = type.basicKind().orElse(null);
        final boolean signed = kind == BasicKind.SIGNED_INTEGER || kind == BasicKind.FORTRAN_INTEGER;
        final long size = type.size();
        if (own instanceof double[]) {
            return kind == BasicKind.FLOATING && size == 8 && FLOATING_OPS.contains(op);
        }
        if (own instanceof float[]) {
            return kind == BasicKind.FLOATING && size == 4 && FLOATING_OPS.contains(op);
        }
        if (own instanceof long[]) {
            return signed && size == 8 && INTEGER_OPS.contains(op);
        }
        if (own instanceof int[]) {
            return signed && size == 4 && INTEGER_OPS.contains(op);
        }
        return false;
    }

    /**
     * {@code out[outFirst + k] = in(k) op own[ownFirst + k]} for {@code k < n}, {@code in(k)} the value at byte
     * {@code at + k * size} of {@code in}; only where {@link #handles} said so.
     */
    public static void combine(final String op, final byte[] in, final int at, final Object own, final int ownFirst,
                               final Object out, final int outFirst, final int n) {
        if (own instanceof double[] o) {
            doubles(op, in, at, o, ownFirst, (double[]) out, outFirst, n);
        } else if (own instanceof float[] o) {
            floats(op, in, at, o, ownFirst, (float[]) out, outFirst, n);
        } else if (own instanceof long[] o) {
            longs(op, in, at, o, ownFirst, (long[]) out, outFirst, n);
        } else {
            ints(op, in, at, (int[]) own, ownFirst, (int[]) out, outFirst, n);
        }
    }

    private static void doubles(final String op, final byte[] in, final int at, final double[] own, final int o,
                                final double[] out, final int r, final int n) {
        switch (op) {
            case "SUM" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = (double) DOUBLES.get(in, at + 8 * k) + own[o + k];
                }
            }
            case "PROD" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = (double) DOUBLES.get(in, at + 8 * k) * own[o + k];
                }
            }
            case "MAX" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = Math.max((double) DOUBLES.get(in, at + 8 * k), own[o + k]);
                }
            }
            case "MIN" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = Math.min((double) DOUBLES.get(in, at + 8 * k), own[o + k]);
                }
            }
            default -> throw new IllegalStateException(op);
        }
    }

    private static void floats(final String op, final byte[] in, final int at, final float[] own, final int o,
                               final float[] out, final int r, final int n) {
        switch (op) {
            case "SUM" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = (float) FLOATS.get(in, at + 4 * k) + own[o + k];
                }
            }
            case "PROD" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = (float) FLOATS.get(in, at + 4 * k) * own[o + k];
                }
            }
            case "MAX" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = Math.max((float) FLOATS.get(in, at + 4 * k), own[o + k]);
                }
            }
            case "MIN" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = Math.min((float) FLOATS.get(in, at + 4 * k), own[o + k]);
                }
            }
            default -> throw new IllegalStateException(op);
        }
    }

    private static void longs(final String op, final byte[] in, final int at, final long[] own, final int o,
                              final long[] out, final int r, final int n) {
        switch (op) {
            case "SUM" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = (long) LONGS.get(in, at + 8 * k) + own[o + k];
                }
            }
            case "PROD" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = (long) LONGS.get(in, at + 8 * k) * own[o + k];
                }
            }
            case "MAX" -> {
                for (int k = 0; k < n; k++) {
                    final long x = (long) LONGS.get(in, at + 8 * k);
                    final long y = own[o + k];
                    out[r + k] = x >= y ? x : y;
                }
            }
            case "MIN" -> {
                for (int k = 0; k < n; k++) {
                    final long x = (long) LONGS.get(in, at + 8 * k);
                    final long y = own[o + k];
                    out[r + k] = x <= y ? x : y;
                }
            }
            case "BAND" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = (long) LONGS.get(in, at + 8 * k) & own[o + k];
                }
            }
            case "BOR" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = (long) LONGS.get(in, at + 8 * k) | own[o + k];
                }
            }
            case "BXOR" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = (long) LONGS.get(in, at + 8 * k) ^ own[o + k];
                }
            }
            default -> throw new IllegalStateException(op);
        }
    }

    /** In int arithmetic: the low 32 bits of what {@link Reductions} computes in long, for every operation here. */
    private static void ints(final String op, final byte[] in, final int at, final int[] own, final int o,
                             final int[] out, final int r, final int n) {
        switch (op) {
            case "SUM" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = (int) INTS.get(in, at + 4 * k) + own[o + k];
                }
            }
            case "PROD" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = (int) INTS.get(in, at + 4 * k) * own[o + k];
                }
            }
            case "MAX" -> {
                for (int k = 0; k < n; k++) {
                    final int x = (int) INTS.get(in, at + 4 * k);
                    final int y = own[o + k];
                    out[r + k] = x >= y ? x : y;
                }
            }
            case "MIN" -> {
                for (int k = 0; k < n; k++) {
                    final int x = (int) INTS.get(in, at + 4 * k);
                    final int y = own[o + k];
                    out[r + k] = x <= y ? x : y;
                }
            }
            case "BAND" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = (int) INTS.get(in, at + 4 * k) & own[o + k];
                }
            }
            case "BOR" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = (int) INTS.get(in, at + 4 * k) | own[o + k];
                }
            }
            case "BXOR" -> {
                for (int k = 0; k < n; k++) {
                    out[r + k] = (int) INTS.get(in, at + 4 * k) ^ own[o + k];
                }
            }
            default -> throw new IllegalStateException(op);
        }
    }
}
