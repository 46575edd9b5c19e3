package org.pario.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the JSON results of {@link PackBenchmark} into a Markdown table of GB/s and ratios to the arraycopy
 * limit. Every benchmark moves {@link PackBenchmark#PACKED} bytes per operation, so GB/s is bytes / time.
 */
public final class PackTable {
    private static final Pattern ENTRY = Pattern.compile(
        "\"benchmark\"\\s*:\\s*\"[^\"]*\\.(\\w+)\".*?(?:\"params\"\\s*:\\s*\\{\\s*\"runBytes\"\\s*:\\s*\"(\\d+)\"\\s*}.*?)?"
            + "\"primaryMetric\"\\s*:\\s*\\{\\s*\"score\"\\s*:\\s*([0-9.Ee+-]+)\\s*,\\s*\"scoreError\"\\s*:\\s*([0-9.Ee+-]+|\"NaN\")",
        Pattern.DOTALL);

    private PackTable() {
    }

    /**
     * @param args the JMH JSON result file
     * @throws IOException if it cannot be read
     */
    public static void main(final String[] args) throws IOException {
        final String json = Files.readString(Path.of(args[0]));
        final List<String[]> rows = new ArrayList<>();
        double limit = Double.NaN;
        final Matcher m = ENTRY.matcher(json);
        while (m.find()) {
            final String name = m.group(1) + (m.group(2) == null ? "" : " " + m.group(2) + " B runs");
            final double ms = Double.parseDouble(m.group(3));
            if (m.group(1).equals("arraycopyLimit")) {
                limit = ms;
            }
            rows.add(new String[] {name, m.group(3), m.group(4)});
        }
        System.out.println("| benchmark | ms/op | GB/s | ratio to arraycopy limit |");
        System.out.println("|---|---:|---:|---:|");
        for (final String[] r : rows) {
            final double ms = Double.parseDouble(r[1]);
            final double gbs = PackBenchmark.PACKED / (ms / 1000.0) / 1e9;
            System.out.printf(Locale.ROOT, "| %s | %.3f | %.2f | %.2f |%n", r[0], ms, gbs, limit / ms);
        }
    }
}
