package org.pario.io;

import java.util.Objects;

import org.pario.ParioException;
import org.pario.comm.Status;
import org.pario.datatypes.Combiner;
import org.pario.datatypes.Cursor;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;

/**
 * How a rank sees a file ({@code MPI_File_set_view}): from byte {@code disp} on, the file is tiled with copies of
 * {@code filetype}, one extent apart; the rank reads and writes the bytes the filetype's data covers, in typemap
 * order, in units of {@code etype}; {@code datarep} says how data is represented in the file.
 *
 * @param disp     byte displacement of the view, {@code >= 0}
 * @param etype    the elementary type: the unit of offsets and counts
 * @param filetype the tiling type, made of whole etypes
 * @param datarep  the data representation
 */
public record FileView(long disp, Datatype etype, Datatype filetype, DataRepresentation datarep) {
    /** The view every file starts with: the whole file as bytes. */
    public static final FileView DEFAULT = new FileView(0, Datatype.BYTE, Datatype.BYTE, DataRepresentation.NATIVE);

    /** Checks for nulls. */
    public FileView {
        Objects.requireNonNull(etype, "etype");
        Objects.requireNonNull(filetype, "filetype");
        Objects.requireNonNull(datarep, "datarep");
    }

    /**
     * {@code MPI_File_get_byte_offset}.
     *
     * @param offset a view offset, in etypes
     * @return the absolute byte offset in the file where that etype lies
     */
    public long byteOffset(final long offset) {
        final long stream = Math.multiplyExact(offset, etype.size());
        final long fsize = filetype.size();
        if (fsize == 0) {
            throw ParioException.argument("byteOffset: the filetype holds no data");
        }
        final long tiles = stream / fsize + 1;
        final Cursor c = filetype.cursor(tiles).seek(stream);
        if (!c.next()) {
            throw new IllegalStateException("no run at stream position " + stream);
        }
        return disp + c.offset();
    }

    /**
     * {@code MPI_File_get_type_extent}: the extent of a type as this view's data representation lays it out.
     *
     * @param type a datatype
     * @return its extent in the file, in bytes
     */
    public long typeExtent(final Datatype type) {
        final DataRepresentation rep = Views.packing(this);
        if (type.size(rep) == type.size()) {
            return type.extent();
        }
        if (type.combiner() == Combiner.NAMED) {
            return type.size(rep);
        }
        throw ParioException.argument("typeExtent: " + type + " changes size in " + rep.mpiName()
            + " and is not a basic type, so its layout in the file is not defined");
    }

    /** @return {@code count x type} in etypes of this view, checked to be a whole number {@code >= 0} */
    long etypes(final long count, final Datatype type) {
        final long bytes = Math.multiplyExact(count, type.size(Views.packing(this)));
        if (count < 0 || bytes % etype.size() != 0) {
            throw ParioException.argument(count + " x " + type + " is not a whole number >= 0 of etypes of "
                + etype.size() + " bytes");
        }
        return bytes / etype.size();
    }

    /**
     * The status of an access of {@code type}s through this view, in bytes of memory, which differ from the file's
     * for external32 longs.
     *
     * @param fileBytes the bytes the access moved, as the file holds them
     */
    Status status(final long fileBytes, final Datatype type) {
        final long fileSize = type.size(Views.packing(this));
        if (fileSize == type.size() || fileSize == 0) {
            return new Status(-1, -1, fileBytes);
        }
        return new Status(-1, -1, fileBytes / fileSize * type.size());
    }
}
