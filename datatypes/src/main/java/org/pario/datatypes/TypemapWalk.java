package org.pario.datatypes;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A type's typemap and signature walked lazily from a cursor over one element ({@link Datatype#typemap()},
 * {@link Datatype#signature()}): the cursor hands out runs of one basic type, so the work grows with the runs, and
 * nothing is listed up front.
 */
final class TypemapWalk {
    private TypemapWalk() {
    }

    /** The (basic type, displacement) entries, one per basic element of each run. */
    static final class Entries implements Iterator<TypemapEntry> {
        private final Cursor cursor;
        private long runOffset;
        private long left;
        private BasicType basic;

        Entries(final Cursor cursor) {
            this.cursor = cursor;
        }

        @Override
        public boolean hasNext() {
            if (left > 0) {
                return true;
            }
            if (!cursor.next()) {
                return false;
            }
            basic = cursor.basic();
            runOffset = cursor.offset();
            left = cursor.length() / basic.size;
            return left > 0;
        }

        @Override
        public TypemapEntry next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            final TypemapEntry e = new TypemapEntry(basic.name, runOffset);
            runOffset += basic.size;
            left--;
            return e;
        }
    }

    /** The signature, run-length encoded: consecutive runs of the same basic type merged into one entry. */
    static final class Signature implements Iterator<SignatureEntry> {
        private final Cursor cursor;
        private BasicType pendingType;
        private long pendingCount;
        private SignatureEntry ready;

        Signature(final Cursor cursor) {
            this.cursor = cursor;
        }

        @Override
        public boolean hasNext() {
            while (ready == null) {
                if (!cursor.next()) {
                    if (pendingType == null) {
                        return false;
                    }
                    ready = new SignatureEntry(pendingType.name, pendingCount);
                    pendingType = null;
                    break;
                }
                final BasicType b = cursor.basic();
                final long n = cursor.length() / b.size;
                if (pendingType != null && !pendingType.name.equals(b.name)) {
                    ready = new SignatureEntry(pendingType.name, pendingCount);
                    pendingCount = 0;
                }
                pendingType = b;
                pendingCount += n;
            }
            return true;
        }

        @Override
        public SignatureEntry next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            final SignatureEntry e = ready;
            ready = null;
            return e;
        }
    }
}
