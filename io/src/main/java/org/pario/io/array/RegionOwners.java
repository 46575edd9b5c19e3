package org.pario.io.array;

import org.pario.datatypes.Distribution;
import org.pario.datatypes.Order;

/** Who holds each element of a region read as an array: the ranks of its distribution, or one process. */
interface RegionOwners {
    /** @return the number of ranks the region is spread over */
    int ranks();

    /**
     * @param level  a storage level (slowest first)
     * @param index  an index of the region along that level's dimension
     * @return the rank contribution of that index's owner ({@code coordinate * rank stride}) in the high 32 bits
     *     and, in the low 32 bits, how many of the following indices share that owner (at most 2^31 - 1)
     */
    long ownerRun(int level, long index);

    /** Every element to one rank: a region read by one process. */
    static RegionOwners oneProcess(final int dimensions) {
        return new RegionOwners() {
            @Override
            public int ranks() {
                return 1;
            }

            @Override
            public long ownerRun(final int level, final long index) {
                return Integer.MAX_VALUE;
            }
        };
    }

    /** The owners of a region's elements distributed as {@code array} is (its shape the region's count). */
    static RegionOwners distributed(final DistributedArray<?> array) {
        final long[] shape = array.shape();
        final Dist[] dists = array.dists();
        final long[] grid = array.grid();
        final int n = shape.length;
        final long[] rankStride = new long[n];
        long r = 1;
        // MPI's darray numbers the grid in row-major order whatever the array's order
        for (int d = n - 1; d >= 0; d--) {
            rankStride[d] = r;
            r *= grid[d];
        }
        final int[] dimAt = new int[n];
        for (int k = 0; k < n; k++) {
            dimAt[k] = array.order() == Order.C ? k : n - 1 - k;
        }
        return new RegionOwners() {
            @Override
            public int ranks() {
                return array.ranks();
            }

            @Override
            public long ownerRun(final int level, final long index) {
                final int d = dimAt[level];
                final long coordinate;
                final long end;
                if (dists[d].kind() == Distribution.NONE) {
                    coordinate = 0;
                    end = shape[d];
                } else if (dists[d].kind() == Distribution.BLOCK) {
                    final long b = dists[d].size() > 0 ? dists[d].size() : (shape[d] + grid[d] - 1) / grid[d];
                    coordinate = index / b;
                    end = Math.min(shape[d], (coordinate + 1) * b);
                } else {
                    final long k = dists[d].size();
                    coordinate = index / k % grid[d];
                    end = Math.min(shape[d], (index / k + 1) * k);
                }
                return coordinate * rankStride[d] << 32 | Math.min(Integer.MAX_VALUE, end - index);
            }
        };
    }
}
