package org.pario.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.pario.ParioException;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;

/**
 * A view spec: every rank's file view and access, as {@code pario view} reads it from JSON (see docs/cli.md).
 *
 * @param ranks     number of ranks
 * @param disps     each rank's view displacement in bytes
 * @param etype     the elementary type
 * @param datarep   the data representation
 * @param filetypes each rank's filetype
 * @param counts    etypes each rank accesses
 * @param offsets   explicit offsets in etypes (write_at_all / read_at_all), or null for the individual pointer
 * @param hints     hints passed at open
 */
record ViewSpec(int ranks, long[] disps, Datatype etype, DataRepresentation datarep, Datatype[] filetypes,
                long[] counts, long[] offsets, Map<String, String> hints) {

    static ViewSpec read(final Path path) {
        final JsonNode root;
        try {
            root = new ObjectMapper().readTree(Files.readString(path));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            final var at = e.getLocation();
            throw ParioException.argument("view spec " + path + (at == null ? "" : ", line " + at.getLineNr()
                + " column " + at.getColumnNr()) + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw ParioException.argument("view spec " + path + ": " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw ParioException.argument("view spec " + path + ": expected a JSON object");
        }
        final long wanted = integer(root, "ranks", true, 1);
        if (wanted < 1 || wanted > 4096) {
            throw ParioException.argument("view spec: ranks must be in [1, 4096], got " + wanted);
        }
        final int ranks = (int) wanted;
        final long[] disps = new long[ranks];
        if (root.has("disps")) {
            final long[] d = longs(root, "disps", ranks);
            System.arraycopy(d, 0, disps, 0, ranks);
        } else {
            java.util.Arrays.fill(disps, integer(root, "disp", false, 0));
        }
        for (final long d : disps) {
            if (d < 0) {
                throw ParioException.argument("view spec: a displacement must be >= 0 (a byte of the file), got " + d);
            }
        }
        final Datatype etype = Datatype.parse(text(root, "etype", true, null));
        final DataRepresentation datarep = DataRepresentation.of(text(root, "datarep", false, "native"));
        final JsonNode ft = root.get("filetypes");
        if (ft == null || !ft.isArray() || (ft.size() != 1 && ft.size() != ranks)) {
            throw ParioException.argument("view spec: filetypes must be a list of 1 or " + ranks + " type expressions");
        }
        final Datatype[] filetypes = new Datatype[ranks];
        for (int r = 0; r < ranks; r++) {
            final JsonNode e = ft.get(ft.size() == 1 ? 0 : r);
            if (!e.isTextual()) {
                throw ParioException.argument("view spec: filetypes[" + r + "] must be a type expression string");
            }
            filetypes[r] = Datatype.parse(e.asText());
        }
        final long[] counts = longs(root, "counts", ranks);
        for (int r = 0; r < ranks; r++) {
            // write and read hold a rank's data in one Java array
            if (counts[r] > (Integer.MAX_VALUE - 8) / Math.max(1, etype.size())) {
                throw ParioException.argument("view spec: counts[" + r + "] = " + counts[r] + " etypes of " + etype
                    + " is more than one rank's buffer holds (2 GiB)");
            }
        }
        final long[] offsets = root.has("offsets") ? longs(root, "offsets", ranks) : null;
        final Map<String, String> hints = new LinkedHashMap<>();
        if (root.has("hints")) {
            final JsonNode h = root.get("hints");
            if (!h.isObject()) {
                throw ParioException.argument("view spec: hints must be an object of strings");
            }
            h.fields().forEachRemaining(e -> hints.put(e.getKey(), e.getValue().asText()));
        }
        return new ViewSpec(ranks, disps, etype, datarep, filetypes, counts, offsets, hints);
    }

    private static long integer(final JsonNode root, final String field, final boolean required, final long dflt) {
        final JsonNode n = root.get(field);
        if (n == null) {
            if (required) {
                throw ParioException.argument("view spec: field '" + field + "' is required");
            }
            return dflt;
        }
        if (!n.canConvertToLong() || !n.isIntegralNumber()) {
            throw ParioException.argument("view spec: '" + field + "' must be an integer, got " + n);
        }
        return n.asLong();
    }

    private static String text(final JsonNode root, final String field, final boolean required, final String dflt) {
        final JsonNode n = root.get(field);
        if (n == null) {
            if (required) {
                throw ParioException.argument("view spec: field '" + field + "' is required");
            }
            return dflt;
        }
        if (!n.isTextual()) {
            throw ParioException.argument("view spec: '" + field + "' must be a string, got " + n);
        }
        return n.asText();
    }

    private static long[] longs(final JsonNode root, final String field, final int ranks) {
        final JsonNode n = root.get(field);
        if (n == null || !n.isArray() || n.size() != ranks) {
            throw ParioException.argument("view spec: '" + field + "' must be a list of " + ranks + " integers");
        }
        final List<Long> values = new ArrayList<>();
        for (int i = 0; i < ranks; i++) {
            if (!n.get(i).isIntegralNumber() || n.get(i).asLong() < 0) {
                throw ParioException.argument("view spec: " + field + "[" + i + "] must be an integer >= 0, got "
                    + n.get(i));
            }
            values.add(n.get(i).asLong());
        }
        return values.stream().mapToLong(Long::longValue).toArray();
    }
}
