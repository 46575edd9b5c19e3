package org.pario.comm;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;

import org.pario.ErrorCategory;
import org.pario.ParioException;

/**
 * How a rank finds its job: its rank, the number of ranks, where rank 0 coordinates the start, the job's
 * token and which interface to use. {@link #fromEnvironment()} reads it from Pario's launcher or from the
 * launcher that started the JVM, first match wins:
 *
 * <table>
 *   <caption>rank and size</caption>
 *   <tr><td>Pario ({@code pario launch})</td><td>{@code PARIO_RANK}, {@code PARIO_SIZE}</td></tr>
 *   <tr><td>Open MPI's mpirun</td><td>{@code OMPI_COMM_WORLD_RANK}, {@code OMPI_COMM_WORLD_SIZE}</td></tr>
 *   <tr><td>MPICH's mpiexec (Hydra)</td><td>{@code PMI_RANK}, {@code PMI_SIZE}</td></tr>
 *   <tr><td>Slurm's srun</td><td>{@code SLURM_PROCID}, {@code SLURM_NTASKS}</td></tr>
 *   <tr><td>torchrun style</td><td>{@code RANK}, {@code WORLD_SIZE}</td></tr>
 *   <tr><td>Kubernetes indexed job</td><td>{@code JOB_COMPLETION_INDEX}, with {@code PARIO_SIZE}</td></tr>
 * </table>
 *
 * <p>The coordinator is {@code PARIO_COORDINATOR} ({@code host:port}) or {@code MASTER_ADDR:MASTER_PORT}. Without
 * either, rank 0 listens on a free port and publishes it in a file of a directory all ranks share
 * ({@code PARIO_RENDEZVOUS_DIR}, default the system temporary directory), named after the job: {@code PARIO_JOB},
 * else {@code SLURM_JOB_ID.SLURM_STEP_ID}, {@code PMIX_NAMESPACE}, else the id of the launching parent process
 * (ranks started by one mpiexec on one host share it). The token is {@code PARIO_TOKEN}, else derived from the
 * job name, so ranks of another job are refused. {@code PARIO_BIND} chooses the interface to bind (default all,
 * advertised as {@code PARIO_HOST} or this host's name), {@code PARIO_STARTUP_TIMEOUT} the start-up bound in
 * seconds (default 60), {@code PARIO_FAILURE_TIMEOUT} how many seconds a silent peer may stay silent before
 * it counts as failed (default 10; idle connections carry heartbeats at a fifth of it; a host with more than two
 * ranks a core allows as many timeouts in a row as it has ranks a core over two). {@code PARIO_TLS_KEYSTORE}
 * with {@code PARIO_TLS_PASSWORD} or {@code PARIO_TLS_PASSWORD_FILE} turns on TLS between the ranks ({@link Tls}).
 *
 * @param rank           this rank
 * @param size           number of ranks
 * @param coordinator    {@code host:port} of rank 0's rendezvous, or null to publish it in {@code rendezvousDir}
 * @param rendezvousDir  shared directory for publishing the coordinator address
 * @param job            the job's name (used for the rendezvous file and the default token)
 * @param token          the secret every connection presents
 * @param bindHost       the interface to bind
 * @param advertisedHost how other ranks reach this one
 * @param startupTimeout how long start-up may take
 * @param failureTimeout how long a silent peer (no message, no heartbeat) may stay silent before it counts as
 *                       failed; bounds how long any operation can wait on a hung or unreachable rank
 * @param tls            TLS between the ranks, or null for plain TCP
 */
public record Bootstrap(int rank, int size, String coordinator, Path rendezvousDir, String job, String token,
                        String bindHost, String advertisedHost, Duration startupTimeout, Duration failureTimeout,
                        Tls tls) {
    /** Validates the fields. */
    public Bootstrap {
        if (size < 1 || rank < 0 || rank >= size) {
            throw ParioException.argument("bootstrap: rank " + rank + " and size " + size
                + " are not a valid rank of a job");
        }
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(startupTimeout, "startupTimeout");
        Objects.requireNonNull(failureTimeout, "failureTimeout");
    }

    /** Plain TCP. */
    public Bootstrap(final int rank, final int size, final String coordinator, final Path rendezvousDir,
                     final String job, final String token, final String bindHost, final String advertisedHost,
                     final Duration startupTimeout, final Duration failureTimeout) {
        this(rank, size, coordinator, rendezvousDir, job, token, bindHost, advertisedHost, startupTimeout,
            failureTimeout, null);
    }

    /** The defaults for what the environment does not say: 60 s to start, 10 s of silence before a failure. */
    public Bootstrap(final int rank, final int size, final String coordinator, final Path rendezvousDir,
                     final String job, final String token, final String bindHost, final String advertisedHost,
                     final Duration startupTimeout) {
        this(rank, size, coordinator, rendezvousDir, job, token, bindHost, advertisedHost, startupTimeout,
            Duration.ofSeconds(10));
    }

    /**
     * @param env environment variables
     * @return true when they name a rank and size, as a launcher sets them
     */
    public static boolean launched(final Map<String, String> env) {
        for (final String[] s : SOURCES) {
            if (env.get(s[0]) != null && env.get(s[1]) != null) {
                return true;
            }
        }
        return false;
    }

    /** The variables that name a rank and the job's size, first match wins. */
    private static final String[][] SOURCES = {{"PARIO_RANK", "PARIO_SIZE"},
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, {"PMI_RANK", "PMI_SIZE"}, {"SLURM_PROCID", "SLURM_NTASKS"},
        {"RANK", "WORLD_SIZE"}, {"JOB_COMPLETION_INDEX", "PARIO_SIZE"}};

    /** @return the bootstrap described by this process's environment */
    public static Bootstrap fromEnvironment() {
        return fromEnvironment(System.getenv());
    }

    /**
     * @param env environment variables
     * @return the bootstrap they describe
     * @throws ParioException if they name no rank and size
     */
    public static Bootstrap fromEnvironment(final Map<String, String> env) {
        int rank = -1;
        int size = -1;
        for (final String[] s : SOURCES) {
            if (env.get(s[0]) != null && env.get(s[1]) != null) {
                rank = integer(env, s[0]);
                size = integer(env, s[1]);
                break;
            }
        }
        if (rank < 0) {
            throw ParioException.argument("no rank found in the environment: start the job with 'pario launch', "
                + "mpiexec, mpirun or srun, or set PARIO_RANK and PARIO_SIZE");
        }
        String coordinator = env.get("PARIO_COORDINATOR");
        if (coordinator == null && env.get("MASTER_ADDR") != null && env.get("MASTER_PORT") != null) {
            coordinator = env.get("MASTER_ADDR") + ":" + env.get("MASTER_PORT");
        }
        String job = env.get("PARIO_JOB");
        if (job == null && env.get("SLURM_JOB_ID") != null) {
            job = "slurm-" + env.get("SLURM_JOB_ID") + "." + env.getOrDefault("SLURM_STEP_ID", "0");
        }
        if (job == null && env.get("PMIX_NAMESPACE") != null) {
            job = "pmix-" + env.get("PMIX_NAMESPACE");
        }
        if (job == null) {
            job = "ppid-" + ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(0L);
        }
        final String token = env.getOrDefault("PARIO_TOKEN", derivedToken(job));
        final Path dir = Path.of(env.getOrDefault("PARIO_RENDEZVOUS_DIR", System.getProperty("java.io.tmpdir")));
        final String bind = env.getOrDefault("PARIO_BIND", "0.0.0.0");
        String host = env.get("PARIO_HOST");
        if (host == null) {
            host = bind.equals("0.0.0.0") ? localHostName() : bind;
        }
        final long timeout = env.get("PARIO_STARTUP_TIMEOUT") == null ? 60 : integer(env, "PARIO_STARTUP_TIMEOUT");
        final Duration failure = env.get("PARIO_FAILURE_TIMEOUT") == null ? Duration.ofSeconds(10)
            : Duration.ofMillis(Math.round(1000 * decimal(env, "PARIO_FAILURE_TIMEOUT")));
        return new Bootstrap(rank, size, coordinator, dir, job, token, bind, host, Duration.ofSeconds(timeout),
            failure, Tls.fromEnvironment(env));
    }

    private static int integer(final Map<String, String> env, final String name) {
        try {
            return Integer.parseInt(env.get(name).trim());
        } catch (NumberFormatException e) {
            throw ParioException.argument("environment variable " + name + " must be an integer, got '"
                + env.get(name) + "'");
        }
    }

    private static double decimal(final Map<String, String> env, final String name) {
        try {
            final double v = Double.parseDouble(env.get(name).trim());
            if (v <= 0) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw ParioException.argument("environment variable " + name + " must be a positive number of seconds, got '"
                + env.get(name) + "'");
        }
    }

    private static String derivedToken(final String job) {
        try {
            final byte[] h = MessageDigest.getInstance("SHA-256")
                .digest(("pario-job:" + job).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String localHostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "127.0.0.1";
        }
    }

    /** @return where rank 0 binds its rendezvous: the coordinator's port, or a free one when it is published */
    InetSocketAddress coordinatorBind() {
        if (coordinator == null) {
            return new InetSocketAddress(bindHost, 0);
        }
        return new InetSocketAddress(bindHost, parse(coordinator).getPort());
    }

    /** @return the file the coordinator address is published in */
    Path rendezvousFile() {
        return rendezvousDir.resolve("pario-" + job.replaceAll("[^A-Za-z0-9._-]", "_") + ".coordinator");
    }

    /** Rank 0: publishes the coordinator's address for the others (atomically, by rename). */
    void publish(final InetSocketAddress address) {
        if (coordinator != null) {
            return;
        }
        try {
            Files.createDirectories(rendezvousDir);
            final Path tmp = Files.createTempFile(rendezvousDir, "pario-", ".tmp");
            Files.writeString(tmp, address.getHostString() + ":" + address.getPort());
            Files.move(tmp, rendezvousFile(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new ParioException(ErrorCategory.IO, "cannot publish the coordinator address in " + rendezvousDir, e);
        }
    }

    /** Ranks other than 0: the coordinator's address, waiting for it to be published. */
    InetSocketAddress lookup() {
        if (coordinator != null) {
            return parse(coordinator);
        }
        final long deadline = System.nanoTime() + startupTimeout.toNanos();
        final Path file = rendezvousFile();
        while (System.nanoTime() < deadline) {
            try {
                if (Files.exists(file)) {
                    return parse(Files.readString(file).trim());
                }
                Thread.sleep(20);
            } catch (IOException e) {
                // the file is being replaced; read it again
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new ParioException(ErrorCategory.TIMEOUT, "start-up: rank " + rank + " found no coordinator address in "
            + file + " within " + startupTimeout.toSeconds() + " s (did rank 0 start?)");
    }

    /** Removes the published address once the job has assembled. */
    void unpublish() {
        if (coordinator == null) {
            try {
                Files.deleteIfExists(rendezvousFile());
            } catch (IOException e) {
                // harmless: a later job with the same name replaces it
            }
        }
    }

    private static InetSocketAddress parse(final String hostPort) {
        final int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            throw ParioException.argument("coordinator must be host:port, got '" + hostPort + "'");
        }
        try {
            return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw ParioException.argument("coordinator must be host:port, got '" + hostPort + "'");
        }
    }
}
