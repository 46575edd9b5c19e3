package org.pario.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.pario.io.Hints;
import picocli.CommandLine.Option;

/** The {@code --hint KEY=VALUE} option of commands that open files: MPI_Info hints, checked when the file opens. */
final class HintOption {
    @Option(names = "--hint", paramLabel = "KEY=VALUE",
        description = "A hint for the file, as MPI_Info (repeatable), e.g. direct_write=true or "
            + "cb_buffer_size=8388608.")
    Map<String, String> values = new LinkedHashMap<>();

    /** Adds the hints given to a rank's command line, as {@code --hint KEY=VALUE} each. */
    void forward(final List<String> command) {
        for (final Map.Entry<String, String> h : values.entrySet()) {
            command.add("--hint");
            command.add(h.getKey() + "=" + h.getValue());
        }
    }

    /** @return the hints given, checked */
    Hints hints() {
        return Hints.of(values);
    }
}
