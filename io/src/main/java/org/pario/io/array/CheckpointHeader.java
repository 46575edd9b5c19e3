package org.pario.io.array;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import org.pario.ParioException;

/**
 * The header of a checkpoint: when it was written, by how many ranks, its attributes and its arrays
 * ({@code docs/checkpoint-format.md}). Immutable; {@link #toString()} prints it as a readable table.
 *
 * @param version    the format version
 * @param chunkBytes bytes per checksum chunk
 * @param created    when the checkpoint was written (rank 0's clock), to the millisecond
 * @param ranks      how many ranks wrote it
 * @param attributes the checkpoint's attributes
 * @param arrays     the arrays, in file order
 */
public record CheckpointHeader(int version, long chunkBytes, Instant created, int ranks, Attributes attributes,
                               List<StoredArray> arrays) {
    /** Copies the list. */
    public CheckpointHeader {
        Objects.requireNonNull(created, "created");
        Objects.requireNonNull(attributes, "attributes");
        arrays = List.copyOf(arrays);
    }

    /**
     * @param name an array's name
     * @return its description
     * @throws ParioException naming the arrays there are, if the checkpoint has no such array
     */
    public StoredArray array(final String name) {
        for (final StoredArray a : arrays) {
            if (a.name().equals(name)) {
                return a;
            }
        }
        throw ParioException.argument("the checkpoint has no array '" + name + "'; it has " + names());
    }

    /** @return the arrays' names, in file order */
    public List<String> names() {
        final List<String> names = new ArrayList<>();
        arrays.forEach(a -> names.add(a.name()));
        return names;
    }

    /** @return the bytes of every array's data together */
    public long dataBytes() {
        return arrays.stream().mapToLong(StoredArray::bytes).sum();
    }

    /** @return the smallest file length that holds every array whole */
    public long fileBytes() {
        long end = 0;
        for (final StoredArray a : arrays) {
            end = Math.max(end, a.offset() + a.bytes());
        }
        return end;
    }

    CheckpointHeader withArrays(final List<StoredArray> placed) {
        return new CheckpointHeader(version, chunkBytes, created, ranks, attributes, placed);
    }

    CheckpointHeader createdAt(final Instant when) {
        return new CheckpointHeader(version, chunkBytes, when, ranks, attributes, arrays);
    }

    @Override
    public String toString() {
        final StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "format version %d, written %s by %d rank%s, CRC-32C per %d bytes%n",
            version, created, ranks, ranks == 1 ? "" : "s", chunkBytes));
        for (final String k : attributes.keys()) {
            b.append(String.format(Locale.ROOT, "attribute %s = %s%n", k, Attributes.text(attributes.get(k))));
        }
        b.append(String.format(Locale.ROOT, "%-12s %-16s %-24s %-7s %-24s %12s %14s %9s%n", "array", "shape",
            "element", "order", "written as", "offset", "bytes", "checksums"));
        for (final StoredArray a : arrays) {
            final List<String> dims = new ArrayList<>();
            for (final long d : a.shape()) {
                dims.add(Long.toString(d));
            }
            final List<String> dists = new ArrayList<>();
            a.dists().forEach(d -> dists.add(d.toString()));
            b.append(String.format(Locale.ROOT, "%-12s %-16s %-24s %-7s %-24s %12d %14d %9d%n", a.name(),
                String.join("x", dims), a.element(), a.order() == org.pario.datatypes.Order.C ? "c" : "fortran",
                String.join(",", dists), a.offset(), a.bytes(), a.chunks()));
            for (final String k : a.attributes().keys()) {
                b.append(String.format(Locale.ROOT, "  %s.%s = %s%n", a.name(), k,
                    Attributes.text(a.attributes().get(k))));
            }
        }
        return b.toString();
    }
}
