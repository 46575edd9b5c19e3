package org.pario.io.storage;

import java.nio.file.Path;

import org.junit.jupiter.api.io.TempDir;

/** The storage contract on the local file system, through plain paths. */
class LocalStorageContractTest extends StorageContract {
    @TempDir
    Path dir;

    @Override
    protected String location(final String name) {
        return dir.resolve(name).toString();
    }
}
