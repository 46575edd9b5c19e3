package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.cli.Main;

/**
 * Pario as a library, as docs/guide.md shows it: the library artifacts and the BOM are installed, and the guide's
 * project (its POM and its program, taken from the guide as written) is built outside this reactor with the
 * machine's Maven, then run as threads, alone and as JVMs started by {@code pario launch}, and started from the build
 * through {@code pario-cli} and the exec plugin, as the guide shows it.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class OutsideProjectTest {
    @TempDir
    Path dir;

    private static String run(final Path where, final List<String> command) throws Exception {
        final Process p = new ProcessBuilder(command).directory(where.toFile()).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(6, TimeUnit.MINUTES), String.join(" ", command));
        assertEquals(0, p.exitValue(), String.join(" ", command) + " printed:\n" + out);
        return out;
    }

    /** The code block that follows a heading of the guide. */
    static String block(final String guide, final String heading) {
        final int at = guide.indexOf("\n" + heading + "\n");
        assertTrue(at >= 0, "docs/guide.md has a heading " + heading);
        final int open = guide.indexOf("```", at);
        final int from = guide.indexOf('\n', open) + 1;
        return guide.substring(from, guide.indexOf("```", from));
    }

    @Test
    void theGuidesProgramBuildsAsWrittenAndRunsAsThreadsAloneAndLaunched() throws Exception {
        final Path root = Path.of("").toAbsolutePath().getParent();
        final String guide = Files.readString(root.resolve("docs/guide.md"));
        run(root, List.of("mvn", "-B", "-q", "install", "-DskipTests", "-pl", "datatypes,comm,io,hdfs,cli,bom",
            "-am"));
        final Path project = Files.createDirectories(dir.resolve("outside"));
        final String pom = block(guide, "### pom.xml");
        assertTrue(pom.contains("<version>" + System.getProperty("pario.version") + "</version>"),
            "the guide names this version of Pario");
        Files.writeString(project.resolve("pom.xml"), pom);
        final Path src = Files.createDirectories(project.resolve("src/main/java/com/example"));
        Files.writeString(src.resolve("Restart.java"), block(guide, "### src/main/java/com/example/Restart.java"));
        run(project, List.of("mvn", "-B", "-q", "package", "dependency:build-classpath",
            "-Dmdep.outputFile=cp.txt"));
        final String cp = project.resolve("target/classes") + java.io.File.pathSeparator
            + Files.readString(project.resolve("cp.txt")).trim();
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final String threads = dir.resolve("threads.ckpt").toString();
        run(project, List.of(java, "-cp", cp, "com.example.Restart", "write", threads, "4"));
        assertTrue(run(project, List.of(java, "-cp", cp, "com.example.Restart", "restore", threads, "3"))
            .contains("restored on 3 ranks: every value checked"));
        assertTrue(run(project, List.of(java, "-cp", cp, "com.example.Restart", "restore", threads))
            .contains("restored on 1 ranks: every value checked"), "alone, a job of one rank");
        final String launched = dir.resolve("launched.ckpt").toString();
        for (final String[] job : new String[][] {{"4", "write"}, {"3", "restore"}}) {
            final StringWriter out = new StringWriter();
            final StringWriter err = new StringWriter();
            final int code = Main.run(new PrintWriter(out), new PrintWriter(err), new String[] {"launch", "-n", job[0],
                "--", java, "-cp", cp, "com.example.Restart", job[1], launched});
            assertEquals(0, code, out + "\n" + err);
            if (job[1].equals("restore")) {
                assertTrue(out.toString().contains("restored on 3 ranks: every value checked"), out.toString());
            }
        }
        // started from the build: the guide's pario-cli dependency and exec plugin, added as the guide says
        final String[] lines = block(guide, "### Starting ranks from the build")
            .split("\n    <!-- in <build><plugins> -->\n");
        final String dependency = lines[0].substring(lines[0].indexOf('\n') + 1);
        final String plugin = lines[1];
        // the project's own dependencies end at two spaces' indentation, the BOM import's deeper
        Files.writeString(project.resolve("pom.xml"), pom.replace("\n  </dependencies>", "\n" + dependency
            + "  </dependencies>").replace("\n    </plugins>", "\n" + plugin + "    </plugins>"));
        final String built = dir.resolve("built.ckpt").toString();
        run(project, List.of("mvn", "-B", "-q", "compile", "exec:exec", "-Dranks=4", "-Dmode=write",
            "-Dfile=" + built));
        assertTrue(run(project, List.of("mvn", "-B", "-q", "exec:exec", "-Dranks=3", "-Dmode=restore",
            "-Dfile=" + built)).contains("restored on 3 ranks: every value checked"));
    }
}
