package org.pario.cli;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;
import org.pario.datatypes.TypemapEntry;

/**
 * NumPy's {@code .npy} format, version 1.0 (numpy.lib.format): the magic {@code \x93NUMPY}, the version, a
 * little-endian 16-bit header length, then a Python dict literal giving the dtype ({@code descr}), the order and the
 * shape, padded with spaces and a newline so the data starts on a multiple of 64 bytes; then the elements' bytes as
 * they lie in memory. An element of one basic type is a plain dtype ({@code <f8}); a struct or pair is a structured
 * dtype with a field per typemap entry and its padding as unnamed void fields, so the bytes keep their layout.
 */
final class Npy {
    private Npy() {
    }

    private static final Map<String, String> BASIC = Map.ofEntries(
        Map.entry("double", "f8"), Map.entry("double_precision", "f8"), Map.entry("float", "f4"),
        Map.entry("real", "f4"), Map.entry("long_double", "f16"),
        Map.entry("complex", "c8"), Map.entry("c_float_complex", "c8"), Map.entry("double_complex", "c16"),
        Map.entry("c_double_complex", "c16"),
        Map.entry("char", "i1"), Map.entry("signed_char", "i1"), Map.entry("int8_t", "i1"),
        Map.entry("unsigned_char", "u1"), Map.entry("uint8_t", "u1"), Map.entry("byte", "u1"),
        Map.entry("packed", "u1"), Map.entry("character", "u1"), Map.entry("c_bool", "b1"),
        Map.entry("short", "i2"), Map.entry("int16_t", "i2"), Map.entry("unsigned_short", "u2"),
        Map.entry("uint16_t", "u2"), Map.entry("int", "i4"), Map.entry("int32_t", "i4"), Map.entry("integer", "i4"),
        Map.entry("logical", "i4"), Map.entry("unsigned", "u4"), Map.entry("uint32_t", "u4"), Map.entry("wchar", "u4"),
        Map.entry("long", "i8"), Map.entry("long_long", "i8"), Map.entry("int64_t", "i8"), Map.entry("aint", "i8"),
        Map.entry("offset", "i8"), Map.entry("count", "i8"), Map.entry("unsigned_long", "u8"),
        Map.entry("unsigned_long_long", "u8"), Map.entry("uint64_t", "u8"));

    /** @return the NumPy type string of a basic type: byte order, kind and size ({@code <f8}) */
    static String basic(final String name) {
        final String code = BASIC.get(name);
        if (code == null) {
            return "|V" + Datatype.parse(name).size();
        }
        final boolean oneByte = code.endsWith("1") && !code.endsWith("c1");
        return (oneByte ? "|" : ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? "<" : ">") + code;
    }

    /** @return the {@code descr} of an element type, as a Python literal */
    static String descr(final Datatype element) {
        final List<TypemapEntry> entries = new ArrayList<>();
        element.typemap().forEach(entries::add);
        if (entries.size() == 1 && entries.get(0).displacement() == 0 && element.extent() == element.size()) {
            return "'" + basic(entries.get(0).type()) + "'";
        }
        final StringBuilder s = new StringBuilder("[");
        long at = 0;
        int field = 0;
        for (final TypemapEntry e : sortedByDisplacement(entries)) {
            if (e.displacement() > at) {
                // unnamed void fields are padding to numpy.lib.format, which keeps the offsets
                s.append(s.length() > 1 ? ", " : "").append("('', '|V").append(e.displacement() - at).append("')");
            }
            s.append(s.length() > 1 ? ", " : "").append("('f").append(field++).append("', '")
                .append(basic(e.type())).append("')");
            at = e.displacement() + Datatype.parse(e.type()).size();
        }
        if (element.extent() > at) {
            s.append(", ('', '|V").append(element.extent() - at).append("')");
        }
        return s.append(']').toString();
    }

    private static List<TypemapEntry> sortedByDisplacement(final List<TypemapEntry> entries) {
        final List<TypemapEntry> sorted = new ArrayList<>(entries);
        sorted.sort(java.util.Comparator.comparingLong(TypemapEntry::displacement));
        for (int i = 0; i < sorted.size(); i++) {
            final TypemapEntry e = sorted.get(i);
            if (e.displacement() < 0 || i > 0 && e.displacement() < sorted.get(i - 1).displacement()
                + Datatype.parse(sorted.get(i - 1).type()).size()) {
                throw org.pario.ParioException.argument("elements of " + sorted + " overlap or start before their "
                    + "address; NumPy has no dtype for them");
            }
        }
        return sorted;
    }

    /**
     * @param element the element type
     * @param shape   the array's shape
     * @param order   its order
     * @return the bytes before the data: magic, version, length and the padded header dict
     */
    static byte[] header(final Datatype element, final long[] shape, final Order order) {
        final StringBuilder dims = new StringBuilder("(");
        for (int d = 0; d < shape.length; d++) {
            dims.append(d == 0 ? "" : ", ").append(shape[d]);
        }
        dims.append(shape.length == 1 ? ",)" : ")");
        final StringBuilder dict = new StringBuilder("{'descr': ").append(descr(element)).append(", 'fortran_order': ")
            .append(order == Order.FORTRAN ? "True" : "False").append(", 'shape': ").append(dims).append(", }");
        // magic (6) + version (2) + length (2) + dict + padding + newline: a multiple of 64
        final int unpadded = 10 + dict.length() + 1;
        final int total = (unpadded + 63) / 64 * 64;
        dict.append(" ".repeat(total - unpadded)).append('\n');
        final byte[] text = dict.toString().getBytes(StandardCharsets.US_ASCII);
        if (text.length > 65535) {
            throw org.pario.ParioException.argument("the element type " + element + " needs a NumPy header longer "
                + "than format 1.0 holds");
        }
        final byte[] out = new byte[10 + text.length];
        out[0] = (byte) 0x93;
        System.arraycopy("NUMPY".getBytes(StandardCharsets.US_ASCII), 0, out, 1, 5);
        out[6] = 1;
        out[7] = 0;
        out[8] = (byte) (text.length & 0xff);
        out[9] = (byte) (text.length >>> 8);
        System.arraycopy(text, 0, out, 10, text.length);
        return out;
    }
}
