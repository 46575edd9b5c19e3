package org.pario.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.pario.cli.Main;

/**
 * The bad-input campaign of docs/reliability.md: for every command, bad, edge and oversized inputs, each of which
 * must end as one {@code pario:} line with exit code 2 (invalid input) or 1 (the operation failed), no stack
 * trace, and every file the command was pointed at as it was. Prints the table the docs show.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class BadInputCampaignTest {
    private static final byte[] PRECIOUS = "the user's own bytes".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private final Map<String, int[]> table = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();

    private void attempt(final String command, final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = Main.run(new PrintWriter(out), new PrintWriter(err), args);
        final String e = err.toString().trim();
        final int[] row = table.computeIfAbsent(command, k -> new int[4]);
        row[0]++;
        final boolean oneLine = e.startsWith("pario: ") && !e.contains("\n") && !e.contains("\tat ");
        if (oneLine && code == 2) {
            row[1]++;
        } else if (oneLine && code == 1) {
            row[2]++;
        } else {
            row[3]++;
            problems.add(String.join(" ", args) + " -> exit " + code + ": " + e);
        }
    }

    private Path file(final String name, final String text) throws Exception {
        final Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @Test
    void everyBadInputEndsInOneLineAndDestroysNothing() throws Exception {
        final String deep = "contiguous(1, ".repeat(3000) + "int" + ")".repeat(3000);
        final String good = "{\"ranks\": 2, \"disps\": [0, 4], \"etype\": \"int\", \"filetypes\": "
            + "[\"resized(int, 0, 8)\"], \"counts\": [4, 4]}";
        final Path spec = file("good.json", good);
        final Path precious = dir.resolve("precious.bin");
        Files.write(precious, PRECIOUS);
        final Path data = dir.resolve("data.bin");
        Main.run(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()), "view", "write",
            spec.toString(), data.toString());
        final Path ckpt = dir.resolve("c.ckpt");
        Main.run(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()), "checkpoint", "write",
            ckpt.toString(), "-n", "2", "--shape", "16x8", "--dist", "block,block");
        final byte[] ckptBytes = Files.readAllBytes(ckpt);
        final Path truncated = dir.resolve("t.ckpt");
        Files.write(truncated, java.util.Arrays.copyOf(ckptBytes, ckptBytes.length - 10));
        final Path flipped = dir.resolve("f.ckpt");
        final byte[] f = ckptBytes.clone();
        f[40] ^= 1;
        Files.write(flipped, f);
        final Path empty = Files.createDirectory(dir.resolve("empty"));
        final Path nothing = dir.resolve("none/x");
        final Path zero = file("zero.bin", "");
        final Path junk = file("junk", "not a checkpoint, not a spec");

        for (final String t : new String[] {"", "int(", "vector(3, 2, int)", "vector(-1, 1, 1, int)",
            "contiguous(9223372036854775807, contiguous(9223372036854775807, double))", "struct([1], [0], [nope])",
            "subarray([10],[11],[0],c,int)", "darray(4, 7, [8], [block], [dflt], [2], c, int)", "resized(int, 0)",
            "hindexed([1,2], [0], int)", "indexed_block(-2, [0], int)", deep, "contiguous(1, int) trailing",
            "vector(99999999999999999999, 1, 1, int)", "struct([" + "1,".repeat(100_000) + "1], [0], [int])"}) {
            attempt("type", "type", t);
        }
        final String[] specs = {"", "not json", "[]", "{}", "{\"ranks\": 0, \"etype\": \"int\", \"filetypes\": [\"int\"], "
            + "\"counts\": []}", "{\"ranks\": 4294967297, \"etype\": \"int\", \"filetypes\": [\"int\"], \"counts\": [1]}",
            "{\"ranks\": 1, \"disp\": -8, \"etype\": \"int\", \"filetypes\": [\"int\"], \"counts\": [1]}",
            "{\"ranks\": 1, \"etype\": \"int\", \"filetypes\": [\"" + deep + "\"], \"counts\": [1]}",
            "{\"ranks\": 1, \"etype\": \"int\", \"filetypes\": [\"hindexed([1], [-8], int)\"], \"counts\": [1]}",
            "{\"ranks\": 2, \"etype\": \"int\", \"filetypes\": [\"int\", \"int\", \"int\"], \"counts\": [1, 1]}",
            "{\"ranks\": 1, \"etype\": \"int\", \"datarep\": \"klingon\", \"filetypes\": [\"int\"], \"counts\": [1]}",
            "{\"ranks\": 1, \"etype\": \"int\", \"filetypes\": [\"int\"], \"counts\": [-1]}",
            "{\"ranks\": 1, \"etype\": \"int\", \"filetypes\": [\"int\"], \"counts\": [1], \"offsets\": [-3]}",
            "{\"ranks\": 1, \"etype\": \"int\", \"filetypes\": [" + "[".repeat(5000) + "]".repeat(5000) + "], "
                + "\"counts\": [1]}",
            "{\"ranks\": 1, \"etype\": \"int\", \"filetypes\": [\"contiguous(0, int)\"], \"counts\": [1]}"};
        for (int i = 0; i < specs.length; i++) {
            final Path s = file("bad" + i + ".json", specs[i]);
            attempt("view map", "view", "map", s.toString());
            attempt("view write", "view", "write", s.toString(), precious.toString());
            attempt("view read", "view", "read", s.toString(), data.toString(), precious.toString());
        }
        for (final String target : new String[] {empty.toString(), "/dev/full", nothing.toString(), spec.toString()}) {
            attempt("view write", "view", "write", spec.toString(), target);
            attempt("view read", "view", "read", spec.toString(), data.toString(), target);
        }
        attempt("view read", "view", "read", spec.toString(), data.toString(), data.toString());
        attempt("view read", "view", "read", spec.toString(), zero.toString(), precious.toString(), "--strict");
        attempt("view read", "view", "read", spec.toString(), nothing.toString(), precious.toString());

        final String w = "checkpoint write";
        final String out = dir.resolve("new.ckpt").toString();
        for (final String[] a : new String[][] {{"--shape", "0x4"}, {"--shape", "4xx4"}, {"--shape", "-4"},
            {"--shape", "100000x100000", "--dist", "block,block"},
            {"--shape", "4000000000x4000000000x4000000000"}, {"--dist", "block,sideways,none"},
            {"--dist", "block,block"}, {"--grid", "3x1x1"}, {"--grid", "2x2x2", "-n", "4"}, {"--order", "z"},
            {"--element", "int("}, {"--element", "int"}, {"--element", deep, "--input", data.toString()},
            {"-n", "0"}, {"-n", "100000"}, {"--input", nothing.toString()}, {"--input", data.toString()},
            {"--hint", "cb_nodes=-1"}, {"--dist", "cyclic(0),block,block"}}) {
            final List<String> args = new ArrayList<>(List.of("checkpoint", "write", out));
            args.addAll(List.of(a));
            attempt(w, args.toArray(new String[0]));
        }
        attempt(w, "checkpoint", "write", empty.toString());
        attempt(w, "checkpoint", "write", "/dev/full");
        attempt(w, "checkpoint", "write", nothing.toString());
        attempt(w, "checkpoint", "write", data.toString(), "--input", data.toString(), "--shape", "4",
            "--element", "int");

        for (final String c : new String[] {nothing.toString(), junk.toString(), zero.toString(), empty.toString(),
            truncated.toString(), flipped.toString()}) {
            attempt("checkpoint restore", "checkpoint", "restore", c, "-n", "2", "--output", precious.toString());
            attempt("checkpoint verify", "checkpoint", "verify", c);
            attempt("checkpoint info", "checkpoint", "info", c);
        }
        for (final String[] a : new String[][] {{"-n", "100000"}, {"-n", "0"}, {"--dist", "block"},
            {"--output", ckpt.toString()}, {"--output", empty.toString()}, {"--output", "/dev/full"},
            {"--output", nothing.toString()}, {"--grid", "5x5"}, {"--hint", "romio_cb_read=sometimes"}}) {
            final List<String> args = new ArrayList<>(List.of("checkpoint", "restore", ckpt.toString()));
            args.addAll(List.of(a));
            attempt("checkpoint restore", args.toArray(new String[0]));
        }
        attempt("checkpoint verify", "checkpoint", "verify", ckpt.toString(), "-n", "0");

        for (final String[] a : new String[][] {{"-n", "0", "--", "true"}, {"-n", "100000", "--", "true"},
            {"--bind", "999.1.1.1", "-n", "2", "--", "true"}, {"--bind", "192.0.2.1", "-n", "2", "--", "true"},
            {"--timeout", "-1", "-n", "1", "--", "true"}, {"-n", "2"}, {"-n", "1", "--", "/no/such/program"},
            {"--bind-to", "sideways", "-n", "1", "--", "true"}, {"-n", "1", "--", "false"}}) {
            final List<String> args = new ArrayList<>(List.of("launch"));
            args.addAll(List.of(a));
            attempt("launch", args.toArray(new String[0]));
        }
        for (final String[] a : new String[][] {{"--edge", "0"}, {"--edge", "2048"}, {"--edge", "-5"},
            {"--file", empty.toString()}, {"--file", precious.toString()}, {"--file", nothing.toString()}}) {
            final List<String> args = new ArrayList<>(List.of("demo"));
            args.addAll(List.of(a));
            attempt("demo", args.toArray(new String[0]));
        }
        for (final String[] a : new String[][] {{"io", "-n", "0"}, {"io", "-n", "3", "--pattern", "2x2x1"},
            {"io", "--size", "0"}, {"io", "--size", "100000"}, {"io", "--pattern", "spiral"},
            {"io", "--warmup", "2"}, {"io", "--file", precious.toString()}, {"io", "-n", "1000"},
            {"comm", "-n", "0"}, {"comm", "-n", "1"}, {"comm", "-n", "100000"}, {"checkpoint", "--rounds", "0"},
            {"checkpoint", "--compute", "-1"}, {"checkpoint", "-n", "3", "--pattern", "2x2x1"},
            {"checkpoint", "--size", "100000"}, {"checkpoint", "--file", precious.toString()}}) {
            final List<String> args = new ArrayList<>(List.of("bench"));
            args.addAll(List.of(a));
            attempt("bench " + a[0], args.toArray(new String[0]));
        }
        for (final String[] a : new String[][] {{}, {"frobnicate"}, {"view"}, {"checkpoint"}, {"type"},
            {"checkpoint", "write", "--nonsense"}, {"view", "map", "a", "b", "c"}}) {
            attempt("usage", a);
        }

        final StringBuilder report = new StringBuilder("| command | inputs | exit 2, one line | exit 1, one line | "
            + "other (must be 0) |\n|---|---|---|---|---|\n");
        int total = 0;
        for (final Map.Entry<String, int[]> e : table.entrySet()) {
            final int[] r = e.getValue();
            total += r[0];
            report.append("| `").append(e.getKey()).append("` | ").append(r[0]).append(" | ").append(r[1])
                .append(" | ").append(r[2]).append(" | ").append(r[3]).append(" |\n");
        }
        System.out.println("bad-input campaign, " + total + " inputs:\n" + report);
        assertEquals(List.of(), problems, "inputs that did not end in one line with exit 1 or 2");
        assertArrayEquals(PRECIOUS, Files.readAllBytes(precious), "the user's file is as it was");
        assertArrayEquals(ckptBytes, Files.readAllBytes(ckpt), "the checkpoint is as it was");
        try (var files = Files.list(dir)) {
            assertEquals(List.of(), files.map(p -> p.getFileName().toString()).filter(n -> n.contains(".pario-"))
                .toList(), "no hidden file left");
        }
    }
}
