package org.pario.cli;

import java.util.LinkedHashMap;
import java.util.Map;

import org.pario.io.Hints;
import picocli.CommandLine.Option;

/** The {@code --hint KEY=VALUE} option of commands that open files: MPI_Info hints, checked when the file opens. */
final class HintOption {
    @Option(names = "--hint", paramLabel = "KEY=VALUE",
        description = "A hint for the file, as MPI_Info (repeatable), e.g. direct_write=true or "
            + "cb_buffer_size=8388608.")
    Map<String, String> values = new LinkedHashMap<>();

    /** @return the hints given, checked */
    Hints hints() {
        return Hints.of(values);
    }
}
