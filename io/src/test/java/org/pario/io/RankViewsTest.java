package org.pario.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.pario.datatypes.DataRepresentation;
import org.pario.datatypes.Datatype;
import org.pario.datatypes.Distribution;
import org.pario.datatypes.Order;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class RankViewsTest {
    private static FileView view(final int rank) {
        return new FileView(64L * rank, Datatype.INT, Datatype.darray(3, rank, new long[] {7, 5},
            new Distribution[] {Distribution.CYCLIC, Distribution.BLOCK}, new long[] {2, Datatype.DISTRIBUTE_DFLT_DARG},
            new long[] {3, 1}, Order.FORTRAN, Datatype.INT), DataRepresentation.NATIVE);
    }

    /** The views read from the texts the ranks send equal the views the ranks set; a rank's own is kept as is. */
    @Test
    void viewsReadFromTheirTextsAreTheViewsTheRanksSet() {
        final List<String> texts = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            texts.add(TwoPhase.viewText(view(r), r != 1));
        }
        final FileView mine = view(1);
        final RankViews views = RankViews.of(texts, 1, mine);
        assertEquals(3, views.size());
        assertSame(mine, views.get(1));
        for (int r = 0; r < 3; r++) {
            assertEquals(view(r), views.get(r), "rank " + r);
            assertSame(views.get(r), views.get(r), "parsed once, then kept");
        }
        final RankViews defaults = RankViews.defaults(2);
        assertSame(FileView.DEFAULT, defaults.get(0));
        assertSame(FileView.DEFAULT, defaults.get(1));
    }
}
