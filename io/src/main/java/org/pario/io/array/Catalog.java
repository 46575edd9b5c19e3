package org.pario.io.array;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import org.pario.ErrorCategory;
import org.pario.ParioException;
import org.pario.comm.Communicator;
import org.pario.io.storage.Storage;
import org.pario.io.storage.StorageProvider;
import org.pario.io.storage.Storages;

/**
 * The checkpoints of a directory: which files are whole checkpoints, damaged ones or the hidden files of writes
 * that have not committed; the newest one that verifies; and retention. Files that are none of these (logs, other
 * data) are left out and never touched.
 */
final class Catalog {
    /** The hidden files a checkpoint write (or a file's staged parts) uses beside its target. */
    private static final Pattern HIDDEN = Pattern.compile("\\.(.+)\\.pario-[^/]*");

    private Catalog() {
    }

    /** Oldest first; ties by location. */
    static final Comparator<CheckpointEntry> BY_TIME = Comparator.comparing(CheckpointEntry::time)
        .thenComparing(CheckpointEntry::location);

    static List<CheckpointEntry> list(final String directory) {
        final List<StorageProvider.Listed> files;
        try {
            files = Storages.providerOf(directory).list(directory);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new ParioException(ErrorCategory.IO, "checkpoint directory " + directory
                + " does not exist", e);
        } catch (IOException e) {
            throw new ParioException(ErrorCategory.IO, "checkpoint directory " + directory + " cannot be listed: "
                + HeaderCodec.why(e), e);
        }
        final List<CheckpointEntry> out = new ArrayList<>();
        for (final StorageProvider.Listed f : files) {
            final CheckpointEntry e = entry(f);
            if (e != null) {
                out.add(e);
            }
        }
        out.sort(BY_TIME);
        return out;
    }

    private static CheckpointEntry entry(final StorageProvider.Listed f) {
        final String name = Storages.fileName(f.location());
        final java.util.regex.Matcher hidden = HIDDEN.matcher(name);
        if (hidden.matches()) {
            return new CheckpointEntry(f.location(), CheckpointEntry.State.HALF_WRITTEN, f.modified(), f.bytes(),
                List.of(), Attributes.NONE, "a write of " + hidden.group(1) + " that has not committed: running, "
                + "or its writer died");
        }
        if (!startsLikeACheckpoint(f.location())) {
            return null;
        }
        try {
            final CheckpointHeader h = HeaderCodec.read(f.location());
            final List<String> names = new ArrayList<>();
            for (final StoredArray a : h.arrays()) {
                names.add(a.name());
            }
            return new CheckpointEntry(f.location(), CheckpointEntry.State.WHOLE, h.created(), f.bytes(), names,
                h.attributes(), null);
        } catch (ParioException e) {
            return new CheckpointEntry(f.location(), CheckpointEntry.State.DAMAGED, f.modified(), f.bytes(),
                List.of(), Attributes.NONE, e.getMessage());
        }
    }

    private static boolean startsLikeACheckpoint(final String location) {
        try (Storage st = Storages.open(location, new StorageProvider.Request(true, false, false, false, Map.of(),
            false))) {
            final ByteBuffer magic = ByteBuffer.allocate(HeaderCodec.MAGIC.length);
            st.read(0, magic);
            return !magic.hasRemaining() && Arrays.equals(magic.array(), HeaderCodec.MAGIC);
        } catch (IOException e) {
            return false; // gone or unreadable since it was listed: not one to report
        }
    }

    /** In this process: the newest checkpoint whose data verifies, reading each candidate whole. */
    static LatestCheckpoint latest(final String directory) {
        final List<CheckpointEntry> all = list(directory);
        final List<CheckpointEntry> skipped = new ArrayList<>();
        for (int i = all.size() - 1; i >= 0; i--) {
            final CheckpointEntry e = all.get(i);
            if (!e.whole()) {
                skipped.add(e);
                continue;
            }
            try {
                Checksums.verifyAlone(e.location(), HeaderCodec.read(e.location()));
                return new LatestCheckpoint(Optional.of(e), skipped);
            } catch (ParioException bad) {
                skipped.add(e.damaged(bad.getMessage()));
            }
        }
        return new LatestCheckpoint(Optional.empty(), skipped);
    }

    /**
     * Collective: rank 0 finds the newest checkpoint that verifies, and every rank gets the same answer (the
     * skipped files with their state, time, size and why, the found one with its header).
     */
    static LatestCheckpoint latest(final Communicator comm, final String directory) {
        String text = null;
        Throwable failure = null;
        if (comm.rank() == 0) {
            try {
                text = encode(latest(directory));
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        org.pario.io.Agreement.agree(comm, failure);
        return decode(comm.bcast(text, 0));
    }

    private static String encode(final LatestCheckpoint l) {
        final StringBuilder s = new StringBuilder();
        for (final CheckpointEntry e : l.skipped()) {
            s.append(line(e)).append('\n');
        }
        l.newest().ifPresent(e -> s.append('+').append(line(e)).append('\n'));
        return s.toString();
    }

    private static String line(final CheckpointEntry e) {
        return String.join("\t", e.state().name(), Long.toString(e.time().getEpochSecond()),
            Integer.toString(e.time().getNano()), Long.toString(e.bytes()), tabless(e.location()),
            e.problem() == null ? "" : tabless(e.problem()));
    }

    private static String tabless(final String s) {
        return s.replace('\t', ' ').replace('\n', ' ');
    }

    private static LatestCheckpoint decode(final String text) {
        final List<CheckpointEntry> skipped = new ArrayList<>();
        Optional<CheckpointEntry> newest = Optional.empty();
        for (final String l : text.split("\n")) {
            if (l.isEmpty()) {
                continue;
            }
            final boolean found = l.startsWith("+");
            final String[] f = (found ? l.substring(1) : l).split("\t", -1);
            final CheckpointEntry.State state = CheckpointEntry.State.valueOf(f[0]);
            final Instant time = Instant.ofEpochSecond(Long.parseLong(f[1]), Long.parseLong(f[2]));
            if (found) {
                final CheckpointHeader h = HeaderCodec.read(f[4]);
                final List<String> names = new ArrayList<>();
                for (final StoredArray a : h.arrays()) {
                    names.add(a.name());
                }
                newest = Optional.of(new CheckpointEntry(f[4], state, time, Long.parseLong(f[3]), names,
                    h.attributes(), null));
            } else {
                skipped.add(new CheckpointEntry(f[4], state, time, Long.parseLong(f[3]), List.of(), Attributes.NONE,
                    f[5].isEmpty() ? null : f[5]));
            }
        }
        return new LatestCheckpoint(newest, skipped);
    }

    /**
     * Keeps the {@code keep} newest whole checkpoints of a directory and deletes the older ones, and damaged files
     * older than the oldest one kept. With fewer whole checkpoints than {@code keep} nothing whole is deleted, so a
     * crash at any point never leaves fewer good checkpoints than before. Half-written files are left alone: one
     * may belong to a write still running.
     *
     * @return the files deleted
     */
    static List<CheckpointEntry> prune(final String directory, final int keep) {
        if (keep < 1) {
            throw ParioException.argument("checkpoint retention must keep at least 1 checkpoint, got " + keep);
        }
        final List<CheckpointEntry> all = list(directory);
        final List<CheckpointEntry> whole = new ArrayList<>();
        for (final CheckpointEntry e : all) {
            if (e.whole()) {
                whole.add(e);
            }
        }
        final List<CheckpointEntry> deleted = new ArrayList<>();
        if (whole.size() <= keep) {
            return deleted;
        }
        final CheckpointEntry oldestKept = whole.get(whole.size() - keep);
        for (final CheckpointEntry e : all) {
            final boolean old = BY_TIME.compare(e, oldestKept) < 0;
            if (old && e.state() != CheckpointEntry.State.HALF_WRITTEN) {
                try {
                    Storages.delete(e.location());
                    deleted.add(e);
                } catch (java.nio.file.NoSuchFileException gone) {
                    // deleted meanwhile by another prune: the outcome wanted
                } catch (IOException x) {
                    throw new ParioException(ErrorCategory.IO, "checkpoint directory " + directory + ": " + e.location()
                        + " cannot be deleted: " + HeaderCodec.why(x), x);
                }
            }
        }
        return deleted;
    }

    /** @return the directory a checkpoint's location is in */
    static String directoryOf(final String location) {
        final int slash = location.lastIndexOf('/');
        return slash < 0 ? "." : slash == 0 ? "/" : location.substring(0, slash);
    }
}
