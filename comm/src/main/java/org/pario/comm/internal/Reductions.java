package org.pario.comm.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Iterator;
import java.util.List;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.datatypes.BasicKind;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.SignatureEntry;

/**
 * The kernels of the predefined operations, over packed native bytes, and the rules of which operation applies
 * to which basic type. A reduction's datatype is reduced to its element: a single basic type, or a pair type
 * for MINLOC and MAXLOC, recognised from the type signature.
 */
public final class Reductions {
    private Reductions() {
    }

    /** A user's combining function: {@code inout[i] = in[i] op inout[i]} over {@code count} elements of the type. */
    @FunctionalInterface
    public interface UserFunction {
        /**
         * @param in          the left operand
         * @param inout       the right operand; receives the result
         * @param count       number of elements
         * @param elementType the type of each element
         */
        void apply(ByteBuffer in, ByteBuffer inout, long count, Datatype elementType);
    }

    /**
     * The unit a reduction works on.
     *
     * @param type  the basic or pair type of one element
     * @param count the number of elements
     */
    public record Element(Datatype type, long count) {
        /** @return bytes per element */
        public long size() {
            return type.size();
        }
    }

    private static final Datatype[] PAIRS = {Datatype.FLOAT_INT, Datatype.DOUBLE_INT, Datatype.LONG_INT,
        Datatype.TWO_INT, Datatype.SHORT_INT, Datatype.LONG_DOUBLE_INT, Datatype.TWO_INTEGER, Datatype.TWO_REAL,
        Datatype.TWO_DOUBLE_PRECISION};

    /**
     * Finds the element of a reduction of {@code count} x {@code type} under the operation named {@code op}, or
     * refuses the combination with an error that names both.
     *
     * @param op          the operation's name: a predefined one's (MAX, MINLOC, ...) unless {@code userDefined}
     * @param userDefined whether the operation is a user's function, which sees the reduction's own type and count
     */
    public static Element element(final String op, final boolean userDefined, final Datatype type,
                                  final long count) {
        final long entries = type.typemapLength() * count;
        if (entries == 0) {
            return new Element(Datatype.BYTE, 0);
        }
        if (userDefined) {
            // as in MPI, a user function sees the reduction's own datatype and count (here as packed bytes)
            return new Element(type, count);
        }
        if (op.equals("MINLOC") || op.equals("MAXLOC")) {
            final Datatype pair = pairOf(type);
            if (pair == null) {
                throw refuse(op, type, "it is not made of one pair type such as double_int or 2int");
            }
            return new Element(pair, entries / 2);
        }
        final Datatype basic = type.homogeneousBasicType().orElse(null);
        if (basic == null) {
            throw refuse(op, type, "its elements are of different basic types");
        }
        check(op, basic, type);
        return new Element(basic, entries);
    }

    private static void check(final String op, final Datatype basic, final Datatype type) {
        final BasicKind kind = basic.basicKind().orElseThrow();
        final boolean integer = kind == BasicKind.SIGNED_INTEGER || kind == BasicKind.UNSIGNED_INTEGER
            || kind == BasicKind.FORTRAN_INTEGER;
        final boolean ok = switch (op) {
            case "MAX", "MIN" -> integer || kind == BasicKind.FLOATING;
            case "SUM", "PROD" -> integer || kind == BasicKind.FLOATING
                || kind == BasicKind.COMPLEX && basic.size() <= 16;
            case "LAND", "LOR", "LXOR" -> kind == BasicKind.SIGNED_INTEGER || kind == BasicKind.UNSIGNED_INTEGER
                || kind == BasicKind.LOGICAL;
            case "BAND", "BOR", "BXOR" -> integer || kind == BasicKind.BYTE;
            case "REPLACE" -> true;
            default -> false;
        };
        if (!ok) {
            throw refuse(op, type, basic + " is not a type " + op + " applies to");
        }
    }

    private static ParioException refuse(final String op, final Datatype type, final String why) {
        return new ParioException(ErrorCategory.ARGUMENT, "op " + op + " cannot be applied to datatype " + type
            + ": " + why);
    }

    /** @return the pair type whose repetition {@code type}'s signature is, or null */
    static Datatype pairOf(final Datatype type) {
        final Datatype basic = type.homogeneousBasicType().orElse(null);
        if (basic != null) {
            if (type.typemapLength() % 2 != 0) {
                return null;
            }
            for (final Datatype p : PAIRS) {
                final List<Datatype> parts = p.pairComponents().orElseThrow();
                if (parts.get(0).equals(basic) && parts.get(1).equals(basic)) {
                    return p;
                }
            }
            return null;
        }
        final Iterator<SignatureEntry> it = type.signature().iterator();
        if (!it.hasNext()) {
            return null;
        }
        final SignatureEntry first = it.next();
        Datatype pair = null;
        for (final Datatype p : PAIRS) {
            final List<Datatype> parts = p.pairComponents().orElseThrow();
            if (parts.get(0).toString().equals(first.type()) && !parts.get(0).equals(parts.get(1))) {
                pair = p;
            }
        }
        if (pair == null || first.count() != 1) {
            return null;
        }
        final String value = first.type();
        boolean expectIndex = true;
        while (it.hasNext()) {
            final SignatureEntry e = it.next();
            if (e.count() != 1 || !e.type().equals(expectIndex ? "int" : value)) {
                return null;
            }
            expectIndex = !expectIndex;
        }
        return expectIndex ? null : pair;
    }

    /** {@code inout[i] = in[i] op inout[i]} for every element. */
    public static void combine(final String name, final UserFunction user, final ByteBuffer in, final ByteBuffer inout,
                               final Element e) {
        final ByteBuffer a = in.duplicate().clear().order(ByteOrder.LITTLE_ENDIAN);
        final ByteBuffer b = inout.duplicate().clear().order(ByteOrder.LITTLE_ENDIAN);
        if (user != null) {
            user.apply(a, b, e.count(), e.type());
            return;
        }
        if (name.equals("REPLACE")) {
            b.put(0, a, 0, (int) (e.count() * e.size()));
            return;
        }
        if (e.type().pairComponents().isPresent()) {
            loc(name.equals("MAXLOC"), a, b, e);
            return;
        }
        final BasicKind kind = e.type().basicKind().orElseThrow();
        final int n = (int) e.count();
        final int size = (int) e.size();
        switch (kind) {
            case FLOATING -> floating(name, a, b, n, size);
            case COMPLEX -> complex(name, a, b, n, size / 2);
            case LOGICAL -> logical(name, a, b, n, size, false);
            default -> {
                if (name.startsWith("L")) {
                    logical(name, a, b, n, size, kind == BasicKind.UNSIGNED_INTEGER);
                } else {
                    integer(name, a, b, n, size, kind == BasicKind.UNSIGNED_INTEGER || kind == BasicKind.BYTE);
                }
            }
        }
    }

    private static long getInt(final ByteBuffer buf, final int at, final int size, final boolean unsigned) {
        return switch (size) {
            case 1 -> unsigned ? buf.get(at) & 0xFFL : buf.get(at);
            case 2 -> unsigned ? buf.getShort(at) & 0xFFFFL : buf.getShort(at);
            case 4 -> unsigned ? buf.getInt(at) & 0xFFFFFFFFL : buf.getInt(at);
            default -> buf.getLong(at);
        };
    }

    private static void putInt(final ByteBuffer buf, final int at, final int size, final long v) {
        switch (size) {
            case 1 -> buf.put(at, (byte) v);
            case 2 -> buf.putShort(at, (short) v);
            case 4 -> buf.putInt(at, (int) v);
            default -> buf.putLong(at, v);
        }
    }

    private static void integer(final String op, final ByteBuffer a, final ByteBuffer b, final int n, final int size,
                                final boolean unsigned) {
        if (op.equals("SUM") && size == 8) {
            final java.nio.LongBuffer x = a.asLongBuffer();
            final java.nio.LongBuffer y = b.asLongBuffer();
            for (int i = 0; i < n; i++) {
                y.put(i, x.get(i) + y.get(i));
            }
            return;
        }
        if (op.equals("SUM") && size == 4) {
            final java.nio.IntBuffer x = a.asIntBuffer();
            final java.nio.IntBuffer y = b.asIntBuffer();
            for (int i = 0; i < n; i++) {
                y.put(i, x.get(i) + y.get(i));
            }
            return;
        }
        for (int i = 0, at = 0; i < n; i++, at += size) {
            final long x = getInt(a, at, size, unsigned);
            final long y = getInt(b, at, size, unsigned);
            final long r = switch (op) {
                case "MAX" -> (unsigned ? Long.compareUnsigned(x, y) >= 0 : x >= y) ? x : y;
                case "MIN" -> (unsigned ? Long.compareUnsigned(x, y) <= 0 : x <= y) ? x : y;
                case "SUM" -> x + y;
                case "PROD" -> x * y;
                case "BAND" -> x & y;
                case "BOR" -> x | y;
                case "BXOR" -> x ^ y;
                default -> throw new IllegalStateException(op);
            };
            putInt(b, at, size, r);
        }
    }

    private static void logical(final String op, final ByteBuffer a, final ByteBuffer b, final int n, final int size,
                                final boolean unsigned) {
        for (int i = 0, at = 0; i < n; i++, at += size) {
            final boolean x = getInt(a, at, size, unsigned) != 0;
            final boolean y = getInt(b, at, size, unsigned) != 0;
            final boolean r = switch (op) {
                case "LAND" -> x && y;
                case "LOR" -> x || y;
                case "LXOR" -> x ^ y;
                default -> throw new IllegalStateException(op);
            };
            putInt(b, at, size, r ? 1 : 0);
        }
    }

    private static void floating(final String op, final ByteBuffer a, final ByteBuffer b, final int n, final int size) {
        if (size == 8) {
            final java.nio.DoubleBuffer x = a.asDoubleBuffer();
            final java.nio.DoubleBuffer y = b.asDoubleBuffer();
            switch (op) {
                case "SUM" -> {
                    for (int i = 0; i < n; i++) {
                        y.put(i, x.get(i) + y.get(i));
                    }
                }
                case "PROD" -> {
                    for (int i = 0; i < n; i++) {
                        y.put(i, x.get(i) * y.get(i));
                    }
                }
                case "MAX" -> {
                    for (int i = 0; i < n; i++) {
                        y.put(i, Math.max(x.get(i), y.get(i)));
                    }
                }
                case "MIN" -> {
                    for (int i = 0; i < n; i++) {
                        y.put(i, Math.min(x.get(i), y.get(i)));
                    }
                }
                default -> throw new IllegalStateException(op);
            }
            return;
        }
        final java.nio.FloatBuffer x = a.asFloatBuffer();
        final java.nio.FloatBuffer y = b.asFloatBuffer();
        switch (op) {
            case "SUM" -> {
                for (int i = 0; i < n; i++) {
                    y.put(i, x.get(i) + y.get(i));
                }
            }
            case "PROD" -> {
                for (int i = 0; i < n; i++) {
                    y.put(i, x.get(i) * y.get(i));
                }
            }
            case "MAX" -> {
                for (int i = 0; i < n; i++) {
                    y.put(i, Math.max(x.get(i), y.get(i)));
                }
            }
            case "MIN" -> {
                for (int i = 0; i < n; i++) {
                    y.put(i, Math.min(x.get(i), y.get(i)));
                }
            }
            default -> throw new IllegalStateException(op);
        }
    }

    private static void complex(final String op, final ByteBuffer a, final ByteBuffer b, final int n, final int half) {
        for (int i = 0, at = 0; i < n; i++, at += 2 * half) {
            final double ar = half == 4 ? a.getFloat(at) : a.getDouble(at);
            final double ai = half == 4 ? a.getFloat(at + 4) : a.getDouble(at + 8);
            final double br = half == 4 ? b.getFloat(at) : b.getDouble(at);
            final double bi = half == 4 ? b.getFloat(at + 4) : b.getDouble(at + 8);
            final double rr;
            final double ri;
            if (op.equals("SUM")) {
                rr = ar + br;
                ri = ai + bi;
            } else {
                rr = ar * br - ai * bi;
                ri = ar * bi + ai * br;
            }
            if (half == 4) {
                b.putFloat(at, (float) rr).putFloat(at + 4, (float) ri);
            } else {
                b.putDouble(at, rr).putDouble(at + 8, ri);
            }
        }
    }

    /** MINLOC/MAXLOC: the better value wins; on equal values the lower index (the standard's rule). */
    private static void loc(final boolean max, final ByteBuffer a, final ByteBuffer b, final Element e) {
        final List<Datatype> parts = e.type().pairComponents().orElseThrow();
        final Datatype value = parts.get(0);
        final Datatype index = parts.get(1);
        final int vsize = (int) value.size();
        final int isize = (int) index.size();
        final int step = vsize + isize;
        final BasicKind vkind = value.basicKind().orElseThrow();
        if (vkind == BasicKind.EXTENDED_FLOATING) {
            throw new ParioException(ErrorCategory.ARGUMENT, "op " + (max ? "MAXLOC" : "MINLOC")
                + " on long_double_int is not supported: Java has no x87 extended arithmetic");
        }
        for (long i = 0; i < e.count(); i++) {
            final int at = (int) (i * step);
            final int c = vkind == BasicKind.FLOATING
                ? Double.compare(vsize == 4 ? a.getFloat(at) : a.getDouble(at), vsize == 4 ? b.getFloat(at) : b.getDouble(at))
                : Long.compare(getInt(a, at, vsize, false), getInt(b, at, vsize, false));
            final int ia = at + vsize;
            final double xa = index.basicKind().orElseThrow() == BasicKind.FLOATING
                ? (isize == 4 ? a.getFloat(ia) : a.getDouble(ia)) : getInt(a, ia, isize, false);
            final double xb = index.basicKind().orElseThrow() == BasicKind.FLOATING
                ? (isize == 4 ? b.getFloat(ia) : b.getDouble(ia)) : getInt(b, ia, isize, false);
            final boolean takeA = c == 0 ? xa < xb : (max ? c > 0 : c < 0);
            if (takeA) {
                b.put(at, a, at, step);
            }
        }
    }
}
