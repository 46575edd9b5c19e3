package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pario as a library: the library artifacts and the BOM are installed, and a tiny project outside this build,
 * which knows Pario only through the BOM and one dependency, compiles and runs a collective write.
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

    @Test
    void aProjectUsingTheBomAndParioIoRunsACollectiveWrite() throws Exception {
        final Path root = Path.of("").toAbsolutePath().getParent();
        final String version = System.getProperty("pario.version");
        run(root, List.of("mvn", "-B", "-q", "install", "-DskipTests", "-pl", "datatypes,comm,io,bom", "-am"));
        final Path project = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(project.resolve("pom.xml"), """
            <project xmlns="http://maven.apache.org/POM/4.0.0">
              <modelVersion>4.0.0</modelVersion>
              <groupId>com.example</groupId>
              <artifactId>outside</artifactId>
              <version>1</version>
              <properties>
                <maven.compiler.release>17</maven.compiler.release>
                <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
              </properties>
              <dependencyManagement>
                <dependencies>
                  <dependency>
                    <groupId>org.pario</groupId>
                    <artifactId>pario-bom</artifactId>
                    <version>VERSION</version>
                    <type>pom</type>
                    <scope>import</scope>
                  </dependency>
                </dependencies>
              </dependencyManagement>
              <dependencies>
                <dependency>
                  <groupId>org.pario</groupId>
                  <artifactId>pario-io</artifactId>
                </dependency>
              </dependencies>
              <build>
                <plugins>
                  <plugin>
                    <groupId>org.apache.maven.plugins</groupId>
                    <artifactId>maven-compiler-plugin</artifactId>
                    <version>3.13.0</version>
                  </plugin>
                </plugins>
              </build>
            </project>
            """.replace("VERSION", version));
        final Path src = Files.createDirectories(project.resolve("src/main/java/com/example"));
        Files.writeString(src.resolve("App.java"), """
            package com.example;

            import java.nio.file.Files;
            import java.nio.file.Path;
            import java.util.EnumSet;

            import org.pario.comm.LocalCluster;
            import org.pario.datatypes.DataRepresentation;
            import org.pario.datatypes.Datatype;
            import org.pario.io.Mode;
            import org.pario.io.ParallelFile;

            public class App {
                public static void main(String[] args) throws Exception {
                    // 3 ranks interleave ints: rank r writes r at every third int from int r
                    LocalCluster.run(3, comm -> {
                        int r = comm.rank();
                        try (ParallelFile f = ParallelFile.open(comm, args[0], EnumSet.of(Mode.CREATE, Mode.RDWR))) {
                            f.setView(4L * r, Datatype.INT, Datatype.resized(Datatype.INT, 0, 12),
                                DataRepresentation.NATIVE);
                            int[] mine = new int[100];
                            java.util.Arrays.fill(mine, r);
                            f.writeAll(mine, mine.length, Datatype.INT);
                        }
                    });
                    byte[] file = Files.readAllBytes(Path.of(args[0]));
                    for (int i = 0; i < 300; i++) {
                        if (file[4 * i] != i % 3) {
                            throw new AssertionError("int " + i);
                        }
                    }
                    System.out.println("outside ok: " + file.length + " bytes");
                }
            }
            """);
        run(project, List.of("mvn", "-B", "-q", "package", "dependency:build-classpath",
            "-Dmdep.outputFile=cp.txt"));
        final String cp = project.resolve("target/classes") + java.io.File.pathSeparator
            + Files.readString(project.resolve("cp.txt")).trim();
        final String out = run(project, List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", cp, "com.example.App", dir.resolve("out.bin").toString()));
        assertTrue(out.contains("outside ok: 1200 bytes"), out);
    }
}
