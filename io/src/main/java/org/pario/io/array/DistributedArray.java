package org.pario.io.array;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
import org.pario.datatypes.Order;

/**
 * A global array distributed HPF style over the ranks of a communicator: its shape, element type (any datatype,
 * structs included, with the Java buffer that holds it), one {@link Dist} per dimension, the process grid (chosen
 * like {@code MPI_Dims_create} for the communicator's size, or given) and the storage order. Immutable; bound to
 * its communicator, so the rank count is never a separate argument and a description cannot be used by ranks it
 * was not made for. {@link #local()} is this rank's part: its local shape, its darray filetype, and the mapping
 * between local and global indices. Nothing here grows with the element count.
 *
 * <pre>{@code
 * DistributedArray<double[]> field = DistributedArray.of(world, Element.DOUBLE, new long[] {256, 256, 512},
 *     Dist.block(), Dist.block(), Dist.cyclic(2));
 * double[] mine = field.allocate();           // this rank's elements, in local order
 * }</pre>
 *
 * @param <T> the buffer class holding a rank's elements ({@code double[]}, {@code ByteBuffer}, ...)
 */
public final class DistributedArray<T> {
    private final Communicator comm;
    private final long[] shape;
    private final Element<T> element;
    private final Dist[] dists;
    private final long[] grid;
    private final long[] requestedGrid;
    private final Order order;

    private DistributedArray(final Communicator comm, final long[] shape, final Element<T> element,
                             final Dist[] dists, final long[] requestedGrid, final Order order) {
        this.comm = comm;
        this.shape = shape;
        this.element = element;
        this.dists = dists;
        this.requestedGrid = requestedGrid;
        this.order = order;
        this.grid = chooseGrid(shape, dists, requestedGrid, comm.size());
    }

    /**
     * A distributed array over the ranks of {@code comm}, in C order (last index fastest), on a balanced grid.
     *
     * @param comm    the ranks that hold it
     * @param element the element type and its buffer ({@link Element#DOUBLE}, {@link Element#of(Datatype)}, ...)
     * @param shape   global elements per dimension, each {@code >= 1}
     * @param dists   the distribution of each dimension, one per dimension; none at all means BLOCK in every one
     * @param <T>     the buffer class
     * @return the array
     * @throws ParioException naming the argument if the shape, distributions and rank count do not fit together
     */
    public static <T> DistributedArray<T> of(final Communicator comm, final Element<T> element, final long[] shape,
                                             final Dist... dists) {
        Objects.requireNonNull(comm, "comm");
        Objects.requireNonNull(element, "element");
        Objects.requireNonNull(shape, "shape");
        final Dist[] d = dists == null || dists.length == 0 ? blocks(shape.length) : dists.clone();
        final DistributedArray<T> array = new DistributedArray<>(comm, shape.clone(), element, d, null, Order.C);
        CheckpointWarmup.startOnce(array);
        return array;
    }

    private static Dist[] blocks(final int n) {
        final Dist[] d = new Dist[n];
        Arrays.fill(d, Dist.block());
        return d;
    }

    /**
     * The same array on a given process grid.
     *
     * @param grid processes per dimension (their product the communicator's size); a 0 entry is chosen, others
     *             are kept, as {@code MPI_Dims_create} does
     * @return the array
     */
    public DistributedArray<T> grid(final long... grid) {
        Objects.requireNonNull(grid, "grid");
        return new DistributedArray<>(comm, shape, element, dists, grid.clone(), order);
    }

    /**
     * The same array in another storage order.
     *
     * @param order C (last index fastest) or Fortran (first index fastest)
     * @return the array
     */
    public DistributedArray<T> order(final Order order) {
        Objects.requireNonNull(order, "order");
        return new DistributedArray<>(comm, shape, element, dists, requestedGrid, order);
    }

    /**
     * The process grid an array of this shape and these distributions gets on {@code ranks} ranks, checked as
     * {@link #of} checks it: for tools that validate a layout before they start any rank.
     *
     * @param ranks the number of ranks
     * @param shape global elements per dimension
     * @param dists the distribution of each dimension
     * @param grid  processes per dimension with 0 for those to choose, or null to choose all
     * @return the grid
     * @throws ParioException naming the argument if they do not fit together
     */
    public static long[] gridFor(final int ranks, final long[] shape, final Dist[] dists, final long[] grid) {
        return chooseGrid(shape.clone(), dists.clone(), grid == null ? null : grid.clone(), ranks);
    }

    /**
     * The most elements any one rank holds of an array of this shape and these distributions on {@code ranks}
     * ranks, checked as {@link #of} checks them: for tools that size buffers or refuse a layout that cannot fit
     * before they start any rank.
     *
     * @param ranks the number of ranks
     * @param shape global elements per dimension
     * @param dists the distribution of each dimension
     * @param grid  processes per dimension with 0 for those to choose, or null to choose all
     * @return the largest local element count
     * @throws ParioException naming the argument if they do not fit together, or the count passes a long
     */
    public static long largestLocalCount(final int ranks, final long[] shape, final Dist[] dists, final long[] grid) {
        final long[] g = gridFor(ranks, shape, dists, grid);
        long n = 1;
        try {
            for (int d = 0; d < shape.length; d++) {
                final long p = g[d];
                final long most = switch (dists[d].kind()) {
                    case NONE -> shape[d];
                    case BLOCK -> Math.min(shape[d], dists[d].size() > 0 ? dists[d].size()
                        : (shape[d] + p - 1) / p);
                    case CYCLIC -> {
                        final long k = dists[d].size();
                        // rank 0 of the dimension holds the most: whole rounds of k, and the first k of the rest
                        yield shape[d] / (k * p) * k + Math.min(k, shape[d] % (k * p));
                    }
                };
                n = Math.multiplyExact(n, most);
            }
        } catch (ArithmeticException e) {
            throw ParioException.argument("an array of shape " + Arrays.toString(shape) + " on " + ranks + " ranks "
                + "gives one rank more than 2^63 elements");
        }
        return n;
    }

    private static long[] chooseGrid(final long[] shape, final Dist[] dists, final long[] grid, final int ranks) {
        if (shape.length == 0 || dists.length != shape.length) {
            throw ParioException.argument("a distributed array needs one distribution per dimension: shape "
                + Arrays.toString(shape) + ", distributions " + Arrays.toString(dists));
        }
        for (final long n : shape) {
            if (n < 1) {
                throw ParioException.argument("array dimensions must be >= 1, got " + Arrays.toString(shape));
            }
        }
        for (final Dist d : dists) {
            Objects.requireNonNull(d, "a distribution");
        }
        final long[] g = grid == null ? new long[shape.length] : grid.clone();
        if (g.length != shape.length) {
            throw ParioException.argument("the process grid " + Arrays.toString(g) + " needs " + shape.length
                + " dimensions");
        }
        for (int d = 0; d < shape.length; d++) {
            if (dists[d].kind() == Distribution.NONE) {
                if (g[d] > 1) {
                    throw ParioException.argument("dimension " + d + " is not distributed, so its grid size must be "
                        + "1, got " + g[d]);
                }
                g[d] = 1;
            }
        }
        final long[] chosen = dimsCreate(ranks, g);
        for (int d = 0; d < shape.length; d++) {
            final Dist x = dists[d];
            if (x.kind() == Distribution.BLOCK && x.size() > 0 && x.size() * chosen[d] < shape[d]) {
                throw ParioException.argument("BLOCK(" + x.size() + ") over " + chosen[d] + " processes covers "
                    + x.size() * chosen[d] + " of the " + shape[d] + " elements of dimension " + d);
            }
        }
        return chosen;
    }

    /**
     * {@code MPI_Dims_create}: a grid of {@code dims.length} dimensions whose sizes multiply to {@code ranks},
     * keeping the positive entries of {@code dims} and filling its zeros as evenly as possible, largest first.
     *
     * @param ranks the number of processes
     * @param dims  0 for a dimension to choose, or its fixed size
     * @return the grid
     */
    public static long[] dimsCreate(final int ranks, final long[] dims) {
        if (ranks < 1) {
            throw ParioException.argument("dimsCreate: ranks must be >= 1, got " + ranks);
        }
        long fixed = 1;
        final List<Integer> free = new ArrayList<>();
        for (int d = 0; d < dims.length; d++) {
            if (dims[d] < 0) {
                throw ParioException.argument("dimsCreate: sizes must be >= 0, got " + Arrays.toString(dims));
            }
            if (dims[d] == 0) {
                free.add(d);
            } else {
                fixed *= dims[d];
            }
        }
        if (ranks % fixed != 0 || free.isEmpty() && fixed != ranks) {
            throw ParioException.argument("a process grid " + Arrays.toString(dims) + " cannot hold " + ranks
                + " ranks");
        }
        long left = ranks / fixed;
        final long[] sizes = new long[free.size()];
        Arrays.fill(sizes, 1);
        // prime factors, largest first, each to the currently smallest dimension: a balanced grid
        final List<Long> factors = new ArrayList<>();
        for (long f = 2; f * f <= left; f++) {
            while (left % f == 0) {
                factors.add(f);
                left /= f;
            }
        }
        if (left > 1) {
            factors.add(left);
        }
        factors.sort((a, b) -> Long.compare(b, a));
        for (final long f : factors) {
            int smallest = 0;
            for (int i = 1; i < sizes.length; i++) {
                if (sizes[i] < sizes[smallest]) {
                    smallest = i;
                }
            }
            sizes[smallest] *= f;
        }
        Arrays.sort(sizes);
        final long[] out = dims.clone();
        for (int i = 0; i < free.size(); i++) {
            out[free.get(i)] = sizes[sizes.length - 1 - i];
        }
        return out;
    }

    /** @return the communicator whose ranks hold the array */
    public Communicator comm() {
        return comm;
    }

    /** @return the global shape */
    public long[] shape() {
        return shape.clone();
    }

    /** @return the element type and the buffer that holds it */
    public Element<T> element() {
        return element;
    }

    /** @return the datatype of one element */
    public Datatype elementType() {
        return element.type();
    }

    /** @return the distribution of each dimension */
    public Dist[] dists() {
        return dists.clone();
    }

    /** @return the process grid */
    public long[] grid() {
        return grid.clone();
    }

    /** @return the storage order */
    public Order order() {
        return order;
    }

    /** @return the number of ranks, the communicator's size */
    public int ranks() {
        return comm.size();
    }

    /** @return the number of elements of the global array */
    public long globalCount() {
        long n = 1;
        for (final long s : shape) {
            n = Math.multiplyExact(n, s);
        }
        return n;
    }

    /** @return this rank's part */
    public Local local() {
        return new Local(comm.rank());
    }

    /**
     * Another rank's part, for pictures and tools; I/O always uses {@link #local()}.
     *
     * @param rank a rank of the communicator
     * @return that rank's part
     */
    public Local local(final int rank) {
        if (rank < 0 || rank >= comm.size()) {
            throw ParioException.argument("rank " + rank + " is not one of the " + comm.size() + " ranks of the "
                + "array's communicator");
        }
        return new Local(rank);
    }

    /**
     * A new, zeroed buffer for this rank's elements, exactly as long as they need.
     *
     * @return the buffer
     * @throws ParioException if the part does not fit one Java array
     */
    public T allocate() {
        return element.allocate(local().count());
    }

    /**
     * How this array is laid out, as text every rank can compare: shape, element, distributions, grid, order.
     *
     * @return the description
     */
    String layout() {
        return Arrays.toString(shape) + " of " + element.type() + ", " + Arrays.toString(dists) + " on grid "
            + Arrays.toString(grid) + ", " + order;
    }

    @Override
    public String toString() {
        return "DistributedArray" + layout() + " on " + comm.size() + " rank" + (comm.size() == 1 ? "" : "s");
    }

    /** One rank's part of the array: which global elements it holds, and in which local order. */
    public final class Local {
        private final int rank;
        private final long[] coords;
        private final long[] localShape;

        private Local(final int rank) {
            this.rank = rank;
            this.coords = new long[grid.length];
            long r = rank;
            // MPI's darray numbers the grid in row-major order whatever the array's order
            for (int d = grid.length - 1; d >= 0; d--) {
                coords[d] = r % grid[d];
                r /= grid[d];
            }
            this.localShape = new long[shape.length];
            for (int d = 0; d < shape.length; d++) {
                localShape[d] = localSize(d);
            }
        }

        private long block(final int d) {
            return dists[d].size() > 0 ? dists[d].size() : (shape[d] + grid[d] - 1) / grid[d];
        }

        private long localSize(final int d) {
            final long n = shape[d];
            final long p = grid[d];
            final long c = coords[d];
            return switch (dists[d].kind()) {
                case NONE -> n;
                case BLOCK -> Math.max(0, Math.min(n, (c + 1) * block(d)) - c * block(d));
                case CYCLIC -> {
                    final long k = dists[d].size();
                    yield n / (k * p) * k + Math.max(0, Math.min(k, n % (k * p) - c * k));
                }
            };
        }

        /** @return this rank */
        public int rank() {
            return rank;
        }

        /** @return the array this is a part of */
        public DistributedArray<T> array() {
            return DistributedArray.this;
        }

        /** @return this rank's coordinates in the process grid */
        public long[] coords() {
            return coords.clone();
        }

        /** @return the local shape */
        public long[] shape() {
            return localShape.clone();
        }

        /** @return the number of local elements (0 for a rank that owns nothing) */
        public long count() {
            long n = 1;
            for (final long s : localShape) {
                n = Math.multiplyExact(n, s);
            }
            return n;
        }

        /**
         * The number of local elements as an {@code int}, for loops over a Java array of them.
         *
         * @return {@link #count()}
         * @throws ParioException if the part holds more elements than a Java array can
         */
        public int intCount() {
            final long n = count();
            if (n > Integer.MAX_VALUE - 8) {
                throw ParioException.argument("rank " + rank + " holds " + n + " elements, more than a Java array "
                    + "can; use count()");
            }
            return (int) n;
        }

        /** @return the darray filetype: this rank's elements within the global array ({@code MPI_Type_create_darray}) */
        public Datatype filetype() {
            final Distribution[] kinds = new Distribution[shape.length];
            final long[] dargs = new long[shape.length];
            for (int d = 0; d < shape.length; d++) {
                kinds[d] = dists[d].kind();
                dargs[d] = dists[d].kind() == Distribution.NONE || dists[d].kind() == Distribution.BLOCK
                    && dists[d].size() == 0 ? Datatype.DISTRIBUTE_DFLT_DARG : dists[d].size();
            }
            return Datatype.darray(ranks(), rank, shape, kinds, dargs, grid, order, element.type());
        }

        /**
         * @param local a local index per dimension
         * @return the global index per dimension of that element
         */
        public long[] toGlobal(final long[] local) {
            final long[] g = new long[shape.length];
            for (int d = 0; d < shape.length; d++) {
                if (local[d] < 0 || local[d] >= localShape[d]) {
                    throw ParioException.argument("local index " + Arrays.toString(local) + " is outside the local "
                        + "shape " + Arrays.toString(localShape));
                }
                g[d] = switch (dists[d].kind()) {
                    case NONE -> local[d];
                    case BLOCK -> coords[d] * block(d) + local[d];
                    case CYCLIC -> {
                        final long k = dists[d].size();
                        yield local[d] / k * k * grid[d] + coords[d] * k + local[d] % k;
                    }
                };
            }
            return g;
        }

        /**
         * @param global a global index per dimension
         * @return its local index per dimension, or null if another rank owns it
         */
        public long[] toLocal(final long[] global) {
            final long[] l = new long[shape.length];
            for (int d = 0; d < shape.length; d++) {
                final long g = global[d];
                if (g < 0 || g >= shape[d]) {
                    throw ParioException.argument("global index " + Arrays.toString(global) + " is outside the shape "
                        + Arrays.toString(shape));
                }
                switch (dists[d].kind()) {
                    case NONE -> l[d] = g;
                    case BLOCK -> {
                        if (g / block(d) != coords[d]) {
                            return null;
                        }
                        l[d] = g % block(d);
                    }
                    case CYCLIC -> {
                        final long k = dists[d].size();
                        if (g / k % grid[d] != coords[d]) {
                            return null;
                        }
                        l[d] = g / (k * grid[d]) * k + g % k;
                    }
                    default -> throw new IllegalStateException();
                }
            }
            return l;
        }

        /**
         * @param local a local index per dimension
         * @return its position in the local buffer, in the array's order
         */
        public long offsetOf(final long[] local) {
            return linear(local, localShape);
        }

        /**
         * @param position a position in the local buffer
         * @return the global index, one per dimension, of the element there
         */
        public long[] globalIndex(final long position) {
            return toGlobal(unlinear(position, localShape));
        }

        /**
         * @param position a position in the local buffer
         * @return the global linear index (in the array's order) of the element there
         */
        public long globalLinear(final long position) {
            return linear(toGlobal(unlinear(position, localShape)), shape);
        }

        private long linear(final long[] index, final long[] dims) {
            long at = 0;
            if (order == Order.C) {
                for (int d = 0; d < dims.length; d++) {
                    at = at * dims[d] + index[d];
                }
            } else {
                for (int d = dims.length - 1; d >= 0; d--) {
                    at = at * dims[d] + index[d];
                }
            }
            return at;
        }

        private long[] unlinear(final long position, final long[] dims) {
            final long[] index = new long[dims.length];
            long left = position;
            if (order == Order.C) {
                for (int d = dims.length - 1; d >= 0; d--) {
                    index[d] = left % dims[d];
                    left /= dims[d];
                }
            } else {
                for (int d = 0; d < dims.length; d++) {
                    index[d] = left % dims[d];
                    left /= dims[d];
                }
            }
            return index;
        }
    }
}
