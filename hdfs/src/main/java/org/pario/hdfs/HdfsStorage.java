package org.pario.hdfs;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
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
        } catch (IOException | RuntimeException e) {
            fs.close();
            throw e;
        }
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

    private Path partPath(final int index) {
        return new Path(path.getParent(), "." + path.getName() + ".pario-part-" + index);
    }

    /** The bytes of part {@code index} that top up the file's partial last block: appended to the file at commit. */
    private Path fillPath(final int index) {
        return new Path(path.getParent(), "." + path.getName() + ".pario-part-" + index + "-fill");
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

    /**
     * Joins the parts: first the fill (if the first part has one) is appended to the file, topping up its last
     * block; then the parts are concatenated to it in one atomic NameNode step. If the concatenation fails after
     * the fill was appended, the file is truncated back to its old length, so a failed write leaves it as it was
     * (unless this process dies between the two steps: the file then holds the fill's bytes as well).
     */
    @Override
    public void commitParts(final int[] indices) throws IOException {
        if (indices.length == 0) {
            return;
        }
        final long before = size();
        final boolean filled = fs.exists(fillPath(indices[0]));
        if (filled) {
            try (FSDataInputStream from = fs.open(fillPath(indices[0]));
                 FSDataOutputStream to = fs.append(path)) {
                final byte[] buf = new byte[1 << 20];
                for (int n; (n = from.read(buf)) > 0; ) {
                    to.write(buf, 0, n);
                }
                to.hsync();
            }
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
                try {
                    fs.truncate(path, before);
                } catch (IOException | RuntimeException again) {
                    e.addSuppressed(again);
                }
            }
            throw e;
        }
        if (filled) {
            fs.delete(fillPath(indices[0]), false);
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
