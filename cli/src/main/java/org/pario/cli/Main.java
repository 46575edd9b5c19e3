package org.pario.cli;

import java.io.PrintWriter;

import org.pario.ParioException;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code pario} command. Exit codes: 0 success, 1 the operation failed, 2 invalid input or usage.
 * Errors print as one line; {@code --verbose} adds the stack trace.
 */
@Command(name = "pario", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    description = "MPI datatypes, file views and parallel I/O for the JVM.",
    subcommands = {DemoCommand.class, TypeCommand.class, ViewCommand.class, CheckpointCommand.class,
        LaunchCommand.class, BenchCommand.class, CommandLine.HelpCommand.class},
    footer = {"", "Exit codes: 0 success, 1 operation failed, 2 invalid input or usage.",
        "Type expressions are described in docs/datatypes.md."})
public final class Main implements Runnable {
    /** Exit code for an operation that failed. */
    public static final int FAILED = 1;
    /** Exit code for invalid input or usage. */
    public static final int USAGE = 2;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required (try 'pario --help')");
    }

    /**
     * Runs the command line and returns its exit code instead of exiting, for tests and embedding.
     *
     * @param out  where normal output goes
     * @param err  where errors go
     * @param args the arguments
     * @return the exit code
     */
    public static int run(final PrintWriter out, final PrintWriter err, final String... args) {
        final CommandLine cli = new CommandLine(new Main());
        cli.setOut(out);
        cli.setErr(err);
        cli.setExitCodeExceptionMapper(e -> e instanceof CommandLine.ParameterException
            || e instanceof ParioException pe && pe.category() == org.pario.ErrorCategory.ARGUMENT ? USAGE : FAILED);
        // a usage error is one line, as every other error, naming where the full usage is
        cli.setParameterExceptionHandler((e, given) -> {
            final CommandLine cmd = e.getCommandLine();
            cmd.getErr().println("pario: " + e.getMessage().replaceAll("\\s*\\R\\s*", " ") + " (usage: "
                + cmd.getCommandSpec().qualifiedName(" ") + " --help)");
            cmd.getErr().flush();
            return USAGE;
        });
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            boolean verbose = false;
            // --verbose belongs to the innermost command ("pario view write --verbose"), so walk the whole chain.
            for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
                verbose |= p.hasMatchedOption("--verbose");
            }
            // one line whatever the message holds (a library's message may span several)
            cmd.getErr().println("pario: " + (e.getMessage() == null ? e.toString() : e.getMessage())
                .replaceAll("\\s*\\R\\s*", " "));
            if (verbose) {
                e.printStackTrace(cmd.getErr());
            }
            cmd.getErr().flush();
            return cmd.getExitCodeExceptionMapper().getExitCode(e);
        });
        final int code = cli.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    /**
     * Entry point.
     *
     * @param args command-line arguments
     */
    public static void main(final String[] args) {
        final int code = run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
        System.exit(code);
    }

    /** Reports the version from the jar manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            final String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"pario " + (v == null ? "development build" : v)};
        }
    }
}
