package org.pario.hdfs;

import java.io.IOException;
import java.net.URI;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.pario.io.storage.Storage;
import org.pario.io.storage.StorageProvider;

/**
 * {@code hdfs://namenode:port/path} locations. Hadoop's configuration comes from the class path
 * ({@code core-site.xml}, {@code hdfs-site.xml}), from {@code HADOOP_CONF_DIR} when it is set, and from the
 * file's hints: a hint whose key starts with {@code dfs.}, {@code fs.}, {@code hadoop.} or {@code ipc.} is set in
 * the configuration of that file ({@code dfs.replication=2}, {@code dfs.blocksize=268435456}).
 */
public final class HdfsStorageProvider implements StorageProvider {
    /** @return a new configuration from the usual files, with Pario's bounds on waits where they set none */
    static Configuration configuration() {
        final Configuration conf = new Configuration();
        final String dir = System.getenv("HADOOP_CONF_DIR");
        if (dir != null) {
            for (final String file : new String[] {"core-site.xml", "hdfs-site.xml"}) {
                final java.io.File f = new java.io.File(dir, file);
                if (f.isFile()) {
                    conf.addResource(new Path(f.toURI()));
                }
            }
        }
        boundWaits(conf);
        return conf;
    }

    /** How long a NameNode call may wait for an answer unless the configuration files say otherwise. */
    static final int RPC_TIMEOUT_MS = 20_000;

    /**
     * Hadoop's client waits 120 s for a NameNode that accepts connections but never answers, and retries on top:
     * unless the user's files set them, calls wait {@link #RPC_TIMEOUT_MS} and connections are tried twice.
     */
    static void boundWaits(final Configuration conf) {
        final String[][] bounds = {{"ipc.client.rpc-timeout.ms", Integer.toString(RPC_TIMEOUT_MS)},
            {"ipc.client.connect.timeout", "10000"}, {"ipc.client.connect.max.retries", "1"},
            {"ipc.client.connect.max.retries.on.timeouts", "1"}};
        for (final String[] b : bounds) {
            final String[] sources = conf.getPropertySources(b[0]);
            if (sources == null || sources.length == 1 && sources[0].equals("core-default.xml")) {
                conf.set(b[0], b[1], "pario");
            }
        }
    }

    @Override
    public String scheme() {
        return "hdfs";
    }

    /** HDFS files are read anywhere, written once in order, and joined by {@code concat}. */
    @Override
    public java.util.Set<org.pario.io.storage.Storage.Capability> capabilities() {
        return java.util.EnumSet.of(org.pario.io.storage.Storage.Capability.POSITIONAL_READ,
            org.pario.io.storage.Storage.Capability.CONCAT);
    }

    /** Hint prefixes that are Hadoop configuration keys. */
    private static final String[] HADOOP_PREFIXES = {"dfs.", "fs.", "hadoop.", "ipc."};

    /** @return the usual configuration with the Hadoop keys among {@code hints} set on a copy of it */
    static Configuration configuration(final java.util.Map<String, String> hints) {
        final Configuration conf = configuration();
        for (final java.util.Map.Entry<String, String> h : hints.entrySet()) {
            for (final String prefix : HADOOP_PREFIXES) {
                if (h.getKey().startsWith(prefix)) {
                    conf.set(h.getKey(), h.getValue());
                    break;
                }
            }
        }
        return conf;
    }

    @Override
    public Storage open(final String location, final Request request) throws IOException {
        return new HdfsStorage(location, request, configuration(request.hints()));
    }

    @Override
    public java.util.List<Listed> list(final String directory) throws IOException {
        final URI uri = URI.create(directory);
        final java.util.List<Listed> out = new java.util.ArrayList<>();
        try (FileSystem fs = FileSystem.newInstance(uri, configuration())) {
            for (final org.apache.hadoop.fs.FileStatus st : fs.listStatus(new Path(uri))) {
                if (st.isFile()) {
                    out.add(new Listed(st.getPath().toString(), st.getLen(),
                        java.time.Instant.ofEpochMilli(st.getModificationTime())));
                }
            }
        } catch (java.io.FileNotFoundException e) {
            throw new java.nio.file.NoSuchFileException(directory);
        }
        return out;
    }

    @Override
    public void delete(final String location) throws IOException {
        final URI uri = URI.create(location);
        try (FileSystem fs = FileSystem.newInstance(uri, configuration())) {
            if (!fs.delete(new Path(uri), false)) {
                throw new java.nio.file.NoSuchFileException(location);
            }
        }
    }

    @Override
    public void create(final String location, final java.nio.ByteBuffer content) throws IOException {
        create(location, content, java.util.Map.of());
    }

    /** Hadoop keys among {@code hints} configure the file, as they do one opened with them. */
    @Override
    public void create(final String location, final java.nio.ByteBuffer content,
                       final java.util.Map<String, String> hints) throws IOException {
        final URI uri = URI.create(location);
        try (FileSystem fs = FileSystem.newInstance(uri, configuration(hints));
             org.apache.hadoop.fs.FSDataOutputStream out = fs.create(new Path(uri), false)) {
            final byte[] b = new byte[content.remaining()];
            content.get(b);
            out.write(b);
            out.hsync();
        }
    }

    @Override
    public void concat(final String target, final String... sources) throws IOException {
        final URI uri = URI.create(target);
        try (FileSystem fs = FileSystem.newInstance(uri, configuration())) {
            final Path[] parts = new Path[sources.length];
            for (int i = 0; i < sources.length; i++) {
                parts[i] = new Path(URI.create(sources[i]));
            }
            ((org.apache.hadoop.hdfs.DistributedFileSystem) fs).concat(new Path(uri), parts);
        }
    }

    @Override
    public void replace(final String from, final String to) throws IOException {
        final URI uri = URI.create(from);
        try (FileSystem fs = FileSystem.newInstance(uri, configuration())) {
            // one NameNode operation: readers see the old file or the new one, never neither
            ((org.apache.hadoop.hdfs.DistributedFileSystem) fs).rename(new Path(uri), new Path(URI.create(to)),
                org.apache.hadoop.fs.Options.Rename.OVERWRITE);
        }
    }
}
