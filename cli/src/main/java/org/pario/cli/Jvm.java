package org.pario.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The command line of a JVM the command starts for its ranks: this JVM's Java, class path and Pario settings. */
final class Jvm {
    private static final String LEAK_DETECTION = "io.netty.leakDetection.level";
    /** The JVM option that lets code on the class path call restricted methods, as Netty's native transport does. */
    static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    private Jvm() {
    }

    /**
     * @param options JVM options of the job's own (heap size)
     * @return {@code java}, native access for the class path, the options, this JVM's {@code pario.*} system
     *     properties as {@code -D} options (so that settings given to the command reach the ranks it starts), Netty's leak detection level (this JVM's, else
     *     off: it costs every message a little and is a setting of the whole JVM, docs/comm.md), and the class path;
     *     the main class and its arguments follow
     */
    static List<String> command(final String... options) {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Netty loads its native transport: Java 22+ warns unless native access is granted (17 accepts the flag)
        command.add(NATIVE_ACCESS);
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
