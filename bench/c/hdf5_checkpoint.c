/*
 * A checkpoint the way HPC codes write one today: an N x N x N array of doubles, distributed as `pario bench
 * checkpoint` distributes it, written by every rank's hyperslab with one collective H5Dwrite into one dataset of a
 * parallel HDF5 file (then flushed, closed and fsynced), and read back the same way, every value checked. LAYOUT is
 * "contiguous", or "chunked": chunks of 1 MiB or so with the Fletcher-32 checksum filter, since Pario's checkpoints
 * carry checksums too. Prints lines in the format of `pario bench checkpoint`:
 *   hdf5-LAYOUT-write|hdf5-LAYOUT-read PATTERN RANKS MiB/s SECONDS
 * PATTERN is AxBxC (BLOCK on that grid) or cyclic (CYCLIC(1) over the last dimension). Rank 0 drops the page cache
 * (as root) before each read. Usage: hdf5_checkpoint PATTERN N FILE LAYOUT ROUNDS
 */
#include <fcntl.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"

static void report(const char *phase, const char *pattern, int size, long long bytes, double t0) {
    double mine = MPI_Wtime() - t0, slowest;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("%s %s %d %.1f %.3f\n", phase, pattern, size, bytes / 1048576.0 / slowest, slowest);
    fflush(stdout);
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 6) {
        if (rank == 0) fprintf(stderr, "usage: hdf5_checkpoint PATTERN N FILE contiguous|chunked ROUNDS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *pattern = argv[1];
    const hsize_t n = (hsize_t) atoll(argv[2]);
    const char *path = argv[3];
    const int chunked = strcmp(argv[4], "chunked") == 0;
    const int rounds = atoi(argv[5]);
    hsize_t dims[3] = {n, n, n}, start[3], stride[3] = {1, 1, 1}, count[3], chunk[3];
    if (strcmp(pattern, "cyclic") == 0) {
        /* CYCLIC(1) over the last dimension: every size-th element of each row */
        start[0] = 0; start[1] = 0; start[2] = (hsize_t) rank;
        stride[2] = (hsize_t) size;
        count[0] = n; count[1] = n; count[2] = (n - (hsize_t) rank + (hsize_t) size - 1) / (hsize_t) size;
    } else {
        int grid[3];
        if (sscanf(pattern, "%dx%dx%d", &grid[0], &grid[1], &grid[2]) != 3 || grid[0] * grid[1] * grid[2] != size) {
            if (rank == 0) fprintf(stderr, "PATTERN must be AxBxC with A*B*C ranks, or cyclic\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        int coords[3] = {rank / (grid[1] * grid[2]), rank / grid[2] % grid[1], rank % grid[2]};
        for (int d = 0; d < 3; d++) {
            const hsize_t b = (n + (hsize_t) grid[d] - 1) / (hsize_t) grid[d];
            start[d] = (hsize_t) coords[d] * b;
            count[d] = start[d] >= n ? 0 : (start[d] + b > n ? n - start[d] : b);
        }
    }
    /* chunks of about 1 MiB: 128 x 1024 doubles of the last two dimensions where they fit */
    chunk[0] = 1; chunk[1] = n < 128 ? n : 128; chunk[2] = n < 1024 ? n : 1024;
    const size_t local = (size_t) (count[0] * count[1] * count[2]);
    double *buf = malloc(local * sizeof(double) + 1);
    size_t k = 0;
    for (hsize_t i = 0; i < count[0]; i++)
        for (hsize_t j = 0; j < count[1]; j++)
            for (hsize_t l = 0; l < count[2]; l++)
                buf[k++] = (double) (((start[0] + i * stride[0]) * n + start[1] + j * stride[1]) * n + start[2]
                    + l * stride[2]);
    const long long total = (long long) (n * n * n * sizeof(double));
    char label[64];
    for (int round = 0; round < rounds; round++) {
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
        hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
        H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
        hsize_t local_dims[1] = {local};
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        hid_t space = H5Screate_simple(3, dims, NULL);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        if (chunked) {
            H5Pset_chunk(dcpl, 3, chunk);
            H5Pset_fletcher32(dcpl);
        } else {
            H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
        }
        hid_t dset = H5Dcreate2(file, "field", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        hid_t mem = H5Screate_simple(1, local_dims, NULL);
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, stride, count, NULL);
        if (local == 0) {
            H5Sselect_none(space);
            H5Sselect_none(mem);
        }
        if (H5Dwrite(dset, H5T_NATIVE_DOUBLE, mem, space, xfer, buf) < 0) MPI_Abort(MPI_COMM_WORLD, 1);
        H5Dclose(dset);
        H5Pclose(dcpl);
        H5Fflush(file, H5F_SCOPE_GLOBAL);
        H5Fclose(file);
        if (rank == 0) {
            int fd = open(path, O_RDONLY);
            fsync(fd);
            close(fd);
        }
        snprintf(label, sizeof label, "hdf5-%s-write", argv[4]);
        report(label, pattern, size, total, t0);
        memset(buf, 0xff, local * sizeof(double));
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) drop_caches();
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
        dset = H5Dopen2(file, "field", H5P_DEFAULT);
        if (H5Dread(dset, H5T_NATIVE_DOUBLE, mem, space, xfer, buf) < 0) MPI_Abort(MPI_COMM_WORLD, 1);
        H5Dclose(dset);
        H5Fclose(file);
        snprintf(label, sizeof label, "hdf5-%s-read", argv[4]);
        report(label, pattern, size, total, t0);
        k = 0;
        long wrong = 0;
        for (hsize_t i = 0; i < count[0]; i++)
            for (hsize_t j = 0; j < count[1]; j++)
                for (hsize_t l = 0; l < count[2]; l++)
                    wrong += buf[k++] != (double) (((start[0] + i * stride[0]) * n + start[1] + j * stride[1]) * n
                        + start[2] + l * stride[2]);
        if (wrong) {
            fprintf(stderr, "rank %d read %ld wrong values\n", rank, wrong);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        H5Sclose(mem);
        H5Sclose(space);
        H5Pclose(xfer);
        H5Pclose(fapl);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) unlink(path);
        pause_for("PARIO_BENCH_SETTLE");
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
