package org.pario.comm.internal.tcp;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import org.pario.ParioException;

/**
 * The TLS contexts of one rank, built once from the job's key store: Netty's for the data connections (server and
 * client side) and the JDK's for the blocking rendezvous sockets. TLS 1.3 only, mutual authentication, the key
 * store's certificates as the only trust anchors.
 *
 * @param server Netty's context for connections peers open to this rank
 * @param client Netty's context for connections this rank opens
 * @param jdk    the JDK's context for the rendezvous
 */
public record TlsContexts(SslContext server, SslContext client, SSLContext jdk) {
    private static final String PROTOCOL = "TLSv1.3";

    /**
     * The store's certificates as trust anchors: its trusted-certificate entries and the certificates of its key
     * entries (the JDK's trust managers only count the former, but a job's store usually holds one key entry).
     */
    private static KeyStore trustAnchors(final KeyStore ks) throws GeneralSecurityException, IOException {
        final KeyStore anchors = KeyStore.getInstance(KeyStore.getDefaultType());
        anchors.load(null, null);
        for (final String alias : java.util.Collections.list(ks.aliases())) {
            if (ks.isCertificateEntry(alias)) {
                anchors.setCertificateEntry(alias, ks.getCertificate(alias));
            } else if (ks.isKeyEntry(alias) && ks.getCertificateChain(alias) != null) {
                final java.security.cert.Certificate[] chain = ks.getCertificateChain(alias);
                for (int i = 0; i < chain.length; i++) {
                    anchors.setCertificateEntry(alias + "#" + i, chain[i]);
                }
            }
        }
        if (anchors.size() == 0) {
            throw new GeneralSecurityException("it holds no certificate");
        }
        return anchors;
    }

    /**
     * @param keyStore PKCS#12 key store with the job's key and certificate
     * @param password its password
     * @return the contexts
     * @throws ParioException if the store cannot be read or holds no usable key
     */
    public static TlsContexts load(final Path keyStore, final char[] password) {
        try (InputStream in = Files.newInputStream(keyStore)) {
            final KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, password);
            final KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(ks, password);
            final TrustManagerFactory trust = TrustManagerFactory.getInstance(
                TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trustAnchors(ks));
            final SslContext server = SslContextBuilder.forServer(keys).trustManager(trust)
                .clientAuth(ClientAuth.REQUIRE).sslProvider(SslProvider.JDK).protocols(PROTOCOL).build();
            // peers are authenticated by the job's certificate, not by host name: ranks are often addressed by IP
            final SslContext client = SslContextBuilder.forClient().keyManager(keys).trustManager(trust)
                .endpointIdentificationAlgorithm(null).sslProvider(SslProvider.JDK).protocols(PROTOCOL).build();
            final SSLContext jdk = SSLContext.getInstance(PROTOCOL);
            jdk.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
            return new TlsContexts(server, client, jdk);
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            throw ParioException.argument("TLS: cannot use key store " + keyStore + ": " + e.getMessage());
        }
    }
}
