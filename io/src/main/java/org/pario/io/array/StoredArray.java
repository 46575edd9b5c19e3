package org.pario.io.array;

import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;
import org.pario.datatypes.TypemapEntry;

/**
 * One array as a checkpoint's header describes it. Immutable.
 *
 * @param name       its name, unique in the checkpoint
 * @param shape      the global shape
 * @param element    the element type
 * @param order      C or Fortran
 * @param dists      the distribution it was written with (informational: it restores with any)
 * @param grid       the process grid it was written on (informational)
 * @param attributes the array's own attributes
 * @param offset     where its data starts in the file
 * @param bytes      its size in the file
 * @param crc32c     the checksum of each {@code chunkBytes} piece of its data, in order
 */
public record StoredArray(String name, long[] shape, Datatype element, Order order, List<Dist> dists, long[] grid,
                          Attributes attributes, long offset, long bytes, long[] crc32c) {
    /** Copies the arrays, so the record stays immutable. */
    public StoredArray {
        Objects.requireNonNull(name, "name");
        shape = shape.clone();
        dists = List.copyOf(dists);
        grid = grid.clone();
        crc32c = crc32c.clone();
    }

    @Override
    public long[] shape() {
        return shape.clone();
    }

    @Override
    public long[] grid() {
        return grid.clone();
    }

    @Override
    public long[] crc32c() {
        return crc32c.clone();
    }

    /** @return the number of checksum chunks */
    public int chunks() {
        return crc32c.length;
    }

    /** @return the number of elements */
    public long count() {
        long n = 1;
        for (final long d : shape) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    StoredArray placed(final long at) {
        return new StoredArray(name, shape, element, order, dists, grid, attributes, at, bytes, crc32c);
    }

    StoredArray withChecksums(final long[] sums) {
        return new StoredArray(name, shape, element, order, dists, grid, attributes, offset, bytes, sums);
    }

    /**
     * Why elements of {@code type} cannot be read as this array's elements: the typemaps must be the same basic
     * types at the same displacements and the extents equal, or the bytes would be read as other values (a
     * {@code double} array restored as {@code long} has the same size and means something else).
     *
     * @param type the element type a reader asks for
     * @return null when they match, else why not
     */
    String elementMismatch(final Datatype type) {
        if (type.extent() != element.extent() || type.size() != element.size()) {
            return "elements of " + element.size() + " bytes " + element.extent() + " apart, not "
                + type.size() + " bytes " + type.extent() + " apart";
        }
        final Iterator<TypemapEntry> stored = element.typemap().iterator();
        final Iterator<TypemapEntry> asked = type.typemap().iterator();
        long i = 0;
        while (stored.hasNext() && asked.hasNext()) {
            final TypemapEntry s = stored.next();
            final TypemapEntry a = asked.next();
            if (!s.equals(a)) {
                return "entry " + i + " of the element's typemap is " + s + " in the file, " + a + " in "
                    + type;
            }
            i++;
        }
        return stored.hasNext() == asked.hasNext() ? null : "the typemaps have different lengths";
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof StoredArray a && a.name.equals(name) && Arrays.equals(a.shape, shape)
            && a.element.equals(element) && a.order == order && a.dists.equals(dists) && Arrays.equals(a.grid, grid)
            && a.attributes.equals(attributes) && a.offset == offset && a.bytes == bytes
            && Arrays.equals(a.crc32c, crc32c);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, Arrays.hashCode(shape), element, order, offset, bytes);
    }

    @Override
    public String toString() {
        return name + ": " + String.join("x", Arrays.stream(shape).mapToObj(Long::toString).toList()) + " of "
            + element + " (" + (order == Order.C ? "c" : "fortran") + " order), written " + dists + " on grid "
            + Arrays.toString(grid) + ", " + bytes + " bytes at " + offset + ", " + crc32c.length + " checksum"
            + (crc32c.length == 1 ? "" : "s") + (attributes.isEmpty() ? "" : ", attributes " + attributes);
    }
}
