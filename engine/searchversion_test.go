package engine

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"hearth/engine/search"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// TestSearchRebuildsListsOfAnotherAnalyzer: lists made by another version of the analyzer are
// dropped at the next start and built again from the messages, so no term of the old analysis
// is left and a query analyzed by this version finds what it asks for; lists of this version
// are kept as they are.
func TestSearchRebuildsListsOfAnotherAnalyzer(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := store.Open(filepath.Join(t.TempDir(), "db"), store.ProfileSmall, log)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	open := func() *Engine {
		t.Helper()
		e, err := Open(db, Options{BaseURL: "http://127.0.0.1", Log: log})
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for !e.index.Ready() && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		return e
	}
	e := open()
	owner, _, err := e.Join(ctx, JoinInput{Login: Login{Issuer: "http://127.0.0.1", Subject: "owner"}, ClientAddr: "a", Req: &svcv1.JoinRequest{}})
	if err != nil {
		t.Fatal(err)
	}
	c := Caller{ID: owner.GetId()}
	ch, err := e.CreateChannel(ctx, c, &svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})
	if err != nil {
		t.Fatal(err)
	}
	sent, err := e.SendMessage(ctx, c, &svcv1.SendMessageRequest{ChannelId: ch.GetChannel().GetId(), Text: "ｶﾞｲﾄﾞ"})
	if err != nil {
		t.Fatal(err)
	}
	m := sent.GetMessage()
	e.Close()

	// What the first analyzer made of the text (カ, イト, ト), put into the lists by hand.
	stale := func(version byte) {
		t.Helper()
		lists, err := search.OpenBadger(db)
		if err != nil {
			t.Fatal(err)
		}
		applied, err := lists.Applied()
		if err != nil {
			t.Fatal(err)
		}
		op := &storepb.SearchOp{Doc: m.GetCreatedSeq(), ChannelId: m.GetChannelId(), Terms: []string{"イト", "カ", "ト"}, Masks: []uint32{2, 1, 4}}
		if err := lists.Apply([]*storepb.SearchOp{op}, applied); err != nil {
			t.Fatal(err)
		}
		b := db.NewBatch()
		defer b.Discard()
		if err := b.SearchSet([]byte("\xb0analyzer"), []byte{version}); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	terms := func(e *Engine) map[string]int {
		t.Helper()
		got, err := e.SearchIndexTerms()
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	// Of this version: kept (the stale terms stay, as the control).
	stale(search.AnalyzerVersion)
	e = open()
	if got := terms(e); got["イト"] != 1 || got["ガイ"] != 1 {
		t.Fatalf("lists of this version: イト in %d, ガイ in %d messages; want both kept (1, 1)", got["イト"], got["ガイ"])
	}
	e.Close()

	// Of the first version: built again from the messages.
	stale(1)
	e = open()
	defer e.Close()
	if !e.index.Ready() {
		t.Fatal("the index was not built again in 30 s")
	}
	got := terms(e)
	for _, term := range []string{"イト", "カ"} {
		if got[term] != 0 {
			t.Errorf("after the rebuild the lists still hold %q in %d messages", term, got[term])
		}
	}
	if got["ガイ"] != 1 || got["イド"] != 1 {
		t.Errorf("after the rebuild: ガイ in %d, イド in %d messages; want 1, 1", got["ガイ"], got["イド"])
	}
	// The filter terms of version 3 (search filters) come with the rebuild.
	if n := got[search.AuthorTerm(owner.GetId())]; n != 1 {
		t.Errorf("after the rebuild the author's term is in %d messages, want 1", n)
	}
	res, err := e.Search(ctx, c, &svcv1.SearchRequest{Query: "ガイド"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.GetMessages()) != 1 || res.GetMessages()[0].GetId() != m.GetId() {
		t.Fatalf("ガイド after the rebuild: %v, want %s", res.GetMessages(), m.GetId())
	}
}
