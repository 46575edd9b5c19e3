package org.pario.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import org.pario.datatypes.Cursor;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.SignatureEntry;
import org.pario.datatypes.TypemapEntry;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code pario type EXPR}: what a datatype is, in figures, typemap and a picture of one element's bytes. */
@Command(name = "type", mixinStandardHelpOptions = true,
    description = {"Shows a datatype built from a type expression: size, extent, bounds, signature, its typemap",
        "(abridged when long) and a picture of one element's bytes, data runs against holes.",
        "With --json, prints the one-line description of docs/datatypes.md."},
    footer = {"", "Examples:",
        "  pario type 'vector(3, 1, -2, resized(struct([1,1],[0,8],[double,char]), 0, 16))'",
        "  pario type --json 'darray(6, 0, [100,200,300], [cyclic,none,block], [10,dflt,dflt], [2,1,3], fortran, float)'"})
final class TypeCommand implements Callable<Integer> {
    /** Width of the byte picture, in characters. */
    private static final int PICTURE_WIDTH = 64;
    /** Runs examined for the picture; beyond this the picture says it is partial. */
    private static final long PICTURE_RUNS = 1_000_000;

    @Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "EXPR", description = "A type expression, e.g. 'vector(4, 1, 4, int)'.")
    private String expression;

    @Option(names = "--json", description = "Print one line of JSON: figures, blocks and signature.")
    private boolean json;

    @Option(names = "--entries", paramLabel = "N", defaultValue = "16",
        description = "Typemap entries to list before abridging (default: ${DEFAULT-VALUE}).")
    private int entries;

    @picocli.CommandLine.Mixin
    private VerboseOption verbose;

    @Override
    public Integer call() {
        final Datatype type = Datatype.parse(expression);
        final PrintWriter out = spec.commandLine().getOut();
        if (json) {
            writeJson(type, out);
        } else {
            writeReport(type, out);
        }
        out.flush();
        return 0;
    }

    /** Streams the JSON description, so even types with millions of blocks print in constant memory. */
    static void writeJson(final Datatype type, final PrintWriter out) {
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.setPrettyPrinter(new SpecJsonPrinter());
            g.writeStartObject();
            g.writeNumberField("size", type.size());
            g.writeNumberField("extent", type.extent());
            g.writeNumberField("lb", type.lb());
            g.writeNumberField("ub", type.ub());
            g.writeNumberField("true_lb", type.trueLb());
            g.writeNumberField("true_extent", type.trueExtent());
            g.writeArrayFieldStart("blocks");
            final Cursor c = type.cursor(1);
            while (c.next()) {
                g.writeStartArray();
                g.writeNumber(c.offset());
                g.writeNumber(c.length());
                g.writeEndArray();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("signature");
            for (final SignatureEntry e : type.signature()) {
                g.writeStartArray();
                g.writeString(e.type());
                g.writeNumber(e.count());
                g.writeEndArray();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.println();
    }

    private void writeReport(final Datatype type, final PrintWriter out) {
        out.println(type);
        out.println();
        out.printf("  size          %d bytes (external32: %d)%n", type.size(), type.size(DataRepresentation.EXTERNAL32));
        out.printf("  extent        %d   lb %d   ub %d%n", type.extent(), type.lb(), type.ub());
        out.printf("  true extent   %d   true lb %d%n", type.trueExtent(), type.trueLb());
        out.printf("  built by      %s%s%n", type.combiner(), type.isContiguous() ? " (contiguous)" : "");
        out.printf("  signature     %s%n", signature(type));
        out.println();
        out.printf("typemap: %d entr%s%n", type.typemapLength(), type.typemapLength() == 1 ? "y" : "ies");
        final Iterator<TypemapEntry> it = type.typemap().iterator();
        final StringBuilder line = new StringBuilder("  ");
        int shown = 0;
        while (it.hasNext() && shown < entries) {
            final String e = it.next().toString();
            if (line.length() + e.length() > 100) {
                out.println(line.toString().stripTrailing());
                line.setLength(0);
                line.append("  ");
            }
            line.append(e).append(' ');
            shown++;
        }
        if (line.length() > 2) {
            out.println(line.toString().stripTrailing());
        }
        if (type.typemapLength() > shown) {
            out.printf("  ... %d more%n", type.typemapLength() - shown);
        }
        out.println();
        picture(type, out);
    }

    private static String signature(final Datatype type) {
        final List<String> parts = new ArrayList<>();
        for (final SignatureEntry e : type.signature()) {
            if (parts.size() == 8) {
                parts.add("...");
                break;
            }
            parts.add(e.type() + " x" + e.count());
        }
        return parts.isEmpty() ? "(empty)" : String.join(", ", parts);
    }

    /** One element's bytes from min(lb, true lb) to max(ub, true ub): '#' data, '+' partly data, '.' hole. */
    static void picture(final Datatype type, final PrintWriter out) {
        final long from = Math.min(type.lb(), type.trueLb());
        final long to = Math.max(type.ub(), type.trueLb() + type.trueExtent());
        final long span = to - from;
        if (span <= 0) {
            out.println("one element: no bytes");
            return;
        }
        final int width = (int) Math.min(PICTURE_WIDTH, span);
        final long perCell = (span + width - 1) / width;
        final long[] covered = new long[width];
        final List<String> blocks = new ArrayList<>();
        final Cursor c = type.cursor(1);
        long runs = 0;
        while (c.next() && runs < PICTURE_RUNS) {
            runs++;
            if (blocks.size() < 12) {
                blocks.add("[" + c.offset() + "," + c.length() + "]");
            }
            long a = c.offset() - from;
            final long end = a + c.length();
            while (a < end) {
                final int cell = (int) (a / perCell);
                final long cellEnd = Math.min(end, (cell + 1) * perCell);
                covered[cell] += cellEnd - a;
                a = cellEnd;
            }
        }
        final boolean partial = c.next();
        out.printf("one element, bytes %d to %d, %d byte%s per mark ('#' data, '+' some data, '.' hole)%s:%n",
            from, to, perCell, perCell == 1 ? "" : "s", partial ? " from its first " + PICTURE_RUNS + " blocks" : "");
        final StringBuilder bar = new StringBuilder("  |");
        for (int i = 0; i < width; i++) {
            final long cellBytes = Math.min(perCell, span - (long) i * perCell);
            bar.append(covered[i] == 0 ? '.' : covered[i] >= cellBytes ? '#' : '+');
        }
        out.println(bar.append('|'));
        final StringBuilder marks = new StringBuilder("   ");
        final StringBuilder labels = new StringBuilder("   ");
        for (final long at : new long[] {type.lb(), 0, type.ub()}) {
            if (at < from || at > to) {
                continue;
            }
            final int col = (int) Math.min(width, (at - from) / perCell);
            while (marks.length() < 3 + col) {
                marks.append(' ');
            }
            if (marks.length() == 3 + col) {
                marks.append('^');
            }
        }
        labels.append("lb = ").append(type.lb()).append(", ub = ").append(type.ub());
        out.println(marks);
        out.println(labels);
        out.println("blocks (offset, length): " + String.join(" ", blocks) + (runs > blocks.size() ? " ..." : ""));
    }
}
