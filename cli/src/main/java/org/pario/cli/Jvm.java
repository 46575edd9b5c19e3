package org.pario.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The command line of a JVM the command starts for its ranks: this JVM's Java, class path and Pario settings. */
final class Jvm {
    private static final String LEAK_DETECTION = "io.netty.leakDetection.level";

    private Jvm() {
    }

    /**
     * @param options JVM options of the job's own (heap size)
     * @return {@code java}, the options, this JVM's {@code pario.*} system properties as {@code -D} options (so that
     *     settings given to the command reach the ranks it starts), Netty's leak detection level (this JVM's, else
     *     off: it costs every message a little and is a setting of the whole JVM, docs/comm.md), and the class path;
     *     the main class and its arguments follow
     */
    static List<String> command(final String... options) {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(options));
        final List<String> properties = new ArrayList<>();
        for (final String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith("pario.")) {
                properties.add("-D" + name + "=" + System.getProperty(name));
            }
        }
        Collections.sort(properties);
        command.addAll(properties);
        command.add("-D" + LEAK_DETECTION + "=" + System.getProperty(LEAK_DETECTION, "disabled"));
        command.addAll(List.of("-cp", System.getProperty("java.class.path")));
        return command;
    }
}
