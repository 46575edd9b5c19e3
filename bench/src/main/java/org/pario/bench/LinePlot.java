package org.pario.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import javax.imageio.ImageIO;

/**
 * Draws the figures of docs/benchmarks.md as PNG line plots: one line per column of a whitespace-separated table
 * read from standard input, against its first column, both axes logarithmic where asked. The first line names the
 * columns; a value of {@code -} leaves a point out (a stack that did not finish).
 *
 * <p>Usage: {@code java -cp bench/target/benchmarks.jar org.pario.bench.LinePlot OUT.png "TITLE" "X LABEL"
 * "Y LABEL" [logx] [logy] < table}
 */
public final class LinePlot {
    private static final int WIDTH = 900;
    private static final int HEIGHT = 560;
    private static final int LEFT = 90;
    private static final int RIGHT = 200;
    private static final int TOP = 50;
    private static final int BOTTOM = 70;
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b), new Color(0x17becf), new Color(0x7f7f7f)};

    private LinePlot() {
    }

    public static void main(final String[] args) throws IOException {
        if (args.length < 4) {
            System.err.println("usage: LinePlot OUT.png TITLE XLABEL YLABEL [logx] [logy] < table");
            System.exit(2);
        }
        final boolean logX = List.of(args).subList(4, args.length).contains("logx");
        final boolean logY = List.of(args).subList(4, args.length).contains("logy");
        final List<String[]> rows = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    rows.add(line.trim().split("\\s+"));
                }
            }
        }
        if (rows.size() < 2) {
            throw new IllegalArgumentException("a header line and at least one row of values are needed");
        }
        draw(Path.of(args[0]), args[1], args[2], args[3], rows.get(0), rows.subList(1, rows.size()), logX, logY);
    }

    private static double value(final String s) {
        return s.equals("-") ? Double.NaN : Double.parseDouble(s);
    }

    static void draw(final Path out, final String title, final String xLabel, final String yLabel,
                     final String[] header, final List<String[]> rows, final boolean logX, final boolean logY)
        throws IOException {
        double x0 = Double.MAX_VALUE;
        double x1 = -Double.MAX_VALUE;
        double y0 = logY ? Double.MAX_VALUE : 0;
        double y1 = -Double.MAX_VALUE;
        for (final String[] r : rows) {
            x0 = Math.min(x0, value(r[0]));
            x1 = Math.max(x1, value(r[0]));
            for (int c = 1; c < r.length; c++) {
                final double v = value(r[c]);
                if (!Double.isNaN(v) && (!logY || v > 0)) {
                    y0 = Math.min(y0, v);
                    y1 = Math.max(y1, v);
                }
            }
        }
        final Axis xs = new Axis(x0, x1, logX, LEFT, WIDTH - RIGHT);
        if (logX) {
            // rank counts and sizes are powers of two: a tick at each value measured reads better than decades
            rows.forEach(r -> xs.extra.add(value(r[0])));
        }
        final Axis ys = new Axis(y0, y1 * (logY ? 1.5 : 1.08), logY, HEIGHT - BOTTOM, TOP);
        final BufferedImage img = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        final Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, WIDTH, HEIGHT);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        g.setColor(new Color(0xdddddd));
        for (final double t : ys.ticks()) {
            g.drawLine(LEFT, ys.at(t), WIDTH - RIGHT, ys.at(t));
        }
        for (final double t : xs.ticks()) {
            g.drawLine(xs.at(t), TOP, xs.at(t), HEIGHT - BOTTOM);
        }
        g.setColor(Color.BLACK);
        g.drawRect(LEFT, TOP, WIDTH - RIGHT - LEFT, HEIGHT - BOTTOM - TOP);
        for (final double t : ys.ticks()) {
            final String s = label(t);
            g.drawString(s, LEFT - 8 - g.getFontMetrics().stringWidth(s), ys.at(t) + 5);
        }
        for (final double t : xs.ticks()) {
            final String s = label(t);
            g.drawString(s, xs.at(t) - g.getFontMetrics().stringWidth(s) / 2, HEIGHT - BOTTOM + 20);
        }
        g.drawString(xLabel, (LEFT + WIDTH - RIGHT - g.getFontMetrics().stringWidth(xLabel)) / 2, HEIGHT - 25);
        final Graphics2D vertical = (Graphics2D) g.create();
        vertical.rotate(-Math.PI / 2);
        vertical.drawString(yLabel, -(TOP + HEIGHT - BOTTOM + g.getFontMetrics().stringWidth(yLabel)) / 2, 22);
        vertical.dispose();
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        g.drawString(title, LEFT, TOP - 18);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        g.setStroke(new BasicStroke(2.2f));
        for (int c = 1; c < header.length; c++) {
            g.setColor(COLORS[(c - 1) % COLORS.length]);
            int px = -1;
            int py = -1;
            for (final String[] r : rows) {
                final double v = c < r.length ? value(r[c]) : Double.NaN;
                if (Double.isNaN(v) || logY && v <= 0) {
                    px = -1;
                    continue;
                }
                final int x = xs.at(value(r[0]));
                final int y = ys.at(v);
                g.fillOval(x - 4, y - 4, 8, 8);
                if (px >= 0) {
                    g.drawLine(px, py, x, y);
                }
                px = x;
                py = y;
            }
            final int ly = TOP + 10 + 22 * (c - 1);
            g.drawLine(WIDTH - RIGHT + 15, ly, WIDTH - RIGHT + 40, ly);
            g.drawString(header[c].replace('_', ' '), WIDTH - RIGHT + 48, ly + 5);
        }
        g.dispose();
        ImageIO.write(img, "png", out.toFile());
    }

    private static String label(final double v) {
        if (v >= 1 && v == Math.rint(v)) {
            return String.format(Locale.ROOT, "%,d", (long) v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }

    /** One axis: data values to pixels, linear or logarithmic, and where its ticks go. */
    private static final class Axis {
        private final double lo;
        private final double hi;
        private final boolean log;
        private final int from;
        private final int to;
        /** Ticks given by the data; when there are any, a logarithmic axis shows these instead of decades. */
        final List<Double> extra = new ArrayList<>();

        Axis(final double lo, final double hi, final boolean log, final int from, final int to) {
            this.log = log;
            final double l = log ? Math.log10(lo) : lo;
            final double h = log ? Math.log10(hi) : hi;
            this.lo = h > l ? l : l - 1;
            this.hi = h > l ? h : l + 1;
            this.from = from;
            this.to = to;
        }

        int at(final double v) {
            final double d = log ? Math.log10(v) : v;
            return (int) Math.round(from + (to - from) * (d - lo) / (hi - lo));
        }

        List<Double> ticks() {
            final List<Double> t = new ArrayList<>();
            if (log && !extra.isEmpty()) {
                return extra;
            }
            if (log) {
                for (int e = (int) Math.floor(lo); e <= Math.ceil(hi); e++) {
                    final double v = Math.pow(10, e);
                    if (e >= lo - 1e-9 && e <= hi + 1e-9) {
                        t.add(v);
                    }
                }
                return t;
            }
            final double span = hi - lo;
            final double raw = span / 6;
            final double mag = Math.pow(10, Math.floor(Math.log10(raw)));
            final double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
            for (double v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) {
                t.add(v);
            }
            return t;
        }
    }
}
