package org.pario.comm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

import org.pario.ParioException;

/**
 * TLS between the ranks of a job: every connection (the start-up rendezvous and every data connection) runs
 * TLS 1.3 with mutual authentication. Every rank presents the key of one PKCS#12 key store and trusts exactly the
 * certificates in that store, so a process without the job's key cannot connect or be connected to; the job
 * token is still checked inside the encrypted connection. Peers are authenticated by certificate, not by host
 * name (ranks are addressed by IP as often as by name), so one certificate serves the whole job:
 *
 * <pre>
 * keytool -genkeypair -alias pario -keyalg EC -groupname secp256r1 -dname CN=my-job -validity 30 \
 *     -storetype PKCS12 -keystore job.p12 -storepass "$PASSWORD"
 * </pre>
 *
 * From the environment: {@code PARIO_TLS_KEYSTORE} (the store's path) with {@code PARIO_TLS_PASSWORD}, or
 * {@code PARIO_TLS_PASSWORD_FILE} (a file whose first line is the password, so it does not show in the process
 * list).
 *
 * @param keyStore the PKCS#12 key store holding the job's key and certificate
 * @param password its password (the key's password too)
 */
public record Tls(Path keyStore, String password) {
    /** Checks the fields. */
    public Tls {
        Objects.requireNonNull(keyStore, "keyStore");
        Objects.requireNonNull(password, "password");
    }

    /**
     * @param env environment variables
     * @return the TLS settings they give, or null when {@code PARIO_TLS_KEYSTORE} is not set
     * @throws ParioException if the key store is named without a password, or the password file cannot be read
     */
    static Tls fromEnvironment(final Map<String, String> env) {
        final String store = env.get("PARIO_TLS_KEYSTORE");
        if (store == null || store.isBlank()) {
            return null;
        }
        String password = env.get("PARIO_TLS_PASSWORD");
        final String file = env.get("PARIO_TLS_PASSWORD_FILE");
        if (password == null && file != null) {
            try {
                password = Files.readAllLines(Path.of(file), StandardCharsets.UTF_8).stream().findFirst().orElse("");
            } catch (IOException e) {
                throw ParioException.argument("PARIO_TLS_PASSWORD_FILE: cannot read " + file + ": " + e.getMessage());
            }
        }
        if (password == null) {
            throw ParioException.argument("PARIO_TLS_KEYSTORE is set but neither PARIO_TLS_PASSWORD nor "
                + "PARIO_TLS_PASSWORD_FILE is");
        }
        return new Tls(Path.of(store), password);
    }

    @Override
    public String toString() {
        return "Tls[keyStore=" + keyStore + "]";
    }
}
