package org.pario.io;

/** How a file is opened ({@code MPI_MODE_*}). Exactly one of RDONLY, WRONLY and RDWR is required. */
public enum Mode {
    /** Read only. */
    RDONLY,
    /** Write only. */
    WRONLY,
    /** Read and write. */
    RDWR,
    /** Create the file if it does not exist. */
    CREATE,
    /** With CREATE: fail if the file exists. */
    EXCL,
    /** Delete the file when it is closed. */
    DELETE_ON_CLOSE,
    /** The file is not opened concurrently elsewhere (a hint). */
    UNIQUE_OPEN,
    /** The file is accessed sequentially only (a hint). */
    SEQUENTIAL,
    /** All file pointers start at the end of the file. */
    APPEND
}
