package org.pario.io.array;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;
import org.pario.io.storage.Storage;
import org.pario.io.storage.StorageProvider;
import org.pario.io.storage.Storages;

/**
 * The checkpoint header's bytes ({@code docs/checkpoint-format.md}): a 24-byte prefix (magic, version, JSON
 * length, CRC-32C of the prefix's first 20 bytes and the JSON), then the JSON. Decoding is strict: every field
 * must be present, every enumeration one of its values, every number consistent with the others and the header
 * checksum must match, so one flipped bit anywhere in the header is an error, never another valid header.
 */
final class HeaderCodec {
    /** The first eight bytes of every checkpoint. */
    static final byte[] MAGIC = "PARIOCKP".getBytes(StandardCharsets.US_ASCII);
    /** The format version this code writes and reads. */
    static final int VERSION = 2;
    /** Bytes before the JSON: magic, version (int), JSON length (long), checksum (int), little-endian. */
    static final int PREFIX = 24;
    /** Arrays start at multiples of this. */
    static final long ALIGN = 4096;
    /** The longest header this code reads: far more than any real one, and bounded memory for a damaged length. */
    static final long MAX_HEADER = 1L << 30;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A chunk's CRC-32C as eight lowercase hex digits, as the format writes it. */
    private static final HexFormat CRC_HEX = HexFormat.of();
    /** Fixed width whatever the time, so the header's length is known before the time is. */
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'",
        Locale.ROOT).withZone(ZoneOffset.UTC);

    private HeaderCodec() {
    }

    /** @return the header's JSON text, the form ranks compare to agree on what they write */
    static String json(final CheckpointHeader h) {
        final ObjectNode root = JSON.createObjectNode();
        root.put("format", "pario-checkpoint");
        root.put("version", h.version());
        root.put("chunk_bytes", h.chunkBytes());
        root.put("created", TIME.format(h.created()));
        root.put("ranks", h.ranks());
        attributes(root.putObject("attributes"), h.attributes());
        final ArrayNode arrays = root.putArray("arrays");
        for (final StoredArray a : h.arrays()) {
            final ObjectNode o = arrays.addObject();
            o.put("name", a.name());
            final ArrayNode shape = o.putArray("shape");
            Arrays.stream(a.shape()).forEach(shape::add);
            o.put("element", a.element().toString());
            o.put("element_bytes", a.element().extent());
            o.put("order", a.order() == Order.C ? "c" : "fortran");
            o.put("datarep", "native");
            final ArrayNode dists = o.putArray("written_dists");
            a.dists().forEach(d -> dists.add(d.toString()));
            final ArrayNode grid = o.putArray("written_grid");
            Arrays.stream(a.grid()).forEach(grid::add);
            attributes(o.putObject("attributes"), a.attributes());
            o.put("offset", a.offset());
            o.put("bytes", a.bytes());
            final ArrayNode crcs = o.putArray("crc32c");
            for (final long c : a.crc32c()) {
                // not String.format: on Java 17 its parser is a regular expression, and a header's thousand
                // formats had the compiler spend seconds on the regex engine inside a JVM's first checkpoint
                crcs.add(CRC_HEX.toHexDigits((int) c));
            }
        }
        return root.toString();
    }

    private static void attributes(final ObjectNode node, final Attributes attributes) {
        for (final String k : attributes.keys()) {
            final ObjectNode v = node.putObject(k);
            final Object value = attributes.get(k);
            if (value instanceof Long l) {
                v.put("long", l);
            } else if (value instanceof Double d) {
                v.put("double", d);
            } else if (value instanceof Boolean b) {
                v.put("boolean", b);
            } else if (value instanceof String s) {
                v.put("string", s);
            } else if (value instanceof long[] a) {
                final ArrayNode n = v.putArray("long[]");
                Arrays.stream(a).forEach(n::add);
            } else if (value instanceof double[] a) {
                final ArrayNode n = v.putArray("double[]");
                Arrays.stream(a).forEach(n::add);
            } else {
                final ArrayNode n = v.putArray("string[]");
                Arrays.stream((String[]) value).forEach(n::add);
            }
        }
    }

    /** @return the header as written at the start of the file: prefix, then JSON */
    static ByteBuffer encode(final CheckpointHeader h) {
        final byte[] text = json(h).getBytes(StandardCharsets.UTF_8);
        final ByteBuffer b = ByteBuffer.allocate(PREFIX + text.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put(MAGIC).putInt(VERSION).putLong(text.length);
        b.putInt(20, (int) checksum(b.array(), text));
        b.position(PREFIX).put(text);
        if (b.capacity() > h.arrays().stream().mapToLong(StoredArray::offset).min().orElse(Long.MAX_VALUE)) {
            throw new IllegalStateException("checkpoint header overruns the first array");
        }
        return b.flip();
    }

    private static long checksum(final byte[] prefix, final byte[] text) {
        final CRC32C crc = new CRC32C();
        crc.update(prefix, 0, 20);
        crc.update(text);
        return crc.getValue();
    }

    /** @return where the first array may start after a header of this JSON length */
    static long firstOffset(final long jsonBytes) {
        return align(PREFIX + jsonBytes);
    }

    static long align(final long at) {
        return (at + ALIGN - 1) / ALIGN * ALIGN;
    }

    /**
     * Reads and checks the header of a checkpoint, and that the file is as long as the header says.
     *
     * @param location the checkpoint
     * @return its header
     * @throws ParioException of category IO naming the location and what is wrong
     */
    static CheckpointHeader read(final String location) {
        return readWithText(location).header();
    }

    /** A header as read, with its text: what {@link #parse} makes the same header of on another rank. */
    record Read(CheckpointHeader header, byte[] text) {
    }

    /**
     * Reads and checks the header of a checkpoint, as {@link #read(String)} does, keeping its text.
     *
     * @param location the checkpoint
     * @return its header and text
     * @throws ParioException of category IO naming the location and what is wrong
     */
    static Read readWithText(final String location) {
        // reading a header repairs nothing (false): a checkpoint is published whole, by a rename
        try (Storage ch = Storages.open(location,
            new StorageProvider.Request(true, false, false, false, Map.of(), false))) {
            final long size = ch.size();
            final ByteBuffer prefix = ByteBuffer.allocate(PREFIX).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(0, prefix);
            prefix.flip();
            if (prefix.remaining() < 12) {
                throw corrupt(location, "it holds " + size + " bytes, fewer than a checkpoint header");
            }
            final byte[] magic = new byte[MAGIC.length];
            prefix.get(magic);
            if (!Arrays.equals(magic, MAGIC)) {
                throw corrupt(location, "it does not start with PARIOCKP: not a Pario checkpoint");
            }
            final int version = prefix.getInt();
            if (version == 1) {
                throw corrupt(location, "it is in format version 1, written by an older Pario; this Pario reads "
                    + "version " + VERSION + " (restore it with the Pario that wrote it and write it again)");
            }
            if (version != VERSION) {
                throw corrupt(location, "format version " + version + ", this Pario reads version " + VERSION);
            }
            if (prefix.remaining() < PREFIX - 12) {
                throw corrupt(location, "it holds " + size + " bytes, fewer than a checkpoint header");
            }
            final long length = prefix.getLong();
            final long stored = prefix.getInt() & 0xffffffffL;
            if (length < 2 || length > Math.min(size - PREFIX, MAX_HEADER)) {
                throw corrupt(location, "a header length of " + length + " bytes, past the end of the file ("
                    + size + " bytes)");
            }
            final ByteBuffer text = ByteBuffer.allocate((int) length);
            ch.read(PREFIX, text);
            if (text.hasRemaining()) {
                throw corrupt(location, "the header ends early");
            }
            if (checksum(prefix.array(), text.array()) != stored) {
                throw corrupt(location, "the header's checksum does not match its bytes");
            }
            final CheckpointHeader h = parse(new String(text.array(), StandardCharsets.UTF_8), length, location);
            if (size < h.fileBytes()) {
                throw corrupt(location, "it is truncated: it holds " + size + " bytes, its header describes "
                    + h.fileBytes());
            }
            return new Read(h, text.array());
        } catch (IOException e) {
            throw new ParioException(ErrorCategory.IO, "checkpoint " + location + ": " + why(e), e);
        }
    }

    /** @return an I/O failure as a user reads it: what happened to which file */
    static String why(final IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException n) {
            return "no such file " + n.getFile();
        } else if (e instanceof java.nio.file.AccessDeniedException a) {
            return "permission denied on " + a.getFile();
        } else if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason() + " (" + f.getFile() + ")";
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    static ParioException corrupt(final String location, final String why) {
        return new ParioException(ErrorCategory.IO, "checkpoint " + location + " is damaged or not a checkpoint: "
            + why, null);
    }

    static CheckpointHeader parse(final String text, final long length, final String location) {
        try {
            final JsonNode root = JSON.readTree(text);
            fields(root, "the header", "format", "version", "chunk_bytes", "created", "ranks", "attributes",
                "arrays");
            if (!root.path("format").asText().equals("pario-checkpoint")) {
                throw new IllegalArgumentException("format is " + root.path("format") + ", not pario-checkpoint");
            }
            final int version = (int) integer(root, "version", VERSION, VERSION);
            final long chunk = integer(root, "chunk_bytes", 1, 1L << 30);
            final Instant created;
            try {
                created = Instant.from(TIME.parse(root.path("created").asText()));
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("created is " + root.path("created"));
            }
            final int ranks = (int) integer(root, "ranks", 1, Integer.MAX_VALUE);
            final Attributes attributes = attributes(root.path("attributes"), "the checkpoint");
            final List<StoredArray> arrays = new ArrayList<>();
            final Set<String> names = new HashSet<>();
            long end = firstOffset(length);
            for (final JsonNode o : array(root, "arrays")) {
                final StoredArray a = storedArray(o, chunk);
                if (!names.add(a.name())) {
                    throw new IllegalArgumentException("array name '" + a.name() + "' repeated");
                }
                if (a.offset() < end || a.offset() % ALIGN != 0) {
                    throw new IllegalArgumentException("array '" + a.name() + "' at offset " + a.offset());
                }
                end = Math.addExact(a.offset(), a.bytes());
                arrays.add(a);
            }
            return new CheckpointHeader(version, chunk, created, ranks, attributes, arrays);
        } catch (IOException | RuntimeException e) {
            throw corrupt(location, "its header cannot be read (" + e.getMessage() + ")");
        }
    }

    private static StoredArray storedArray(final JsonNode o, final long chunk) {
        fields(o, "an array", "name", "shape", "element", "element_bytes", "order", "datarep", "written_dists",
            "written_grid", "attributes", "offset", "bytes", "crc32c");
        final String name = o.path("name").asText();
        if (!o.path("name").isTextual() || name.isEmpty()) {
            throw new IllegalArgumentException("an array's name is " + o.path("name"));
        }
        final long[] shape = longs(array(o, "shape"), name + ".shape", 1);
        final Datatype element = Datatype.parse(o.path("element").asText());
        if (integer(o, "element_bytes", 1, Long.MAX_VALUE) != element.extent()) {
            throw new IllegalArgumentException("array '" + name + "' has element_bytes " + o.path("element_bytes")
                + " for " + element + " of extent " + element.extent());
        }
        final Order order = switch (o.path("order").asText("")) {
            case "c" -> Order.C;
            case "fortran" -> Order.FORTRAN;
            default -> throw new IllegalArgumentException("array '" + name + "' has order " + o.path("order")
                + ", neither \"c\" nor \"fortran\"");
        };
        if (!o.path("datarep").asText("").equals("native")) {
            throw new IllegalArgumentException("array '" + name + "' has datarep " + o.path("datarep"));
        }
        final List<Dist> dists = new ArrayList<>();
        for (final JsonNode d : array(o, "written_dists")) {
            dists.add(Dist.parse(d.asText()));
        }
        final long[] grid = longs(array(o, "written_grid"), name + ".written_grid", 1);
        if (shape.length == 0 || dists.size() != shape.length || grid.length != shape.length) {
            throw new IllegalArgumentException("array '" + name + "' has " + shape.length + " dimensions, "
                + dists.size() + " distributions and a grid of " + grid.length);
        }
        long count = 1;
        for (final long d : shape) {
            count = Math.multiplyExact(count, d);
        }
        final long bytes = integer(o, "bytes", 1, Long.MAX_VALUE);
        if (Math.multiplyExact(count, element.extent()) != bytes) {
            throw new IllegalArgumentException("array '" + name + "' claims " + bytes + " bytes for "
                + Arrays.toString(shape) + " of " + element);
        }
        final JsonNode crcNode = array(o, "crc32c");
        if (crcNode.size() != (bytes + chunk - 1) / chunk) {
            throw new IllegalArgumentException("array '" + name + "' has " + crcNode.size() + " checksums for "
                + bytes + " bytes");
        }
        final long[] crcs = new long[crcNode.size()];
        for (int i = 0; i < crcs.length; i++) {
            final String hex = crcNode.get(i).asText("");
            if (hex.length() != 8) {
                throw new IllegalArgumentException("array '" + name + "' has checksum " + crcNode.get(i));
            }
            crcs[i] = Long.parseLong(hex, 16);
        }
        return new StoredArray(name, shape, element, order, dists, grid,
            attributes(o.path("attributes"), "array '" + name + "'"), integer(o, "offset", 0, Long.MAX_VALUE), bytes,
            crcs);
    }

    private static Attributes attributes(final JsonNode node, final String owner) {
        if (!node.isObject()) {
            throw new IllegalArgumentException("the attributes of " + owner + " are not an object");
        }
        final Attributes.Builder b = Attributes.builder();
        final Iterator<Map.Entry<String, JsonNode>> it = node.fields();
        while (it.hasNext()) {
            final Map.Entry<String, JsonNode> e = it.next();
            final JsonNode v = e.getValue();
            if (!v.isObject() || v.size() != 1) {
                throw new IllegalArgumentException("attribute '" + e.getKey() + "' of " + owner + " is " + v);
            }
            final String type = v.fieldNames().next();
            final JsonNode x = v.get(type);
            final Object value = switch (type) {
                case "long" -> x.isIntegralNumber() && x.canConvertToLong() ? x.asLong() : null;
                case "double" -> x.isNumber() ? x.asDouble() : null;
                case "boolean" -> x.isBoolean() ? x.asBoolean() : null;
                case "string" -> x.isTextual() ? x.asText() : null;
                case "long[]" -> x.isArray() ? longs(x, e.getKey(), Long.MIN_VALUE) : null;
                case "double[]" -> x.isArray() ? doubles(x, e.getKey()) : null;
                case "string[]" -> x.isArray() ? strings(x, e.getKey()) : null;
                default -> null;
            };
            if (value == null) {
                throw new IllegalArgumentException("attribute '" + e.getKey() + "' of " + owner + " is " + v);
            }
            b.putValue(e.getKey(), value);
        }
        return b.build();
    }

    private static void fields(final JsonNode node, final String what, final String... names) {
        if (!node.isObject()) {
            throw new IllegalArgumentException(what + " is not an object");
        }
        for (final String n : names) {
            if (!node.has(n)) {
                throw new IllegalArgumentException(what + " has no field " + n);
            }
        }
    }

    private static JsonNode array(final JsonNode node, final String field) {
        final JsonNode a = node.path(field);
        if (!a.isArray()) {
            throw new IllegalArgumentException(field + " is not a list");
        }
        return a;
    }

    private static long integer(final JsonNode node, final String field, final long min, final long max) {
        final JsonNode v = node.path(field);
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min || v.asLong() > max) {
            throw new IllegalArgumentException(field + " is " + v);
        }
        return v.asLong();
    }

    private static long[] longs(final JsonNode a, final String what, final long min) {
        final long[] out = new long[a.size()];
        for (int i = 0; i < out.length; i++) {
            final JsonNode v = a.get(i);
            if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min) {
                throw new IllegalArgumentException(what + " holds " + v);
            }
            out[i] = v.asLong();
        }
        return out;
    }

    private static double[] doubles(final JsonNode a, final String what) {
        final double[] out = new double[a.size()];
        for (int i = 0; i < out.length; i++) {
            if (!a.get(i).isNumber()) {
                throw new IllegalArgumentException(what + " holds " + a.get(i));
            }
            out[i] = a.get(i).asDouble();
        }
        return out;
    }

    private static String[] strings(final JsonNode a, final String what) {
        final String[] out = new String[a.size()];
        for (int i = 0; i < out.length; i++) {
            if (!a.get(i).isTextual()) {
                throw new IllegalArgumentException(what + " holds " + a.get(i));
            }
            out[i] = a.get(i).asText();
        }
        return out;
    }
}
