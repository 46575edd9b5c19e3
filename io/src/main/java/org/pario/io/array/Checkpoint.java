package org.pario.io.array;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32C;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.comm.Op;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Order;
import org.pario.io.Agreement;
import org.pario.io.Hints;
import org.pario.io.Mode;
import org.pario.io.ParallelFile;
import org.pario.io.Progress;
import org.pario.io.storage.Storage;
import org.pario.io.storage.StorageProvider;
import org.pario.io.storage.Storages;

/**
 * Checkpoints of distributed arrays in one self-describing file (format: {@code docs/checkpoint-format.md}):
 * a header (magic, version, a JSON description of every array with its shape, element type, order, data
 * representation, offset and CRC-32C checksums of its data in fixed-size chunks, plus user metadata), then each
 * array in global order at a 4096-byte aligned offset, so the data is also a plain raw array any MPI-IO program or
 * {@code numpy.memmap} can read. Writing is atomic: the data goes to a hidden file beside the target, is
 * synced and read back for its checksums, and only then renamed over the target; a failed write removes the
 * hidden file and leaves any previous checkpoint untouched. Every call is collective over the communicator and
 * completes or fails on every rank with the same error.
 */
public final class Checkpoint {
    /** The first eight bytes of every checkpoint. */
    static final byte[] MAGIC = "PARIOCKP".getBytes(StandardCharsets.US_ASCII);
    /** The format version this code writes and reads. */
    static final int VERSION = 1;
    /** Bytes before the JSON: magic, version (int), JSON length (long), little-endian. */
    static final int PREFIX = 20;
    /** Arrays start at multiples of this. */
    static final long ALIGN = 4096;
    /** Bytes per checksum chunk. */
    static final long CHUNK = 1 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    private Checkpoint() {
    }

    /**
     * One array to write: its name, this rank's part, and the local buffer holding that part in local order.
     *
     * @param name   a name unique in the checkpoint
     * @param part   this rank's part of the array
     * @param buffer the local elements ({@code part.count()} of {@code part.array().element()})
     */
    public record Entry(String name, DistributedArray.Local part, Object buffer) {
    }

    /**
     * One array as the header describes it.
     *
     * @param name     its name
     * @param shape    the global shape
     * @param element  the element type
     * @param order    C or Fortran
     * @param offset   where its data starts in the file
     * @param bytes    its size in the file
     * @param crc32c   the checksum of each {@code chunkBytes} piece of its data, in order
     */
    public record ArrayInfo(String name, long[] shape, Datatype element, Order order, long offset, long bytes,
                            long[] crc32c) {
    }

    /**
     * The header of a checkpoint.
     *
     * @param version    the format version
     * @param chunkBytes bytes per checksum chunk
     * @param metadata   the user's metadata
     * @param arrays     the arrays, in file order
     */
    public record Header(int version, long chunkBytes, Map<String, String> metadata, List<ArrayInfo> arrays) {
        /**
         * @param name an array's name
         * @return its description
         * @throws ParioException if the checkpoint has no such array
         */
        public ArrayInfo array(final String name) {
            for (final ArrayInfo a : arrays) {
                if (a.name().equals(name)) {
                    return a;
                }
            }
            final List<String> names = new ArrayList<>();
            arrays.forEach(a -> names.add(a.name()));
            throw ParioException.argument("the checkpoint has no array '" + name + "'; it has " + names);
        }
    }

    // ------------------------------------------------------------------ write

    /**
     * Writes a checkpoint, collectively: every rank passes the same names, arrays and metadata, each with its own
     * part and buffer.
     *
     * @param comm     the ranks
     * @param location the checkpoint's path; replaced atomically if it exists
     * @param entries  the arrays
     * @param metadata small user metadata (strings)
     * @param hints    hints for the file
     * @return the header written
     */
    public static Header write(final Communicator comm, final String location, final List<Entry> entries,
                               final Map<String, String> metadata, final Hints hints) {
        return write(comm, location, entries, metadata, hints, Progress.NONE);
    }

    /**
     * {@link #write(Communicator, String, List, Map, Hints)}, reporting the bytes written so far over all arrays.
     *
     * @param progress told the data bytes written so far and in all, after each round of the collective writes
     * @return the header written
     */
    public static Header write(final Communicator comm, final String location, final List<Entry> entries,
                               final Map<String, String> metadata, final Hints hints,
                               final Progress progress) {
        if (!Storages.isLocal(location)) {
            return writeStaged(comm, location, entries, metadata, hints, progress);
        }
        final Path target = Path.of(location).toAbsolutePath();
        // every rank must describe the same arrays: compare the header text built from rank 0's and one's own
        final Header planned = agreedPlan(comm, entries, metadata);
        Throwable failure;
        Header done = null;
        final String hidden = target.getParent().resolve("." + target.getFileName() + ".pario-"
            + Long.toHexString(sharedRandom(comm)) + ".tmp").toString();
        try {
            writeArrays(comm, hidden, entries, planned, 0, hints, progress);
            done = withChecksums(comm, hidden, planned, 0);
            if (comm.rank() == 0) {
                try (FileChannel ch = FileChannel.open(Path.of(hidden), StandardOpenOption.WRITE)) {
                    final ByteBuffer header = headerBytes(done);
                    while (header.hasRemaining()) {
                        ch.write(header, header.position());
                    }
                    ch.force(true);
                }
                publish(Path.of(hidden), target);
            }
            failure = null;
        } catch (IOException | RuntimeException e) {
            failure = e;
        }
        try {
            Agreement.agree(comm, failure);
        } catch (ParioException e) {
            if (comm.rank() == 0) {
                try {
                    Files.deleteIfExists(Path.of(hidden));
                } catch (IOException ignored) {
                    e.addSuppressed(ignored);
                }
            }
            throw e;
        }
        return done;
    }

    /** The layout of the checkpoint, after every rank has checked it describes the same arrays as rank 0. */
    private static Header agreedPlan(final Communicator comm, final List<Entry> entries,
                                     final Map<String, String> metadata) {
        Header planned = null;
        Throwable failure = null;
        String text = "";
        try {
            planned = plan(entries, metadata);
            text = json(planned);
        } catch (RuntimeException e) {
            failure = e;
        }
        final long[] length = {text.getBytes(StandardCharsets.UTF_8).length};
        comm.bcast(length, 1, Datatype.LONG, 0);
        final byte[] rootBytes = comm.rank() == 0 ? text.getBytes(StandardCharsets.UTF_8)
            : new byte[(int) length[0]];
        comm.bcast(rootBytes, rootBytes.length, Datatype.BYTE, 0);
        if (failure == null && !new String(rootBytes, StandardCharsets.UTF_8).equals(text)) {
            failure = ParioException.argument("checkpoint: rank " + comm.rank() + " describes other arrays or "
                + "metadata than rank 0");
        }
        for (final Entry e : entries) {
            // a local buffer lays its elements out one extent apart, as an array of them does in memory
            if (failure == null && e.part().count() * e.part().array().element().extent()
                > bufferBytes(e.buffer())) {
                failure = ParioException.argument("checkpoint: the buffer of array '" + e.name() + "' holds fewer "
                    + "bytes than the rank's " + e.part().count() + " elements");
            }
        }
        Agreement.agree(comm, failure);
        return planned;
    }

    /**
     * Writing a checkpoint on a store that only appends (HDFS): the arrays go collectively into a hidden data
     * file, are read back for their checksums, rank 0 writes the header into a second hidden file of exactly the
     * header region's size, appends the data file to it in one step, and renames the result over the target, in
     * one step too.
     */
    private static Header writeStaged(final Communicator comm, final String location, final List<Entry> entries,
                                      final Map<String, String> metadata, final Hints hints,
                                      final Progress progress) {
        final Header planned = agreedPlan(comm, entries, metadata);
        final String name = Storages.fileName(location);
        final String tag = Long.toHexString(sharedRandom(comm));
        final String data = Storages.sibling(location, "." + name + ".pario-" + tag + ".data");
        final String head = Storages.sibling(location, "." + name + ".pario-" + tag + ".tmp");
        final long first = planned.arrays().isEmpty() ? ALIGN : planned.arrays().get(0).offset();
        Throwable failure = null;
        Header done = null;
        try {
            writeArrays(comm, data, entries, planned, first, hints, progress);
            padStaged(comm, data, planned, first);
            done = withChecksums(comm, data, planned, first);
            if (comm.rank() == 0) {
                final StorageProvider p = Storages.providerOf(location);
                final ByteBuffer header = ByteBuffer.allocate((int) first);
                header.put(headerBytes(done)).clear();
                p.create(head, header);
                p.concat(head, data);
                p.replace(head, location);
            }
        } catch (IOException | RuntimeException e) {
            failure = e;
        }
        try {
            Agreement.agree(comm, failure);
        } catch (ParioException e) {
            if (comm.rank() == 0) {
                for (final String hidden : new String[] {data, data + ".tail", head}) {
                    try {
                        Storages.delete(hidden);
                    } catch (IOException ignored) {
                        // not there, or already gone
                    }
                }
            }
            throw e;
        }
        return done;
    }

    /**
     * The last element's trailing padding is no data, so the collective write leaves the staged file short of the
     * last array's end; rank 0 appends the missing zeros (a small file joined by concat) before the checksums are
     * taken, so the published file holds every array whole.
     */
    private static void padStaged(final Communicator comm, final String data, final Header planned,
                                  final long first) {
        Throwable failure = null;
        if (comm.rank() == 0 && !planned.arrays().isEmpty()) {
            final ArrayInfo last = planned.arrays().get(planned.arrays().size() - 1);
            final long want = last.offset() + last.bytes() - first;
            final String tail = data + ".tail";
            try (Storage st = Storages.open(data,
                new StorageProvider.Request(true, false, false, false))) {
                final long missing = want - st.size();
                if (missing > 0) {
                    final StorageProvider p = Storages.providerOf(data);
                    p.create(tail, ByteBuffer.allocate((int) missing));
                    p.concat(data, tail);
                }
            } catch (IOException | RuntimeException e) {
                failure = e;
            }
        }
        Agreement.agree(comm, failure);
    }

    /**
     * Writes every array collectively into a new file at its planned offset minus {@code shift}, then syncs it.
     */
    private static void writeArrays(final Communicator comm, final String file, final List<Entry> entries,
                                    final Header planned, final long shift, final Hints hints,
                                    final Progress progress) {
        try (ParallelFile f = ParallelFile.open(comm, file, EnumSet.of(Mode.CREATE, Mode.EXCL, Mode.RDWR), hints)) {
            final long all = planned.arrays().stream().mapToLong(ArrayInfo::bytes).sum();
            final long[] before = {0};
            f.setProgress((done, total) -> progress.update(before[0] + done, all));
            for (int i = 0; i < entries.size(); i++) {
                final Entry e = entries.get(i);
                final ArrayInfo a = planned.arrays().get(i);
                final Datatype el = e.part().array().element();
                before[0] = planned.arrays().subList(0, i).stream().mapToLong(ArrayInfo::bytes).sum();
                f.setView(a.offset() - shift, el, e.part().filetype(), DataRepresentation.NATIVE);
                f.writeAll(e.buffer(), e.part().count(), el);
            }
            if (shift == 0 && !planned.arrays().isEmpty()) {
                // trailing padding of the last element is no data, so nothing wrote it: the file must still hold
                // the whole last array, for readers that map it as a plain array
                final ArrayInfo last = planned.arrays().get(planned.arrays().size() - 1);
                f.preallocate(last.offset() + last.bytes());
            }
            f.sync();
        }
    }

    private static long bufferBytes(final Object buffer) {
        if (buffer instanceof byte[] b) {
            return b.length;
        }
        if (buffer instanceof int[] b) {
            return 4L * b.length;
        }
        if (buffer instanceof long[] b) {
            return 8L * b.length;
        }
        if (buffer instanceof double[] b) {
            return 8L * b.length;
        }
        if (buffer instanceof float[] b) {
            return 4L * b.length;
        }
        if (buffer instanceof short[] b) {
            return 2L * b.length;
        }
        if (buffer instanceof char[] b) {
            return 2L * b.length;
        }
        if (buffer instanceof ByteBuffer b) {
            return b.capacity();
        }
        return Long.MAX_VALUE;
    }

    /** Rename over the target, atomically where the file system can, then sync the directory. */
    private static void publish(final Path hidden, final Path target) throws IOException {
        try {
            Files.move(hidden, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(hidden, target, StandardCopyOption.REPLACE_EXISTING);
        }
        try (FileChannel dir = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException ignored) {
            // some file systems cannot sync a directory; the rename itself is done
        }
    }

    private static long sharedRandom(final Communicator comm) {
        final long[] r = {new java.security.SecureRandom().nextLong() & Long.MAX_VALUE};
        comm.bcast(r, 1, Datatype.LONG, 0);
        return r[0];
    }

    /** The layout of a checkpoint of these arrays, checksums still zero. */
    private static Header plan(final List<Entry> entries, final Map<String, String> metadata) {
        final List<ArrayInfo> arrays = new ArrayList<>();
        final java.util.Set<String> names = new java.util.HashSet<>();
        for (final Entry e : entries) {
            if (e.name() == null || e.name().isEmpty() || !names.add(e.name())) {
                throw ParioException.argument("checkpoint: array names must be non-empty and unique, got '"
                    + e.name() + "'");
            }
            final DistributedArray a = e.part().array();
            // elements lie one extent apart in the file too (a C array of them, padding included)
            if (a.element().lb() != 0 || a.element().extent() < a.element().size()) {
                throw ParioException.argument("checkpoint: array '" + e.name() + "' has element type " + a.element()
                    + " with lower bound " + a.element().lb() + " and extent " + a.element().extent()
                    + "; elements must start at their lower bound 0 and not overlap");
            }
            final long bytes = Math.multiplyExact(a.globalCount(), a.element().extent());
            arrays.add(new ArrayInfo(e.name(), a.shape(), a.element(), a.order(), 0, bytes,
                new long[(int) ((bytes + CHUNK - 1) / CHUNK)]));
        }
        Header h = new Header(VERSION, CHUNK, new LinkedHashMap<>(metadata), arrays);
        // the header's length does not depend on the checksums (fixed-width hex), so offsets can be set first
        long at = align(PREFIX + json(h).getBytes(StandardCharsets.UTF_8).length + 64L * arrays.size());
        final List<ArrayInfo> placed = new ArrayList<>();
        for (final ArrayInfo a : arrays) {
            placed.add(new ArrayInfo(a.name(), a.shape(), a.element(), a.order(), at, a.bytes(), a.crc32c()));
            at = align(at + a.bytes());
        }
        h = new Header(VERSION, CHUNK, h.metadata(), placed);
        return h;
    }

    private static long align(final long at) {
        return (at + ALIGN - 1) / ALIGN * ALIGN;
    }

    /**
     * Reads every chunk back, a share per rank, from a file that holds the arrays {@code shift} bytes before their
     * planned offsets, and returns the header with their checksums.
     */
    private static Header withChecksums(final Communicator comm, final String file, final Header h, final long shift)
        throws IOException {
        final List<ArrayInfo> out = new ArrayList<>();
        for (final ArrayInfo a : h.arrays()) {
            out.add(new ArrayInfo(a.name(), a.shape(), a.element(), a.order(), a.offset(), a.bytes(),
                checksums(comm, file, a, h.chunkBytes(), shift)));
        }
        return new Header(h.version(), h.chunkBytes(), h.metadata(), out);
    }

    /** Chunk i of an array is checked by rank {@code i % size}; the sums are combined with one allreduce. */
    private static long[] checksums(final Communicator comm, final String file, final ArrayInfo a, final long chunk,
                                    final long shift) throws IOException {
        final int n = (int) ((a.bytes() + chunk - 1) / chunk);
        final long[] mine = new long[n];
        final ByteBuffer buf = ByteBuffer.allocate((int) Math.min(chunk, Math.max(1, a.bytes())));
        // every rank reads at once: none of them repairs anything (false), the collective write has just ended
        try (Storage st = Storages.open(file,
            new StorageProvider.Request(true, false, false, false, java.util.Map.of(), false))) {
            for (int i = comm.rank(); i < n; i += comm.size()) {
                final long from = a.offset() - shift + i * chunk;
                final int len = (int) Math.min(chunk, a.bytes() - i * chunk);
                buf.clear().limit(len);
                st.read(from, buf);
                final CRC32C crc = new CRC32C();
                crc.update(buf.flip());
                // + 1 so that an unread chunk (0) can never pass for a checked one
                mine[i] = crc.getValue() + 1;
            }
        }
        final long[] all = new long[n];
        comm.allreduce(mine, all, n, Datatype.LONG, Op.SUM);
        for (int i = 0; i < n; i++) {
            all[i]--;
        }
        return all;
    }

    // ------------------------------------------------------------------ header text

    private static String json(final Header h) {
        final ObjectNode root = JSON.createObjectNode();
        root.put("format", "pario-checkpoint");
        root.put("version", h.version());
        root.put("chunk_bytes", h.chunkBytes());
        final ObjectNode meta = root.putObject("metadata");
        h.metadata().forEach(meta::put);
        final ArrayNode arrays = root.putArray("arrays");
        for (final ArrayInfo a : h.arrays()) {
            final ObjectNode o = arrays.addObject();
            o.put("name", a.name());
            final ArrayNode shape = o.putArray("shape");
            for (final long s : a.shape()) {
                shape.add(s);
            }
            o.put("element", a.element().toString());
            o.put("element_bytes", a.element().extent());
            o.put("order", a.order() == Order.C ? "c" : "fortran");
            o.put("datarep", "native");
            o.put("offset", a.offset());
            o.put("bytes", a.bytes());
            final ArrayNode crcs = o.putArray("crc32c");
            for (final long c : a.crc32c()) {
                crcs.add(String.format(Locale.ROOT, "%08x", c));
            }
        }
        return root.toString();
    }

    private static ByteBuffer headerBytes(final Header h) {
        final byte[] text = json(h).getBytes(StandardCharsets.UTF_8);
        final ByteBuffer b = ByteBuffer.allocate(PREFIX + text.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put(MAGIC).putInt(VERSION).putLong(text.length).put(text);
        if (b.capacity() > h.arrays().stream().mapToLong(ArrayInfo::offset).min().orElse(Long.MAX_VALUE)) {
            throw new IllegalStateException("checkpoint header overruns the first array");
        }
        return b.flip();
    }

    // ------------------------------------------------------------------ read

    /**
     * Reads a checkpoint's header, collectively (rank 0 reads, every rank gets it).
     *
     * @param comm     the ranks
     * @param location the checkpoint
     * @return its header
     */
    public static Header info(final Communicator comm, final String location) {
        String text = null;
        Throwable failure = null;
        if (comm.rank() == 0) {
            try {
                text = readHeaderText(location);
            } catch (IOException | RuntimeException e) {
                failure = e instanceof ParioException ? e : new ParioException(ErrorCategory.IO, "checkpoint "
                    + location + ": " + e, e);
            }
        }
        Agreement.agree(comm, failure);
        final byte[] mine = comm.rank() == 0 ? text.getBytes(StandardCharsets.UTF_8) : null;
        final long[] length = {mine == null ? 0 : mine.length};
        comm.bcast(length, 1, Datatype.LONG, 0);
        final byte[] bytes = comm.rank() == 0 ? mine : new byte[(int) length[0]];
        comm.bcast(bytes, bytes.length, Datatype.BYTE, 0);
        return parse(new String(bytes, StandardCharsets.UTF_8), location);
    }

    /**
     * Reads a checkpoint's header without ranks (for tools).
     *
     * @param location the checkpoint
     * @return its header
     */
    public static Header info(final String location) {
        try {
            return parse(readHeaderText(location), location);
        } catch (IOException e) {
            throw new ParioException(ErrorCategory.IO, "checkpoint " + location + ": " + e, e);
        }
    }

    private static String readHeaderText(final String file) throws IOException {
        // reading a header repairs nothing (false): a checkpoint is published whole, by a rename
        try (Storage ch = Storages.open(file,
            new StorageProvider.Request(true, false, false, false, java.util.Map.of(), false))) {
            final ByteBuffer prefix = ByteBuffer.allocate(PREFIX).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(0, prefix);
            final byte[] magic = new byte[MAGIC.length];
            prefix.flip();
            if (prefix.remaining() < PREFIX) {
                throw corrupt(file, "it is shorter than a checkpoint header");
            }
            prefix.get(magic);
            if (!java.util.Arrays.equals(magic, MAGIC)) {
                throw corrupt(file, "it does not start with PARIOCKP: not a Pario checkpoint");
            }
            final int version = prefix.getInt();
            if (version != VERSION) {
                throw corrupt(file, "format version " + version + ", this Pario reads version " + VERSION);
            }
            final long length = prefix.getLong();
            if (length < 2 || length > Math.min(ch.size() - PREFIX, 1 << 30)) {
                throw corrupt(file, "a header length of " + length + " bytes, past the end of the file");
            }
            final ByteBuffer text = ByteBuffer.allocate((int) length);
            ch.read(PREFIX, text);
            return new String(text.array(), StandardCharsets.UTF_8);
        }
    }

    private static ParioException corrupt(final String file, final String why) {
        return new ParioException(ErrorCategory.IO, "checkpoint " + file + " is damaged or not a checkpoint: " + why,
            null);
    }

    private static Header parse(final String text, final String location) {
        try {
            final JsonNode root = JSON.readTree(text);
            final Map<String, String> meta = new LinkedHashMap<>();
            root.path("metadata").fields().forEachRemaining(e -> meta.put(e.getKey(), e.getValue().asText()));
            final List<ArrayInfo> arrays = new ArrayList<>();
            for (final JsonNode o : root.path("arrays")) {
                final JsonNode shapeNode = o.path("shape");
                final long[] shape = new long[shapeNode.size()];
                for (int i = 0; i < shape.length; i++) {
                    shape[i] = shapeNode.get(i).asLong();
                }
                final JsonNode crcNode = o.path("crc32c");
                final long[] crcs = new long[crcNode.size()];
                for (int i = 0; i < crcs.length; i++) {
                    crcs[i] = Long.parseLong(crcNode.get(i).asText(), 16);
                }
                arrays.add(new ArrayInfo(o.path("name").asText(), shape, Datatype.parse(o.path("element").asText()),
                    o.path("order").asText().equals("c") ? Order.C : Order.FORTRAN, o.path("offset").asLong(),
                    o.path("bytes").asLong(), crcs));
            }
            if (!root.path("format").asText().equals("pario-checkpoint")) {
                throw new IllegalArgumentException("no format field");
            }
            final Header h = new Header(root.path("version").asInt(), root.path("chunk_bytes").asLong(), meta, arrays);
            check(h);
            return h;
        } catch (IOException | RuntimeException e) {
            throw new ParioException(ErrorCategory.IO, "checkpoint " + location + " is damaged: its header cannot be "
                + "read (" + e.getMessage() + ")", e);
        }
    }

    /** Refuses a header whose numbers do not describe a file this code wrote (a damaged or forged header). */
    private static void check(final Header h) {
        if (h.version() != VERSION) {
            throw new IllegalArgumentException("format version " + h.version());
        }
        if (h.chunkBytes() < 1 || h.chunkBytes() > 1L << 30) {
            throw new IllegalArgumentException("chunk_bytes " + h.chunkBytes());
        }
        final java.util.Set<String> names = new java.util.HashSet<>();
        long end = PREFIX;
        for (final ArrayInfo a : h.arrays()) {
            if (a.name().isEmpty() || !names.add(a.name())) {
                throw new IllegalArgumentException("array name '" + a.name() + "' empty or repeated");
            }
            long count = 1;
            for (final long d : a.shape()) {
                if (d < 1) {
                    throw new IllegalArgumentException("array '" + a.name() + "' has a dimension " + d);
                }
                count = Math.multiplyExact(count, d);
            }
            if (a.shape().length == 0 || Math.multiplyExact(count, a.element().extent()) != a.bytes()) {
                throw new IllegalArgumentException("array '" + a.name() + "' claims " + a.bytes() + " bytes for "
                    + java.util.Arrays.toString(a.shape()) + " of " + a.element());
            }
            if (a.offset() < end || a.offset() % ALIGN != 0) {
                throw new IllegalArgumentException("array '" + a.name() + "' at offset " + a.offset());
            }
            if (a.crc32c().length != (a.bytes() + h.chunkBytes() - 1) / h.chunkBytes()) {
                throw new IllegalArgumentException("array '" + a.name() + "' has " + a.crc32c().length
                    + " checksums for " + a.bytes() + " bytes");
            }
            end = Math.addExact(a.offset(), a.bytes());
        }
    }

    /**
     * Restores one array onto any number of ranks and any distribution of the same global shape and element
     * type, collectively, and verifies its checksums.
     *
     * @param comm     the ranks
     * @param location the checkpoint
     * @param name     the array's name
     * @param part     this rank's part in the new distribution
     * @param buffer   where the rank's elements go, in local order
     * @param hints    hints for the file
     * @throws ParioException naming the array and byte range of any corruption
     */
    public static void restore(final Communicator comm, final String location, final String name,
                               final DistributedArray.Local part, final Object buffer, final Hints hints) {
        restore(comm, location, name, part, buffer, hints, Progress.NONE);
    }

    /**
     * {@link #restore(Communicator, String, String, DistributedArray.Local, Object, Hints)}, reporting the bytes
     * read so far.
     *
     * @param progress told the array's bytes read so far and in all, after each round of the collective read
     */
    public static void restore(final Communicator comm, final String location, final String name,
                               final DistributedArray.Local part, final Object buffer, final Hints hints,
                               final Progress progress) {
        final Header h = info(comm, location);
        Throwable failure = null;
        ArrayInfo a = null;
        try {
            a = h.array(name);
            final DistributedArray d = part.array();
            if (!java.util.Arrays.equals(a.shape(), d.shape()) || a.element().size() != d.element().size()
                || a.element().extent() != d.element().extent()
                || a.order() != d.order()) {
                throw ParioException.argument("array '" + name + "' is " + java.util.Arrays.toString(a.shape())
                    + " of " + a.element() + " (" + a.order() + "), not " + java.util.Arrays.toString(d.shape())
                    + " of " + d.element() + " (" + d.order() + ")");
            }
        } catch (ParioException e) {
            failure = e;
        }
        Agreement.agree(comm, failure);
        verify(comm, location, h, a);
        try (ParallelFile f = ParallelFile.open(comm, location, EnumSet.of(Mode.RDONLY), hints)) {
            final Datatype el = part.array().element();
            f.setView(a.offset(), el, part.filetype(), DataRepresentation.NATIVE);
            f.setProgress(progress);
            f.readAll(buffer, part.count(), el);
        }
    }

    /**
     * Checks every checksum of every array (or of one), collectively: each rank reads a share of the chunks.
     *
     * @param comm     the ranks
     * @param location the checkpoint
     * @throws ParioException naming the first damaged array and byte range, and how many chunks are damaged
     */
    public static void verify(final Communicator comm, final String location) {
        final Header h = info(comm, location);
        for (final ArrayInfo a : h.arrays()) {
            verify(comm, location, h, a);
        }
    }

    private static void verify(final Communicator comm, final String location, final Header h, final ArrayInfo a) {
        long[] sums = null;
        Throwable failure = null;
        try {
            sums = checksums(comm, location, a, h.chunkBytes(), 0);
        } catch (IOException e) {
            failure = new ParioException(ErrorCategory.IO, "checkpoint " + location + ": " + e, e);
        }
        Agreement.agree(comm, failure);
        int bad = 0;
        int first = -1;
        for (int i = 0; i < sums.length; i++) {
            if (i >= a.crc32c().length || sums[i] != a.crc32c()[i]) {
                bad++;
                first = first < 0 ? i : first;
            }
        }
        if (bad > 0) {
            final long from = first * h.chunkBytes();
            final long to = Math.min(a.bytes(), from + h.chunkBytes());
            throw new ParioException(ErrorCategory.IO, "checkpoint " + location + ": array '" + a.name()
                + "' is damaged in bytes " + from + " to " + to + " of its data (file bytes " + (a.offset() + from)
                + " to " + (a.offset() + to) + ")" + (bad > 1 ? " and in " + (bad - 1) + " more chunk"
                + (bad > 2 ? "s" : "") + " of " + h.chunkBytes() + " bytes" : ""), null, true);
        }
    }
}
