package org.pario.io.array;

import java.util.Arrays;
import java.util.Objects;

import org.pario.ParioException;

/**
 * A box of an array: a start, a count and a stride per dimension, the elements {@code start[d] + i * stride[d]}
 * for {@code 0 <= i < count[d]}. Immutable. A region restored from a checkpoint is an array of shape
 * {@link #count()}, in the stored array's order.
 *
 * <pre>{@code
 * Region box = Region.of(new long[] {0, 128}, new long[] {64, 256});       // rows 0..63, columns 128..383
 * Region everyOther = box.stride(1, 2);                                       // columns 128, 130, ..., 638
 * Region parsed = Region.parse("0:64, 128:640:2", storedShape);               // the same, as NumPy writes it
 * }</pre>
 */
public final class Region {
    private final long[] start;
    private final long[] count;
    private final long[] stride;

    private Region(final long[] start, final long[] count, final long[] stride) {
        this.start = start;
        this.count = count;
        this.stride = stride;
    }

    /**
     * @param start the first element's index in each dimension, each {@code >= 0}
     * @param count elements per dimension, each {@code >= 0} (a region with a 0 holds nothing)
     * @return the region, stride 1 in every dimension
     * @throws ParioException naming the argument if the arrays differ in length or hold a negative number
     */
    public static Region of(final long[] start, final long[] count) {
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(count, "count");
        final long[] ones = new long[start.length];
        Arrays.fill(ones, 1);
        return checked(start.clone(), count.clone(), ones);
    }

    /**
     * @param shape an array's shape
     * @return the region holding the whole array
     */
    public static Region all(final long[] shape) {
        return of(new long[shape.length], shape);
    }

    /**
     * The same box with every {@code stride[d]}-th element: {@code count} stays the number of elements taken.
     *
     * @param stride elements between two taken ones in each dimension, each {@code >= 1}
     * @return the strided region
     */
    public Region stride(final long... stride) {
        Objects.requireNonNull(stride, "stride");
        return checked(start, count, stride.clone());
    }

    private static Region checked(final long[] start, final long[] count, final long[] stride) {
        if (start.length == 0 || count.length != start.length || stride.length != start.length) {
            throw ParioException.argument("a region needs a start, a count and a stride for each of its dimensions "
                + "(at least one): start " + Arrays.toString(start) + ", count " + Arrays.toString(count) + ", stride "
                + Arrays.toString(stride));
        }
        for (int d = 0; d < start.length; d++) {
            if (start[d] < 0 || count[d] < 0 || stride[d] < 1) {
                throw ParioException.argument("a region's starts and counts must be >= 0 and its strides >= 1; "
                    + "dimension " + d + " has start " + start[d] + ", count " + count[d] + ", stride " + stride[d]);
            }
        }
        return new Region(start, count, stride);
    }

    /**
     * Parses a region as NumPy's basic indexing writes it, one comma-separated item per dimension: {@code a:b}
     * (elements a to b-1), {@code a:b:s} (every s-th), {@code :} or empty (the whole dimension), {@code a:} (a to
     * the end), {@code :b}, or {@code i} (the one element i, the dimension kept with count 1).
     *
     * @param spec  for example {@code "0:64, 128:640:2, :"}
     * @param shape the shape of the array it is for, which open ends refer to
     * @return the region
     * @throws ParioException quoting the item that is not understood or reaches past the array
     */
    public static Region parse(final String spec, final long[] shape) {
        Objects.requireNonNull(spec, "spec");
        final String[] items = spec.split(",", -1);
        if (items.length != shape.length) {
            throw ParioException.argument("region '" + spec + "' has " + items.length + " item"
                + (items.length == 1 ? "" : "s") + " for an array of " + shape.length + " dimension"
                + (shape.length == 1 ? "" : "s") + " " + Arrays.toString(shape));
        }
        final long[] start = new long[shape.length];
        final long[] count = new long[shape.length];
        final long[] stride = new long[shape.length];
        for (int d = 0; d < shape.length; d++) {
            final String item = items[d].strip();
            final String[] parts = item.split(":", -1);
            try {
                if (parts.length == 1 && !item.isEmpty()) {
                    start[d] = Long.parseLong(item);
                    count[d] = 1;
                    stride[d] = 1;
                } else if (parts.length <= 3) {
                    final long from = parts[0].isBlank() ? 0 : Long.parseLong(parts[0].strip());
                    final long to = parts.length < 2 || parts[1].isBlank() ? shape[d] : Long.parseLong(parts[1].strip());
                    final long step = parts.length < 3 || parts[2].isBlank() ? 1 : Long.parseLong(parts[2].strip());
                    if (from < 0 || to < from || to > shape[d] || step < 1) {
                        throw ParioException.argument("region item '" + item + "' for dimension " + d + " of size "
                            + shape[d] + " must be start:end[:step] with 0 <= start <= end <= " + shape[d]
                            + " and step >= 1");
                    }
                    start[d] = from;
                    count[d] = (to - from + step - 1) / step;
                    stride[d] = step;
                } else {
                    throw ParioException.argument("region item '" + item + "' has more than two colons");
                }
            } catch (NumberFormatException e) {
                throw ParioException.argument("region item '" + item + "' for dimension " + d + " is not i, "
                    + "start:end or start:end:step");
            }
        }
        return checked(start, count, stride).within(shape);
    }

    /**
     * @param shape an array's shape
     * @return this region, checked to lie inside an array of that shape
     * @throws ParioException naming the dimension where it reaches past the array
     */
    public Region within(final long[] shape) {
        if (shape.length != start.length) {
            throw ParioException.argument("region " + this + " has " + start.length + " dimensions, the array "
                + shape.length + " " + Arrays.toString(shape));
        }
        for (int d = 0; d < shape.length; d++) {
            if (count[d] > 0 && (start[d] >= shape[d] || (shape[d] - 1 - start[d]) / stride[d] < count[d] - 1)) {
                throw ParioException.argument("region " + this + " reaches past the array " + Arrays.toString(shape)
                    + " in dimension " + d + ": its last index there is " + lastIndex(d) + ", the dimension ends at "
                    + (shape[d] - 1));
            }
        }
        return this;
    }

    private String lastIndex(final int d) {
        try {
            return Long.toString(Math.addExact(start[d], Math.multiplyExact(count[d] - 1, stride[d])));
        } catch (ArithmeticException e) {
            return "past 2^63";
        }
    }

    /** @return the first index in each dimension */
    public long[] start() {
        return start.clone();
    }

    /** @return the number of elements in each dimension: the shape of the region as an array */
    public long[] count() {
        return count.clone();
    }

    /** @return the step between taken elements in each dimension */
    public long[] stride() {
        return stride.clone();
    }

    /** @return the number of dimensions */
    public int dimensions() {
        return start.length;
    }

    /** @return the number of elements in the region */
    public long elements() {
        long n = 1;
        for (final long c : count) {
            n = Math.multiplyExact(n, c);
        }
        return n;
    }

    /** @return whether the region holds no element */
    public boolean isEmpty() {
        for (final long c : count) {
            if (c == 0) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof Region r && Arrays.equals(r.start, start) && Arrays.equals(r.count, count)
            && Arrays.equals(r.stride, stride);
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(start), Arrays.hashCode(count), Arrays.hashCode(stride));
    }

    /** @return the region as NumPy writes it, {@code [0:64, 128:640:2]} */
    @Override
    public String toString() {
        final StringBuilder s = new StringBuilder("[");
        for (int d = 0; d < start.length; d++) {
            s.append(d == 0 ? "" : ", ").append(start[d]).append(':');
            try {
                s.append(Math.addExact(start[d], Math.multiplyExact(count[d], stride[d])));
            } catch (ArithmeticException e) {
                s.append("?");
            }
            if (stride[d] != 1) {
                s.append(':').append(stride[d]);
            }
        }
        return s.append(']').toString();
    }
}
