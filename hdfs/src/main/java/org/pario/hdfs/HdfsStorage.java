package org.pario.hdfs;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.pario.io.storage.Storage;
import org.pario.io.storage.StorageProvider;

/**
 * A file on HDFS. HDFS reads at any offset, but writes only by appending, one writer per file; it can join
 * finished files of one directory into another in one atomic NameNode step ({@code concat}). So this backend
 * declares positional reads and concatenation only: collective writes reach it as one part file per aggregator
 * (hidden, beside the target, with the target's block size), written in order and joined at the end of the call;
 * independent writes at arbitrary offsets are refused by the layers above with an error that says why.
 */
final class HdfsStorage implements Storage {
    private static final System.Logger LOG = System.getLogger(HdfsStorage.class.getName());
    private final FileSystem fs;
    private final Path path;
    private final boolean readable;
    private FSDataInputStream in;
    /** The file's length when {@link #in} was opened: what that stream can see. */
    private long inLength;

    HdfsStorage(final String location, final StorageProvider.Request request, final Configuration conf)
        throws IOException {
        final URI uri = URI.create(location);
        this.fs = FileSystem.newInstance(uri, conf);
        this.path = new Path(uri);
        this.readable = request.read();
        try {
            if (request.create()) {
                if (fs.exists(path)) {
                    if (request.exclusive()) {
                        throw new java.nio.file.FileAlreadyExistsException(location);
                    }
                } else {
                    // overwrite=false: never replace a file someone else is writing (HDFS would delete it silently)
                    fs.create(path, false).close();
                }
            } else if (!fs.exists(path)) {
                throw new java.nio.file.NoSuchFileException(location);
            }
            if (fs.getFileStatus(path).isDirectory()) {
                throw new IOException(location + " is a directory");
            }
            if (request.first()) {
                repair();
            }
        } catch (IOException e) {
            fs.close();
            throw unanswered(uri, conf, e);
        } catch (RuntimeException e) {
            fs.close();
            throw e;
        }
    }

    /** A NameNode that took the connection and never answered, said as such; other failures as they are. */
    private static IOException unanswered(final URI uri, final Configuration conf, final IOException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.SocketTimeoutException) {
                return new IOException("the NameNode at " + uri.getHost() + ":" + (uri.getPort() < 0 ? 8020
                    : uri.getPort()) + " did not answer within " + conf.getInt("ipc.client.rpc-timeout.ms", 0) / 1000
                    + " s (ipc.client.rpc-timeout.ms; a hint sets it for one file): " + t.getMessage(), e);
            }
        }
        return e;
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.POSITIONAL_READ, Capability.CONCAT);
    }

    @Override
    public long preferredBlockSize() {
        try {
            return fs.getFileStatus(path).getBlockSize();
        } catch (IOException e) {
            return fs.getDefaultBlockSize(path);
        }
    }

    @Override
    public long size() throws IOException {
        return fs.getFileStatus(path).getLen();
    }

    private synchronized FSDataInputStream input() throws IOException {
        if (in == null) {
            inLength = size();
            in = fs.open(path);
        }
        return in;
    }

    @Override
    public long read(final long position, final ByteBuffer dst) throws IOException {
        if (!readable) {
            throw new IOException("the file was not opened for reading");
        }
        // positioned reads are thread-safe on one shared stream; a reader sees the length at its open, so reopen
        // when the file has grown since
        FSDataInputStream s = input();
        synchronized (this) {
            if (position + dst.remaining() > inLength && size() > inLength) {
                in.close();
                in = null;
                s = input();
            }
        }
        // heap buffers are read into directly, others through a bounded scratch array
        final byte[] buf = dst.hasArray() ? null : new byte[Math.min(dst.remaining(), 1 << 20)];
        long done = 0;
        while (dst.hasRemaining()) {
            final int n = buf == null
                ? s.read(position + done, dst.array(), dst.arrayOffset() + dst.position(), dst.remaining())
                : s.read(position + done, buf, 0, Math.min(buf.length, dst.remaining()));
            if (n < 0) {
                break;
            }
            if (buf == null) {
                dst.position(dst.position() + n);
            } else {
                dst.put(buf, 0, n);
            }
            done += n;
        }
        return done;
    }

    @Override
    public void write(final long position, final ByteBuffer src) throws IOException {
        throw new IOException("HDFS cannot write at an offset (" + path + ", byte " + position + ")");
    }

    @Override
    public void truncate(final long size) throws IOException {
        throw new IOException("HDFS cannot set the size of " + path + " to " + size
            + " (it only appends; truncation is not supported by Pario on HDFS)");
    }

    @Override
    public void sync() {
        // data reaches HDFS durably when a collective write commits its parts
    }

    @Override
    public AutoCloseable lock(final long position, final long length) throws IOException {
        throw new IOException("HDFS has no byte-range locks");
    }

    /** Kinds of the hidden files beside the target that a collective write uses. */
    private static final String PART = "part-";
    private static final String COMMIT = "commit-";

    /** @return the hidden file {@code .NAME.pario-KIND} beside the target */
    private Path sibling(final String kind) {
        return new Path(path.getParent(), "." + path.getName() + ".pario-" + kind);
    }

    private Path partPath(final int index) {
        return sibling(PART + index);
    }

    /** The bytes of part {@code index} that top up the file's partial last block: appended to the file at commit. */
    private Path fillPath(final int index) {
        return sibling(PART + index + "-fill");
    }

    /**
     * A part that starts inside a block (the first part of a write to a file whose length is not a multiple of
     * the block size) keeps the bytes up to the next block boundary in a fill file of their own and the rest in
     * the part proper, created only once bytes reach it (concat refuses empty files). At commit the fill is
     * appended to the file, so the file's last block is filled before the parts' whole blocks are joined to it.
     */
    @Override
    public Part openPart(final int index, final long start) throws IOException {
        final long block = preferredBlockSize();
        final short replication = fs.getFileStatus(path).getReplication();
        final long fill = start % block == 0 ? 0 : block - start % block;
        return new Part() {
            private FSDataOutputStream filling = fill > 0 ? fs.create(fillPath(index), false, 1 << 16, replication,
                block) : null;
            private FSDataOutputStream out;
            private long written;

            @Override
            public void append(final ByteBuffer data) throws IOException {
                while (data.hasRemaining()) {
                    final FSDataOutputStream to;
                    final int n;
                    if (written < fill) {
                        to = filling;
                        n = (int) Math.min(data.remaining(), fill - written);
                    } else {
                        if (out == null) {
                            out = fs.create(partPath(index), false, 1 << 16, replication, block);
                        }
                        to = out;
                        n = data.remaining();
                    }
                    if (data.hasArray()) {
                        to.write(data.array(), data.arrayOffset() + data.position(), n);
                        data.position(data.position() + n);
                    } else {
                        final byte[] b = new byte[n];
                        data.get(b);
                        to.write(b);
                    }
                    written += n;
                }
            }

            @Override
            public void close() throws IOException {
                for (final FSDataOutputStream s : new FSDataOutputStream[] {filling, out}) {
                    if (s != null) {
                        s.hsync();
                        s.close();
                    }
                }
            }
        };
    }

    /** Test hooks: run after the fill is appended, and after the parts are joined (null: none). */
    static volatile Runnable afterFill;
    static volatile Runnable afterConcat;

    /**
     * Marks a commit that appends a fill before joining the parts: an empty file whose name holds the file's
     * length before the commit and after the fill. While it exists the commit is unfinished; if this process dies
     * before deleting it, the next open of the file finishes or undoes the commit ({@link #repair}).
     */
    private Path commitMarker(final long before, final long afterFill) {
        return sibling(COMMIT + before + "-" + afterFill);
    }

    /**
     * Joins the parts: first the fill (if the first part has one) is appended to the file, topping up its last
     * block; then the parts are concatenated to it in one atomic NameNode step. If the concatenation fails after
     * the fill was appended, the file is truncated back to its old length, so a failed write leaves it as it was.
     * A commit that appends a fill is marked first ({@link #commitMarker}), so that if this process dies between
     * the two steps the next open of the file truncates it back as well.
     */
    @Override
    public void commitParts(final int[] indices) throws IOException {
        if (indices.length == 0) {
            return;
        }
        final long before = size();
        final Path fill = fillPath(indices[0]);
        final boolean filled = fs.exists(fill);
        Path marker = null;
        if (filled) {
            marker = commitMarker(before, before + fs.getFileStatus(fill).getLen());
            fs.create(marker, false).close();
            try (FSDataInputStream from = fs.open(fill);
                 FSDataOutputStream to = fs.append(path)) {
                final byte[] buf = new byte[1 << 20];
                for (int n; (n = from.read(buf)) > 0; ) {
                    to.write(buf, 0, n);
                }
                to.hsync();
            } catch (IOException | RuntimeException e) {
                undo(before, marker, e);
                throw e;
            }
            hook(afterFill);
        }
        final java.util.List<Path> parts = new java.util.ArrayList<>();
        for (final int i : indices) {
            if (fs.exists(partPath(i))) {
                parts.add(partPath(i));
            }
        }
        try {
            if (!parts.isEmpty()) {
                // one atomic NameNode operation: the target gets the parts' blocks, the parts are gone
                ((org.apache.hadoop.hdfs.DistributedFileSystem) fs).concat(path, parts.toArray(new Path[0]));
            }
        } catch (IOException | RuntimeException e) {
            if (filled) {
                undo(before, marker, e);
            }
            throw e;
        }
        hook(afterConcat);
        if (filled) {
            fs.delete(fill, false);
            fs.delete(marker, false);
        }
    }

    private static void hook(final Runnable h) {
        if (h != null) {
            h.run();
        }
    }

    /**
     * Takes a failed commit's fill back out of the file; the marker goes only once that has worked, so that
     * otherwise the next open tries again.
     */
    private void undo(final long before, final Path marker, final Exception failure) {
        try {
            truncateBack(before);
            fs.delete(marker, false);
        } catch (IOException | RuntimeException again) {
            failure.addSuppressed(again);
        }
    }

    /**
     * Truncates the file to {@code length} and waits until HDFS has finished it: a cut inside a block needs a
     * block recovery, and the file takes no append until that is done. A file a dead writer still holds open is
     * recovered first.
     */
    private void truncateBack(final long length) throws IOException {
        final org.apache.hadoop.hdfs.DistributedFileSystem dfs = (org.apache.hadoop.hdfs.DistributedFileSystem) fs;
        final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
        while (!dfs.isFileClosed(path)) {
            if (dfs.recoverLease(path)) {
                break;
            }
            pause(deadline, "the lease of a writer that died");
        }
        if (size() > length && !dfs.truncate(path, length)) {
            while (!dfs.isFileClosed(path)) {
                pause(deadline, "the truncation to " + length + " bytes");
            }
        }
    }

    private void pause(final long deadline, final String what) throws IOException {
        if (System.nanoTime() > deadline) {
            throw new IOException("HDFS did not finish recovering " + what + " of " + path + " within 120 s");
        }
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted waiting for HDFS to recover " + path);
        }
    }

    /**
     * Finishes or undoes a commit a dead process left marked ({@link #commitMarker}). If parts are still there,
     * or the file is shorter than the fill would have made it, the commit did not happen: the file is cut back
     * to its old length and the parts are deleted. Otherwise the commit happened and only its leftovers go.
     */
    private void repair() throws IOException {
        final String prefix = sibling(COMMIT).getName();
        final FileStatus[] markers = fs.listStatus(path.getParent(), p -> p.getName().startsWith(prefix));
        if (markers.length == 0) {
            return;
        }
        final String partPrefix = sibling(PART).getName();
        for (final FileStatus m : markers) {
            final String[] lengths = m.getPath().getName().substring(prefix.length()).split("-");
            final long before;
            final long afterFill;
            try {
                before = Long.parseLong(lengths[0]);
                afterFill = Long.parseLong(lengths[1]);
            } catch (RuntimeException e) {
                continue;
            }
            final FileStatus[] leftovers = fs.listStatus(path.getParent(), p -> p.getName().startsWith(partPrefix));
            boolean partsLeft = false;
            for (final FileStatus f : leftovers) {
                partsLeft |= !f.getPath().getName().endsWith("-fill");
            }
            final boolean undone = partsLeft || size() < afterFill;
            try {
                if (undone) {
                    truncateBack(before);
                }
                for (final FileStatus f : leftovers) {
                    fs.delete(f.getPath(), false);
                }
                fs.delete(m.getPath(), false);
            } catch (IOException e) {
                throw new IOException("a collective write to " + path + " was interrupted while it was being "
                    + "committed, and undoing it failed (the first rank to open the file needs write access to it): "
                    + e.getMessage(), e);
            }
            LOG.log(System.Logger.Level.WARNING, "a collective write to " + path + " was interrupted while it was "
                + "being committed; " + (undone ? "it is undone: the file is cut back to the " + before
                + " bytes it had before" : "its commit had finished, and its leftover files are removed"));
        }
    }


    @Override
    public void discardParts(final int[] indices) throws IOException {
        for (final int i : indices) {
            fs.delete(partPath(i), false);
            fs.delete(fillPath(i), false);
        }
    }

    @Override
    public String describe() {
        return path.toString();
    }

    @Override
    public void close() throws IOException {
        try {
            synchronized (this) {
                if (in != null) {
                    in.close();
                }
            }
        } finally {
            fs.close();
        }
    }
}
