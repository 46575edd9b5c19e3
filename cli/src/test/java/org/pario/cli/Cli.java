package org.pario.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the {@code pario} command in this JVM for tests. */
final class Cli {
    private Cli() {
    }

    /** @return {exit code, standard output, standard error} */
    static String[] run(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = Main.run(new PrintWriter(out), new PrintWriter(err), args);
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }
}
