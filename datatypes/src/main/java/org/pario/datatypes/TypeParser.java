package org.pario.datatypes;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.pario.ParioException;

/**
 * Recursive-descent parser for type expressions. Errors name the column, what was expected and what was found;
 * constructor arguments are then checked by the factories, whose messages name the argument and its value.
 */
final class TypeParser {
    private final String text;
    private int pos;
    /** Constructors open around the current position: bounded, so no input can exhaust the stack. */
    private int depth;

    TypeParser(final String text) {
        if (text == null) {
            throw ParioException.argument("type expression must not be null");
        }
        this.text = text;
    }

    Datatype parse() {
        final Datatype t = type();
        skipSpace();
        if (pos != text.length()) {
            throw error("expected the end of the expression");
        }
        return t;
    }

    private Datatype type() {
        skipSpace();
        final int start = pos;
        final String word = word("a type name or constructor");
        final String name = Datatype.normalizeName(word);
        skipSpace();
        if (!peek('(')) {
            try {
                return Datatype.predefined(name);
            } catch (ParioException e) {
                pos = start;
                throw error("unknown type name '" + word + "'");
            }
        }
        expect('(');
        if (++depth > Datatype.MAX_DEPTH) {
            pos = start;
            throw error("constructors nest more than " + Datatype.MAX_DEPTH + " deep");
        }
        final Datatype t;
        try {
            t = constructor(name, start);
            depth--;
        } catch (ParioException e) {
            if (e.getMessage().startsWith("type expression")) {
                throw e;
            }
            throw ParioException.argument("type expression, column " + (start + 1) + ": " + e.getMessage());
        }
        return t;
    }

    private Datatype constructor(final String name, final int start) {
        final Datatype t;
        switch (name) {
            case "contiguous" -> {
                final long count = integer();
                comma();
                t = Datatype.contiguous(count, typeArg());
            }
            case "vector", "hvector" -> {
                final long count = integer();
                comma();
                final long blocklength = integer();
                comma();
                final long stride = integer();
                comma();
                final Datatype old = typeArg();
                t = name.equals("vector") ? Datatype.vector(count, blocklength, stride, old)
                    : Datatype.hvector(count, blocklength, stride, old);
            }
            case "indexed", "hindexed" -> {
                final long[] lengths = ints();
                comma();
                final long[] displs = ints();
                comma();
                final Datatype old = typeArg();
                t = name.equals("indexed") ? Datatype.indexed(lengths, displs, old) : Datatype.hindexed(lengths, displs, old);
            }
            case "indexed_block", "hindexed_block" -> {
                final long length = integer();
                comma();
                final long[] displs = ints();
                comma();
                final Datatype old = typeArg();
                t = name.equals("indexed_block") ? Datatype.indexedBlock(length, displs, old)
                    : Datatype.hindexedBlock(length, displs, old);
            }
            case "struct" -> {
                final long[] lengths = ints();
                comma();
                final long[] displs = ints();
                comma();
                final List<Datatype> types = typeList();
                t = Datatype.struct(lengths, displs, types);
            }
            case "subarray" -> {
                final long[] sizes = ints();
                comma();
                final long[] subsizes = ints();
                comma();
                final long[] starts = ints();
                comma();
                final Order order = order();
                comma();
                t = Datatype.subarray(sizes, subsizes, starts, order, typeArg());
            }
            case "darray" -> {
                final long size = integer();
                comma();
                final long rank = integer();
                comma();
                final long[] gsizes = ints();
                comma();
                final Distribution[] distribs = distribs();
                comma();
                final long[] dargs = dargs();
                comma();
                final long[] psizes = ints();
                comma();
                final Order order = order();
                comma();
                t = Datatype.darray(size, rank, gsizes, distribs, dargs, psizes, order, typeArg());
            }
            case "resized" -> {
                final Datatype old = typeArg();
                comma();
                final long lb = integer();
                comma();
                t = Datatype.resized(old, lb, integer());
            }
            case "dup" -> t = Datatype.dup(typeArg());
            default -> {
                pos = start;
                throw error("unknown constructor '" + name + "'");
            }
        }
        expect(')');
        return t;
    }

    private Datatype typeArg() {
        return type();
    }

    private List<Datatype> typeList() {
        expect('[');
        final List<Datatype> types = new ArrayList<>();
        skipSpace();
        if (!peek(']')) {
            types.add(type());
            while (tryConsume(',')) {
                types.add(type());
            }
        }
        expect(']');
        return types;
    }

    private long[] ints() {
        expect('[');
        final List<Long> values = new ArrayList<>();
        skipSpace();
        if (!peek(']')) {
            values.add(integer());
            while (tryConsume(',')) {
                values.add(integer());
            }
        }
        expect(']');
        return values.stream().mapToLong(Long::longValue).toArray();
    }

    private long[] dargs() {
        expect('[');
        final List<Long> values = new ArrayList<>();
        do {
            skipSpace();
            if (Character.isLetter(current())) {
                final String w = Datatype.normalizeName(word("a distribution argument"));
                if (!w.equals("dflt") && !w.equals("distribute_dflt_darg")) {
                    throw error("expected an integer or 'dflt'");
                }
                values.add(Datatype.DISTRIBUTE_DFLT_DARG);
            } else {
                values.add(integer());
            }
        } while (tryConsume(','));
        expect(']');
        return values.stream().mapToLong(Long::longValue).toArray();
    }

    private Distribution[] distribs() {
        expect('[');
        final List<Distribution> values = new ArrayList<>();
        do {
            skipSpace();
            final int at = pos;
            String w = Datatype.normalizeName(word("a distribution (block, cyclic or none)"));
            if (w.startsWith("distribute_")) {
                w = w.substring("distribute_".length());
            }
            try {
                values.add(Distribution.valueOf(w.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                pos = at;
                throw error("expected block, cyclic or none");
            }
        } while (tryConsume(','));
        expect(']');
        return values.toArray(new Distribution[0]);
    }

    private Order order() {
        skipSpace();
        final int at = pos;
        String w = Datatype.normalizeName(word("an order (c or fortran)"));
        if (w.startsWith("order_")) {
            w = w.substring("order_".length());
        }
        return switch (w) {
            case "c" -> Order.C;
            case "fortran" -> Order.FORTRAN;
            default -> {
                pos = at;
                throw error("expected an order, c or fortran");
            }
        };
    }

    private long integer() {
        skipSpace();
        final int start = pos;
        if (pos < text.length() && (text.charAt(pos) == '-' || text.charAt(pos) == '+')) {
            pos++;
        }
        final int digits = pos;
        while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
            pos++;
        }
        if (pos == digits) {
            pos = start;
            throw error("expected an integer");
        }
        try {
            return Long.parseLong(text.substring(start, pos));
        } catch (NumberFormatException e) {
            pos = start;
            throw error("integer " + text.substring(start, digits + (pos - digits)) + " is out of the 64-bit range");
        }
    }

    private String word(final String what) {
        skipSpace();
        final int start = pos;
        while (pos < text.length()) {
            final char ch = text.charAt(pos);
            if (Character.isLetterOrDigit(ch) || ch == '_') {
                pos++;
            } else {
                break;
            }
        }
        if (start == pos) {
            throw error("expected " + what);
        }
        return text.substring(start, pos);
    }

    private void comma() {
        expect(',');
    }

    private void expect(final char ch) {
        skipSpace();
        if (pos >= text.length() || text.charAt(pos) != ch) {
            throw error("expected '" + ch + "'");
        }
        pos++;
    }

    private boolean tryConsume(final char ch) {
        skipSpace();
        if (pos < text.length() && text.charAt(pos) == ch) {
            pos++;
            return true;
        }
        return false;
    }

    private boolean peek(final char ch) {
        skipSpace();
        return pos < text.length() && text.charAt(pos) == ch;
    }

    private char current() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private ParioException error(final String message) {
        final String found = pos >= text.length() ? "the end of the expression"
            : "'" + text.substring(pos, Math.min(text.length(), pos + 12)) + "'";
        return ParioException.argument("type expression, column " + (pos + 1) + ": " + message + ", found " + found);
    }
}
