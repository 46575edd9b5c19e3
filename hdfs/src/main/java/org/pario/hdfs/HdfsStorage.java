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

    @Override
    public Part openPart(final int index) throws IOException {
        final long block = preferredBlockSize();
        final FSDataOutputStream out = fs.create(partPath(index), false, 1 << 16,
            fs.getFileStatus(path).getReplication(), block);
        return new Part() {
            @Override
            public void append(final ByteBuffer data) throws IOException {
                if (data.hasArray()) {
                    out.write(data.array(), data.arrayOffset() + data.position(), data.remaining());
                    data.position(data.limit());
                } else {
                    final byte[] b = new byte[data.remaining()];
                    data.get(b);
                    out.write(b);
                }
            }

            @Override
            public void close() throws IOException {
                out.hsync();
                out.close();
            }
        };
    }

    @Override
    public void commitParts(final int[] indices) throws IOException {
        if (indices.length == 0) {
            return;
        }
        final Path[] parts = new Path[indices.length];
        for (int i = 0; i < indices.length; i++) {
            parts[i] = partPath(indices[i]);
        }
        // one atomic NameNode operation: the target gets the parts' blocks, the parts are gone
        ((org.apache.hadoop.hdfs.DistributedFileSystem) fs).concat(path, parts);
    }

    @Override
    public void discardParts(final int[] indices) throws IOException {
        for (final int i : indices) {
            fs.delete(partPath(i), false);
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
