package org.pario.cli;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.PrettyPrinter;

/**
 * The one-line layout of Pario's JSON descriptions: {@code ", "} and {@code ": "} between top-level members,
 * nothing between the elements of nested arrays ({@code "blocks": [[0,8],[16,9]]}).
 */
final class SpecJsonPrinter implements PrettyPrinter {
    private int depth;

    @Override
    public void writeRootValueSeparator(final JsonGenerator g) throws IOException {
        g.writeRaw('\n');
    }

    @Override
    public void writeStartObject(final JsonGenerator g) throws IOException {
        depth++;
        g.writeRaw('{');
    }

    @Override
    public void writeEndObject(final JsonGenerator g, final int entries) throws IOException {
        depth--;
        g.writeRaw('}');
    }

    @Override
    public void writeObjectEntrySeparator(final JsonGenerator g) throws IOException {
        g.writeRaw(", ");
    }

    @Override
    public void writeObjectFieldValueSeparator(final JsonGenerator g) throws IOException {
        g.writeRaw(": ");
    }

    @Override
    public void writeStartArray(final JsonGenerator g) throws IOException {
        depth++;
        g.writeRaw('[');
    }

    @Override
    public void writeEndArray(final JsonGenerator g, final int values) throws IOException {
        depth--;
        g.writeRaw(']');
    }

    @Override
    public void writeArrayValueSeparator(final JsonGenerator g) throws IOException {
        g.writeRaw(depth <= 1 ? ", " : ",");
    }

    @Override
    public void beforeArrayValues(final JsonGenerator g) {
    }

    @Override
    public void beforeObjectEntries(final JsonGenerator g) {
    }
}
