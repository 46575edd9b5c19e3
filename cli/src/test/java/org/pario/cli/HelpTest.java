package org.pario.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/** {@code pario --help} and every subcommand's help are complete: a description for each command and argument. */
class HelpTest {
    private static void collect(final CommandLine cmd, final List<CommandLine> out) {
        out.add(cmd);
        for (final CommandLine sub : cmd.getSubcommands().values()) {
            if (!out.contains(sub)) {
                collect(sub, out);
            }
        }
    }

    @Test
    void everyCommandOptionAndParameterIsDescribed() {
        final List<CommandLine> all = new ArrayList<>();
        collect(new CommandLine(new Main()), all);
        assertTrue(all.size() >= 15, "commands found: " + all.size());
        for (final CommandLine c : all) {
            final CommandSpec spec = c.getCommandSpec();
            final String name = spec.qualifiedName();
            assertTrue(spec.usageMessage().description().length > 0, name + " has no description");
            for (final OptionSpec o : spec.options()) {
                assertTrue(o.hidden() || o.description().length > 0 && !o.description()[0].isBlank(),
                    name + " " + o.longestName() + " has no description");
            }
            for (final PositionalParamSpec p : spec.positionalParameters()) {
                assertTrue(p.hidden() || p.description().length > 0, name + " " + p.paramLabel()
                    + " has no description");
            }
            final String[] args = (name.replaceFirst("^pario ?", "") + " --help").trim().split(" ");
            final String[] r = Cli.run(args);
            assertEquals("0", r[0], name + " --help: " + r[2]);
            assertTrue(r[1].contains("Usage: " + name), name + " --help printed:\n" + r[1]);
        }
    }
}
