package org.pario.cli;

import picocli.CommandLine.Option;

/**
 * The {@code --verbose} option every command accepts. Main's error handler reads it from the parse result, so the
 * field itself is never consulted; it exists for picocli to register the option.
 */
final class VerboseOption {
    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;
}
