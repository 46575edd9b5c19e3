package org.pario.comm.settings;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.pario.ParioException;

/**
 * Everything a rank's communication layer can be tuned by, frozen once made: the transport (sockets, eager and
 * rendezvous sending, shared memory, the event loop), waiting, scratch memory and the collective algorithms'
 * thresholds ({@link #tuning()}). Every setting has a name, a default and a range; docs/comm.md lists them.
 *
 * <p>Three ways to make one, and one way to change one:
 * <pre>{@code
 * CommSettings.defaults();                               // the defaults
 * CommSettings.fromSystemProperties();                   // each setting from -Dpario.<name>, else its default
 * CommSettings.from(Map.of("eagerMaxBytes", "65536"));   // from a map of names to values
 * settings.with("sendInPlaceMinBytes", 2 << 20);          // a copy with one setting changed
 * }</pre>
 * {@code Pario.init()} and {@code LocalCluster} use {@link #fromSystemProperties()}; this class is the only place
 * that reads Pario's system properties. A name that is not a setting, or a value that is not of its kind or out of
 * its range, fails at once, naming the setting and what it takes.
 */
public final class CommSettings {
    private enum Kind { LONG, INT, BOOLEAN, TEXT }

    /** Each setting: its name, default, kind and range (inclusive; for text, ignored). */
    private enum Setting {
        TRANSPORT("transport", "auto", Kind.TEXT),
        SOCKET_BUFFER_BYTES("socketBufferBytes", 4 << 20, Kind.INT, 4 << 10),
        TCP_CONGESTION("tcpCongestion", "auto", Kind.TEXT),
        DIRECT_WRITES("directWrites", "true", Kind.BOOLEAN),
        ARRAY_SOCKETS("arraySockets", "true", Kind.BOOLEAN),
        WAITERS_DRIVE("waitersDrive", "true", Kind.BOOLEAN),
        IO_THREADS("ioThreads", 2, Kind.INT, 1),
        DRIVE_NANOS("driveNanos", 1_000_000, Kind.LONG, 0),
        LOOP_QUIET_NANOS("loopQuietNanos", 20_000_000, Kind.LONG, 0),
        LOOP_LINGER_NANOS("loopLingerNanos", 100_000, Kind.LONG, 0),
        TIGHT_POLL_NANOS("tightPollNanos", 200_000, Kind.LONG, 0),
        CROWDED_POLL_NANOS("crowdedPollNanos", 200_000, Kind.LONG, 0),
        CROWDED_POLL_MAX_NANOS("crowdedPollMaxNanos", 1_000_000, Kind.LONG, 0),
        CROWDED_SPIN_NANOS("crowdedSpinNanos", 3_000, Kind.LONG, 0),
        SPIN_NANOS("spinNanos", 50_000, Kind.LONG, 0),
        SPARE_BUFFER_BYTES("spareBufferBytes", 128L << 20, Kind.LONG, 0),
        SCRATCH_BYTES("scratchBytes", 128L << 20, Kind.LONG, 0),
        EAGER_MAX_BYTES("eagerMaxBytes", 1 << 20, Kind.LONG, 0, 1L << 30),
        EAGER_CREDIT_BYTES("eagerCreditBytes", 4L << 20, Kind.LONG, 0),
        EAGER_IN_PLACE_MIN_BYTES("eagerInPlaceMinBytes", 64 << 10, Kind.LONG, 0),
        EAGER_PIECE_MIN_BYTES("eagerPieceMinBytes", (512 << 10) + 1, Kind.LONG, 0),
        EAGER_PIECE_BYTES("eagerPieceBytes", 256 << 10, Kind.INT, 4 << 10),
        RENDEZVOUS_PIECE_BYTES("rendezvousPieceBytes", 4 << 20, Kind.INT, 64 << 10, 1 << 30),
        RENDEZVOUS_BLOCK_BYTES("rendezvousBlockBytes", 8 << 20, Kind.LONG, 0, 1 << 30),
        IN_PLACE_READS("inPlaceReads", "true", Kind.BOOLEAN),
        IN_PLACE_MIN_STREAMS("inPlaceMinStreams", 1, Kind.INT, 0),
        SEND_IN_PLACE("sendInPlace", "true", Kind.BOOLEAN),
        SEND_IN_PLACE_MIN_BYTES("sendInPlaceMinBytes", 32L << 20, Kind.LONG, 0),
        CROWDED_SEND_IN_PLACE_MIN_BYTES("crowdedSendInPlaceMinBytes", 2L << 20, Kind.LONG, 0),
        PACK_LATE_MIN_BYTES("packLateMinBytes", 16L << 20, Kind.LONG, 0),
        PACK_LATE_PIECE_BYTES("packLatePieceBytes", 1 << 20, Kind.INT, 64 << 10, 1 << 30),
        SHARED_MEMORY("sharedMemory", "true", Kind.BOOLEAN),
        SHARED_MEMORY_MIN_BYTES("sharedMemoryMinBytes", 256 << 10, Kind.LONG, 0),
        STAGED_OWE_MIN_BYTES("stagedOweMinBytes", 1L << 20, Kind.LONG, 0),
        SHM_DIR("shmDir", "/dev/shm", Kind.TEXT),
        SHM_ARENA_BYTES("shmArenaBytes", 256L << 20, Kind.LONG, 4 << 10, Integer.MAX_VALUE),
        SHM_CHUNK_BYTES("shmChunkBytes", 64 << 10, Kind.INT, 4 << 10),
        REDUCTION_SLICE_BYTES("reductionSliceBytes", 64L << 20, Kind.LONG, 1, Integer.MAX_VALUE - 8),
        ALLREDUCE_LARGE_MIN_BYTES("tuning.allreduceLargeMinBytes", 512 << 10, Kind.LONG, 0),
        BCAST_LINEAR_MAX_RANKS("tuning.bcastLinearMaxRanks", 4, Kind.LONG, 0),
        BCAST_LINEAR_MAX_BYTES("tuning.bcastLinearMaxBytes", 64 << 10, Kind.LONG, 0),
        BCAST_PIPELINE_MIN_BYTES("tuning.bcastPipelineMinBytes", 4L << 20, Kind.LONG, 0),
        BCAST_SEGMENT_BYTES("tuning.bcastSegmentBytes", 1L << 20, Kind.LONG, 1),
        ALLTOALL_ALL_AT_ONCE_MAX_BYTES("tuning.alltoallAllAtOnceMaxBytes", 32 << 10, Kind.LONG, 0),
        ALLREDUCE_SEGMENT_MAX_RANKS("tuning.allreduceSegmentMaxRanks", 2, Kind.LONG, 0),
        ALLREDUCE_SEGMENT_BYTES("tuning.allreduceSegmentBytes", 512 << 10, Kind.LONG, 1),
        BARRIER_LINEAR_MAX_RANKS("tuning.barrierLinearMaxRanks", 4, Kind.LONG, 0),
        ALLREDUCE_LINEAR_MAX_RANKS("tuning.allreduceLinearMaxRanks", 4, Kind.LONG, 0),
        ALLREDUCE_LINEAR_MAX_BYTES("tuning.allreduceLinearMaxBytes", 64 << 10, Kind.LONG, 0),
        ALLTOALL_LINEAR_MAX_RANKS("tuning.alltoallLinearMaxRanks", 4, Kind.LONG, 0),
        ALLTOALL_LINEAR_MAX_BYTES("tuning.alltoallLinearMaxBytes", 64 << 10, Kind.LONG, 0),
        PROMPT_WAIT_MAX_BYTES("tuning.promptWaitMaxBytes", 4 << 10, Kind.LONG, 0);

        final String key;
        final String fallback;
        final Kind kind;
        final long min;
        final long max;

        Setting(final String key, final String fallback, final Kind kind) {
            this(key, fallback, kind, 0, 0);
        }

        Setting(final String key, final long fallback, final Kind kind, final long min) {
            this(key, Long.toString(fallback), kind, min, kind == Kind.INT ? Integer.MAX_VALUE : Long.MAX_VALUE);
        }

        Setting(final String key, final long fallback, final Kind kind, final long min, final long max) {
            this(key, Long.toString(fallback), kind, min, max);
        }

        Setting(final String key, final String fallback, final Kind kind, final long min, final long max) {
            this.key = key;
            this.fallback = fallback;
            this.kind = kind;
            this.min = min;
            this.max = max;
        }
    }

    private static final Map<String, Setting> BY_NAME;

    static {
        final Map<String, Setting> m = new LinkedHashMap<>();
        for (final Setting s : Setting.values()) {
            m.put(s.key, s);
        }
        BY_NAME = Collections.unmodifiableMap(m);
    }

    private static final CommSettings DEFAULTS = new CommSettings(name -> null, "the default of ");

    /** Parsed values, by the setting's ordinal: Long, Integer, Boolean or String. */
    private final Object[] values = new Object[Setting.values().length];
    private final CollectiveTuning tuning;

    private CommSettings(final Function<String, String> source, final String where) {
        for (final Setting s : Setting.values()) {
            final String given = source.apply(s.key);
            values[s.ordinal()] = parse(s, given == null ? s.fallback : given.trim(), where);
        }
        tuning = new CollectiveTuning(longOf(Setting.ALLREDUCE_LARGE_MIN_BYTES), longOf(Setting.BCAST_LINEAR_MAX_RANKS),
            longOf(Setting.BCAST_LINEAR_MAX_BYTES), longOf(Setting.BCAST_PIPELINE_MIN_BYTES),
            longOf(Setting.BCAST_SEGMENT_BYTES), longOf(Setting.ALLTOALL_ALL_AT_ONCE_MAX_BYTES),
            longOf(Setting.ALLREDUCE_SEGMENT_MAX_RANKS), longOf(Setting.ALLREDUCE_SEGMENT_BYTES),
            longOf(Setting.BARRIER_LINEAR_MAX_RANKS), longOf(Setting.ALLREDUCE_LINEAR_MAX_RANKS),
            longOf(Setting.ALLREDUCE_LINEAR_MAX_BYTES), longOf(Setting.ALLTOALL_LINEAR_MAX_RANKS),
            longOf(Setting.ALLTOALL_LINEAR_MAX_BYTES), longOf(Setting.PROMPT_WAIT_MAX_BYTES),
            longOf(Setting.REDUCTION_SLICE_BYTES));
    }

    /** @return every setting at its default */
    public static CommSettings defaults() {
        return DEFAULTS;
    }

    /**
     * @return each setting from the system property {@code pario.<name>} where the JVM has one, else its default
     * @throws ParioException naming the property when one holds a value the setting does not take
     */
    public static CommSettings fromSystemProperties() {
        return new CommSettings(name -> System.getProperty("pario." + name), "system property ");
    }

    /**
     * @param given setting names and values (their {@code toString()}); the others keep their defaults
     * @return the settings
     * @throws ParioException naming the setting when a name is not one or a value is not one it takes
     */
    public static CommSettings from(final Map<String, ?> given) {
        for (final String name : given.keySet()) {
            known(name);
        }
        return new CommSettings(name -> given.containsKey(name) ? String.valueOf(given.get(name)) : null, "");
    }

    /**
     * @param name  a setting's name ({@link #names()})
     * @param value its new value (its {@code toString()} is parsed as a system property's would be)
     * @return a copy of these settings with that one changed
     * @throws ParioException naming the setting when the name is not one or the value is not one it takes
     */
    public CommSettings with(final String name, final Object value) {
        final Setting changed = known(name);
        return new CommSettings(n -> n.equals(changed.key) ? String.valueOf(value) : text(BY_NAME.get(n)), "");
    }

    /** @return every setting's name, in the order docs/comm.md lists them */
    public static Set<String> names() {
        return BY_NAME.keySet();
    }

    /**
     * @param name a setting's name
     * @return its value as text, as a property would give it
     */
    public String get(final String name) {
        return text(known(name));
    }

    private String text(final Setting s) {
        return String.valueOf(values[s.ordinal()]);
    }

    private static Setting known(final String name) {
        final Setting s = BY_NAME.get(name);
        if (s == null) {
            throw ParioException.argument("'" + name + "' is not a communication setting; they are " + names());
        }
        return s;
    }

    private static Object parse(final Setting s, final String value, final String where) {
        // named as its property: how docs/comm.md lists the settings
        final String named = where + "pario." + s.key;
        switch (s.kind) {
            case BOOLEAN:
                if (!"true".equalsIgnoreCase(value) && !"false".equalsIgnoreCase(value)) {
                    throw ParioException.argument(named + " must be true or false, not '" + value + "'");
                }
                return Boolean.parseBoolean(value);
            case TEXT:
                if (value.isEmpty()) {
                    throw ParioException.argument(named + " must not be empty");
                }
                return value;
            default:
                final long v;
                try {
                    v = Long.parseLong(value);
                } catch (NumberFormatException e) {
                    throw ParioException.argument(named + " must be a whole number, not '" + value + "'");
                }
                if (v < s.min || v > s.max) {
                    throw ParioException.argument(named + " must be from " + s.min + " to " + s.max + ", not " + v);
                }
                return s.kind == Kind.INT ? Integer.valueOf((int) v) : Long.valueOf(v);
        }
    }

    private long longOf(final Setting s) {
        return ((Number) values[s.ordinal()]).longValue();
    }

    private int intOf(final Setting s) {
        return ((Number) values[s.ordinal()]).intValue();
    }

    private boolean on(final Setting s) {
        return (Boolean) values[s.ordinal()];
    }

    private String textOf(final Setting s) {
        return (String) values[s.ordinal()];
    }

    /** @return the collective algorithms' thresholds */
    public CollectiveTuning tuning() {
        return tuning;
    }

    /** @return the Netty transport: {@code auto} (native epoll where it loads, else NIO), {@code epoll} or {@code nio} */
    public String transport() {
        return textOf(Setting.TRANSPORT);
    }

    /** @return the socket buffer size, in bytes: loopback and data-centre links need MiBs in flight */
    public int socketBufferBytes() {
        return intOf(Setting.SOCKET_BUFFER_BYTES);
    }

    /** @return the TCP congestion control: {@code auto}, {@code system} or an algorithm's name */
    public String tcpCongestion() {
        return textOf(Setting.TCP_CONGESTION);
    }

    /** @return whether frames may go straight into an idle connection's socket from the sending thread */
    public boolean directWrites() {
        return on(Setting.DIRECT_WRITES);
    }

    /**
     * @return whether sockets may write message data from, and read it into, the caller's Java arrays straight where
     *     the JVM allows it (Java 22+ with native access), instead of through direct memory
     */
    public boolean arraySockets() {
        return on(Setting.ARRAY_SOCKETS);
    }

    /** @return whether waiting threads drive the rank's event loop (else a group of {@link #ioThreads()}) */
    public boolean waitersDrive() {
        return on(Setting.WAITERS_DRIVE);
    }

    /** @return the event-loop threads where waiters do not drive the loop */
    public int ioThreads() {
        return intOf(Setting.IO_THREADS);
    }

    /** @return how long a waiting thread drives the loop before it blocks, in nanoseconds (0: never) */
    public long driveNanos() {
        return longOf(Setting.DRIVE_NANOS);
    }

    /** @return how long the loop's background thread sleeps while a thread drives and nothing is owed */
    public long loopQuietNanos() {
        return longOf(Setting.LOOP_QUIET_NANOS);
    }

    /** @return how long a driver keeps polling after the last event before it hands the loop back */
    public long loopLingerNanos() {
        return longOf(Setting.LOOP_LINGER_NANOS);
    }

    /** @return how long a waiter polls without blocking where ranks do not outnumber cores */
    public long tightPollNanos() {
        return longOf(Setting.TIGHT_POLL_NANOS);
    }

    /** @return how long a waiter polls, yielding between polls, where ranks outnumber cores */
    public long crowdedPollNanos() {
        return longOf(Setting.CROWDED_POLL_NANOS);
    }

    /** @return the longest a crowded waiter yields before it sleeps */
    public long crowdedPollMaxNanos() {
        return longOf(Setting.CROWDED_POLL_MAX_NANOS);
    }

    /** @return how long a crowded waiter spins before it yields when its sender is already at work */
    public long crowdedSpinNanos() {
        return longOf(Setting.CROWDED_SPIN_NANOS);
    }

    /** @return how long a rank checks for a message, yielding between checks, before it blocks (0: at once) */
    public long spinNanos() {
        return longOf(Setting.SPIN_NANOS);
    }

    /** @return the most bytes of direct buffers kept for reuse by rendezvous sends */
    public long spareBufferBytes() {
        return longOf(Setting.SPARE_BUFFER_BYTES);
    }

    /** @return the most bytes of scratch arrays a rank keeps for reductions (within its share of the heap) */
    public long scratchBytes() {
        return longOf(Setting.SCRATCH_BYTES);
    }

    /** @return the largest message sent eagerly; larger ones wait at their sender for the receive (rendezvous) */
    public long eagerMaxBytes() {
        return longOf(Setting.EAGER_MAX_BYTES);
    }

    /** @return eager bytes a sender may have in flight to one peer before small messages wait too */
    public long eagerCreditBytes() {
        return longOf(Setting.EAGER_CREDIT_BYTES);
    }

    /** @return the smallest eager message written straight from a direct buffer of the caller's */
    public long eagerInPlaceMinBytes() {
        return longOf(Setting.EAGER_IN_PLACE_MIN_BYTES);
    }

    /** @return the smallest eager message from a heap array packed in pieces as it leaves */
    public long eagerPieceMinBytes() {
        return longOf(Setting.EAGER_PIECE_MIN_BYTES);
    }

    /** @return the pieces of such a message, in bytes */
    public int eagerPieceBytes() {
        return intOf(Setting.EAGER_PIECE_BYTES);
    }

    /** @return the pieces rendezvous data is packed and sent in, in bytes */
    public int rendezvousPieceBytes() {
        return intOf(Setting.RENDEZVOUS_PIECE_BYTES);
    }

    /** @return the blocks of memory a waiting rendezvous message is held in, in bytes (at least one piece) */
    public long rendezvousBlockBytes() {
        return longOf(Setting.RENDEZVOUS_BLOCK_BYTES);
    }

    /** @return whether sockets may read message data straight into receive memory that is one direct run */
    public boolean inPlaceReads() {
        return on(Setting.IN_PLACE_READS);
    }

    /** @return on how many connections at once data must stream into receives before sockets read in place */
    public int inPlaceMinStreams() {
        return intOf(Setting.IN_PLACE_MIN_STREAMS);
    }

    /** @return whether collectives' large sends leave from the caller's memory */
    public boolean sendInPlace() {
        return on(Setting.SEND_IN_PLACE);
    }

    /** @return the smallest message a collective sends from the caller's direct memory */
    public long sendInPlaceMinBytes() {
        return longOf(Setting.SEND_IN_PLACE_MIN_BYTES);
    }

    /** @return the same where ranks outnumber cores */
    public long crowdedSendInPlaceMinBytes() {
        return longOf(Setting.CROWDED_SEND_IN_PLACE_MIN_BYTES);
    }

    /** @return the smallest message from a heap array a collective packs piece by piece as the socket takes it */
    public long packLateMinBytes() {
        return longOf(Setting.PACK_LATE_MIN_BYTES);
    }

    /** @return the pieces of such a message, in bytes */
    public int packLatePieceBytes() {
        return intOf(Setting.PACK_LATE_PIECE_BYTES);
    }

    /** @return whether large messages to ranks of this host go through shared-memory files */
    public boolean sharedMemory() {
        return on(Setting.SHARED_MEMORY);
    }

    /** @return the smallest message to a rank of this host staged in shared memory */
    public long sharedMemoryMinBytes() {
        return longOf(Setting.SHARED_MEMORY_MIN_BYTES);
    }

    /** @return the smallest staged message for which the rank keeps its event loop awake until it is fetched */
    public long stagedOweMinBytes() {
        return longOf(Setting.STAGED_OWE_MIN_BYTES);
    }

    /** @return the directory shared-memory files are made in */
    public String shmDir() {
        return textOf(Setting.SHM_DIR);
    }

    /** @return the size of each shared-memory arena, in bytes (one per peer a rank sends large messages to) */
    public int shmArenaBytes() {
        return intOf(Setting.SHM_ARENA_BYTES);
    }

    /** @return the bytes packed into shared memory between two publications of the count */
    public int shmChunkBytes() {
        return intOf(Setting.SHM_CHUNK_BYTES);
    }

    /** @return the settings that differ from the defaults, as {@code name=value} */
    @Override
    public String toString() {
        final StringBuilder b = new StringBuilder("CommSettings[");
        String sep = "";
        for (final Setting s : Setting.values()) {
            if (!values[s.ordinal()].equals(DEFAULTS.values[s.ordinal()])) {
                b.append(sep).append(s.key).append('=').append(values[s.ordinal()]);
                sep = ", ";
            }
        }
        return b.append(']').toString();
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof CommSettings c && java.util.Arrays.equals(values, c.values);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(values);
    }
}
