package org.pario.io;

import java.util.Objects;

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
}
