package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	svcv1 "hearth/proto/svc/v1"
)

// TestImportBatchOfLongMessages: a batch of the most messages a call takes, each of a few
// hundred characters (rows under the database's value threshold, a search op of many terms:
// twice what one transaction holds), goes in whole, in as many changes as it needs, each with
// its channel_updated; the history reads back in order and a run again adds nothing.
func TestImportBatchOfLongMessages(t *testing.T) {
	c := openTestCommunity(t)
	ctx := context.Background()
	owner := c.join("owner")
	ids, err := c.e.ImportPeople(ctx, []ImportPerson{{Key: "long/user/1", Username: "maria"}})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := c.e.ImportChannel(ctx, ImportChannel{Key: "long/channel", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT, Name: "long"})
	if err != nil {
		t.Fatal(err)
	}
	msgs := make([]ImportMessage, ImportBatchMax)
	for i := range msgs {
		var b strings.Builder
		for w := 0; b.Len() < 500; w++ {
			fmt.Fprintf(&b, "w%dx%d ", i, w)
		}
		msgs[i] = ImportMessage{Key: fmt.Sprintf("long/message/%d", i), AuthorID: ids["long/user/1"], Text: strings.TrimSpace(b.String()), CreatedAtMs: 1_600_000_000_000 + int64(i)*1000}
	}
	seq := c.e.snap.Load().Seq()
	res, err := c.e.ImportMessages(ctx, "long/channel", msgs)
	if err != nil {
		t.Fatal(err)
	}
	if res != (ImportBatchResult{Added: len(msgs)}) {
		t.Fatalf("%+v", res)
	}
	// The seqs the batch took: one a message, one for each change's channel_updated.
	changes := c.e.snap.Load().Seq() - seq - int64(len(msgs))
	if changes < 2 || changes > 4 {
		t.Fatalf("the batch went in %d changes; want 2 to 4", changes)
	}
	if err := c.e.FinishImport(ctx, "long/channel"); err != nil {
		t.Fatal(err)
	}
	var got []*svcv1.Message
	before := ""
	for {
		page, err := c.e.ListMessages(ctx, owner, &svcv1.ListMessagesRequest{ChannelId: ch.ID, BeforeId: before, Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		got = append(page.GetMessages(), got...)
		if !page.GetHasMore() {
			break
		}
		before = page.GetMessages()[0].GetId()
	}
	if len(got) != len(msgs) {
		t.Fatalf("%d messages read back, want %d", len(got), len(msgs))
	}
	for i, m := range got {
		if m.GetText() != msgs[i].Text || m.GetCreatedAtMs() != msgs[i].CreatedAtMs {
			t.Fatalf("message %d: %q at %d", i, m.GetText(), m.GetCreatedAtMs())
		}
	}
	if _, err := c.e.ImportChannel(ctx, ImportChannel{Key: "long/channel", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT, Name: "long"}); err != nil {
		t.Fatal(err)
	}
	again, err := c.e.ImportMessages(ctx, "long/channel", msgs)
	if err != nil || again != (ImportBatchResult{Present: len(msgs)}) {
		t.Fatalf("run again: %+v, %v", again, err)
	}
}
