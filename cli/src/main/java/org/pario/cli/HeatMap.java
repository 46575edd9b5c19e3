package org.pario.cli;

import java.awt.image.BufferedImage;
import java.util.Locale;
import java.util.Map;

/**
 * A 2-D field of values drawn as a heat map: a PNG with a colour scale and labelled axes, or coarse shading for a
 * terminal. Text in the picture is drawn with a small built-in pixel font, so rendering needs no fonts on the
 * machine (headless servers often have none).
 */
final class HeatMap {
    /** Viridis at five points: dark blue for the smallest values to yellow for the largest; readable in grey too. */
    private static final int[] RAMP = {0x440154, 0x3b528b, 0x21918c, 0x5ec962, 0xfde725};
    private static final String SHADES = " .:-=+*#%@";
    private static final int NAN_COLOUR = 0xb0b0b0;
    private static final int INK = 0x202020;

    private final double[] values;
    private final int rows;
    private final int cols;
    private final double min;
    private final double max;
    private final double mean;
    private final long nans;

    /** @param values row by row, {@code rows x cols} of them */
    HeatMap(final double[] values, final int rows, final int cols) {
        this.values = values;
        this.rows = rows;
        this.cols = cols;
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        double sum = 0;
        long n = 0;
        long bad = 0;
        for (final double v : values) {
            if (Double.isNaN(v) || Double.isInfinite(v)) {
                bad++;
                continue;
            }
            lo = Math.min(lo, v);
            hi = Math.max(hi, v);
            sum += v;
            n++;
        }
        this.min = n == 0 ? Double.NaN : lo;
        this.max = n == 0 ? Double.NaN : hi;
        this.mean = n == 0 ? Double.NaN : sum / n;
        this.nans = bad;
    }

    double min() {
        return min;
    }

    double max() {
        return max;
    }

    double mean() {
        return mean;
    }

    /** @return how many values are NaN or infinite (drawn grey, left out of the figures) */
    long notFinite() {
        return nans;
    }

    private double at(final int r, final int c) {
        return values[r * cols + c];
    }

    /** @return where a value lies between min and max, 0 to 1 (0.5 when they are equal) */
    private double level(final double v) {
        return max > min ? (v - min) / (max - min) : 0.5;
    }

    /**
     * @param width the characters per line at most
     * @return the field as shaded characters, one cell per character (rows halved, characters being tall)
     */
    String terminal(final int width) {
        final int w = Math.max(1, Math.min(width, cols));
        final int h = Math.max(1, (int) Math.round((double) rows * w / cols / 2));
        final StringBuilder s = new StringBuilder();
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                // the mean of the cells this character covers
                final int r0 = (int) ((long) y * rows / h);
                final int r1 = Math.max(r0 + 1, (int) ((long) (y + 1) * rows / h));
                final int c0 = (int) ((long) x * cols / w);
                final int c1 = Math.max(c0 + 1, (int) ((long) (x + 1) * cols / w));
                double sum = 0;
                int n = 0;
                for (int r = r0; r < r1; r++) {
                    for (int c = c0; c < c1; c++) {
                        final double v = at(r, c);
                        if (Double.isFinite(v)) {
                            sum += v;
                            n++;
                        }
                    }
                }
                s.append(n == 0 ? '?' : SHADES.charAt((int) Math.min(SHADES.length() - 1,
                    Math.floor(level(sum / n) * SHADES.length()))));
            }
            s.append('\n');
        }
        return s.toString();
    }

    /**
     * @param title     a line above the picture
     * @param rowAxis   what the rows are, with the index of the first and the last
     * @param colAxis   the same for the columns
     * @return the picture: the field scaled up to about 512 pixels, the axes' first and last indices, a colour scale
     *     with its smallest and largest value
     */
    BufferedImage image(final String title, final Axis rowAxis, final Axis colAxis) {
        final int scale = Math.max(1, Math.min(512 / Math.max(cols, 1), 512 / Math.max(rows, 1)));
        final int pw = cols * scale;
        final int ph = rows * scale;
        final int left = 16 + 2 * Font.WIDTH * Math.max(rowAxis.last().length(), rowAxis.first().length()) + 8;
        final int top = 34;
        final int bottom = 48;
        final String hi = number(max);
        final String lo = number(min);
        final int right = 40 + 2 * Font.WIDTH * Math.max(hi.length(), lo.length()) + 16;
        final int width = Math.max(left + pw + right, 2 * Font.WIDTH * title.length() + 20);
        final int height = top + ph + bottom;
        final BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        fill(img, 0, 0, width, height, 0xffffff);
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                final double v = at(r, c);
                fill(img, left + c * scale, top + r * scale, scale, scale, Double.isFinite(v) ? colour(level(v))
                    : NAN_COLOUR);
            }
        }
        frame(img, left - 1, top - 1, pw + 2, ph + 2);
        Font.draw(img, title, 10, 8, 2);
        // rows: first index at the top, last at the bottom, the axis name between
        Font.draw(img, rowAxis.first(), left - 6 - 2 * Font.WIDTH * rowAxis.first().length(), top, 2);
        Font.draw(img, rowAxis.last(), left - 6 - 2 * Font.WIDTH * rowAxis.last().length(),
            top + ph - 2 * Font.HEIGHT, 2);
        Font.draw(img, rowAxis.name(), 4, top + ph / 2 - Font.HEIGHT, 2);
        // columns: first index on the left, last on the right, the axis name centred below
        Font.draw(img, colAxis.first(), left, top + ph + 6, 2);
        Font.draw(img, colAxis.last(), left + pw - 2 * Font.WIDTH * colAxis.last().length(), top + ph + 6, 2);
        Font.draw(img, colAxis.name(), left + pw / 2 - Font.WIDTH * colAxis.name().length(), top + ph + 26, 2);
        // the colour scale: largest value at the top
        final int bx = left + pw + 16;
        for (int y = 0; y < ph; y++) {
            fill(img, bx, top + y, 16, 1, colour(1 - (double) y / Math.max(1, ph - 1)));
        }
        frame(img, bx - 1, top - 1, 18, ph + 2);
        Font.draw(img, hi, bx + 22, top, 2);
        Font.draw(img, lo, bx + 22, top + ph - 2 * Font.HEIGHT, 2);
        return img;
    }

    /** One axis of the picture: its name and the indices of its first and last row or column. */
    record Axis(String name, String first, String last) {
    }

    static String number(final double v) {
        if (Double.isNaN(v)) {
            return "nan";
        }
        final double a = Math.abs(v);
        return a != 0 && (a >= 1e6 || a < 1e-3) ? String.format(Locale.ROOT, "%.3e", v)
            : String.format(Locale.ROOT, "%.4g", v);
    }

    static int colour(final double t) {
        final double x = Math.max(0, Math.min(1, t)) * (RAMP.length - 1);
        final int i = Math.min(RAMP.length - 2, (int) Math.floor(x));
        final double f = x - i;
        int rgb = 0;
        for (int shift = 16; shift >= 0; shift -= 8) {
            final int a = RAMP[i] >> shift & 0xff;
            final int b = RAMP[i + 1] >> shift & 0xff;
            rgb |= (int) Math.round(a + (b - a) * f) << shift;
        }
        return rgb;
    }

    private static void fill(final BufferedImage img, final int x, final int y, final int w, final int h,
                             final int rgb) {
        for (int j = Math.max(0, y); j < Math.min(img.getHeight(), y + h); j++) {
            for (int i = Math.max(0, x); i < Math.min(img.getWidth(), x + w); i++) {
                img.setRGB(i, j, rgb);
            }
        }
    }

    private static void frame(final BufferedImage img, final int x, final int y, final int w, final int h) {
        fill(img, x, y, w, 1, INK);
        fill(img, x, y + h - 1, w, 1, INK);
        fill(img, x, y, 1, h, INK);
        fill(img, x + w - 1, y, 1, h, INK);
    }

    /** A 3x5 pixel font: digits, capitals (small letters drawn as capitals) and the signs numbers and names use. */
    static final class Font {
        static final int WIDTH = 4;
        static final int HEIGHT = 6;
        private static final Map<Character, String> GLYPHS = Map.ofEntries(
            Map.entry('0', "111101101101111"), Map.entry('1', "010110010010111"), Map.entry('2', "111001111100111"),
            Map.entry('3', "111001111001111"), Map.entry('4', "101101111001001"), Map.entry('5', "111100111001111"),
            Map.entry('6', "111100111101111"), Map.entry('7', "111001010010010"), Map.entry('8', "111101111101111"),
            Map.entry('9', "111101111001111"), Map.entry('A', "010101111101101"), Map.entry('B', "110101110101110"),
            Map.entry('C', "011100100100011"), Map.entry('D', "110101101101110"), Map.entry('E', "111100110100111"),
            Map.entry('F', "111100110100100"), Map.entry('G', "011100101101011"), Map.entry('H', "101101111101101"),
            Map.entry('I', "111010010010111"), Map.entry('J', "001001001101010"), Map.entry('K', "101101110101101"),
            Map.entry('L', "100100100100111"), Map.entry('M', "101111111101101"), Map.entry('N', "110101101101101"),
            Map.entry('O', "010101101101010"), Map.entry('P', "110101110100100"), Map.entry('Q', "010101101110011"),
            Map.entry('R', "110101110101101"), Map.entry('S', "011100010001110"), Map.entry('T', "111010010010010"),
            Map.entry('U', "101101101101111"), Map.entry('V', "101101101101010"), Map.entry('W', "101101111111101"),
            Map.entry('X', "101101010101101"), Map.entry('Y', "101101010010010"), Map.entry('Z', "111001010100111"),
            Map.entry('.', "000000000000010"), Map.entry('-', "000000111000000"), Map.entry('+', "000010111010000"),
            Map.entry(':', "000010000010000"), Map.entry('=', "000111000111000"), Map.entry(',', "000000000010100"),
            Map.entry('[', "110100100100110"), Map.entry(']', "011001001001011"), Map.entry('(', "010100100100010"),
            Map.entry(')', "010001001001010"), Map.entry('_', "000000000000111"), Map.entry('/', "001001010100100"),
            Map.entry('\'', "010010000000000"), Map.entry('*', "000101010101000"), Map.entry(' ', "000000000000000"));

        private Font() {
        }

        /** Draws {@code text} with its top left at (x, y), each font pixel {@code size} pixels wide. */
        static void draw(final BufferedImage img, final String text, final int x, final int y, final int size) {
            for (int i = 0; i < text.length(); i++) {
                final String g = GLYPHS.getOrDefault(Character.toUpperCase(text.charAt(i)), "111101101101111");
                for (int p = 0; p < 15; p++) {
                    if (g.charAt(p) == '1') {
                        fill(img, x + (i * WIDTH + p % 3) * size, y + p / 3 * size, size, size, INK);
                    }
                }
            }
        }
    }
}
