package engine

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"hearth/engine/search"
	"hearth/engine/store"
	svcv1 "hearth/proto/svc/v1"
)

// TestSearchBuildsTheIndexOfAnOldDatabase: a database whose messages were stored before it had
// an index (here: the index dropped) gets one at the next start, built from the messages in the
// background; the messages sent meanwhile are found too, and edits made before the build count.
func TestSearchBuildsTheIndexOfAnOldDatabase(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := filepath.Join(t.TempDir(), "db")
	db, err := store.Open(dir, store.ProfileSmall, log)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(db, Options{BaseURL: "http://127.0.0.1", Log: log})
	if err != nil {
		t.Fatal(err)
	}
	owner, _, err := e.Join(ctx, JoinInput{Login: Login{Issuer: "http://127.0.0.1", Subject: "owner"}, ClientAddr: "a", Req: &svcv1.JoinRequest{}})
	if err != nil {
		t.Fatal(err)
	}
	c := Caller{ID: owner.GetId()}
	ch, err := e.CreateChannel(ctx, c, &svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})
	if err != nil {
		t.Fatal(err)
	}
	send := func(e *Engine, text string) string {
		t.Helper()
		res, err := e.SendMessage(ctx, c, &svcv1.SendMessageRequest{ChannelId: ch.GetChannel().GetId(), Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return res.GetMessage().GetId()
	}
	var old []string
	for _, text := range []string{"old lighthouse one", "old lighthouse two", "old lighthouse three"} {
		old = append(old, send(e, text))
	}
	if _, err := e.EditMessage(ctx, c, &svcv1.EditMessageRequest{MessageId: old[1], Text: "old harbour two"}); err != nil {
		t.Fatal(err)
	}
	e.Close()
	if err := search.Drop(db); err != nil {
		t.Fatal(err)
	}
	e, err = Open(db, Options{BaseURL: "http://127.0.0.1", Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		e.Close()
		db.Close()
	}()
	fresh := send(e, "new lighthouse")
	deadline := time.Now().Add(30 * time.Second)
	for !e.index.Ready() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	res, err := e.Search(ctx, c, &svcv1.SearchRequest{Query: "lighthouse"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.GetMessages() {
		got = append(got, m.GetId())
	}
	if want := []string{fresh, old[2], old[0]}; !slices.Equal(got, want) {
		t.Fatalf("after the build: %v, want %v", got, want)
	}
}

// TestSearchFindsEachSendAtOnceWhileTheIndexApplies: members send at once while the index
// folds its ops into the lists; right after each send is answered, a search for its own word
// finds it, whether the op is still in memory or already in the lists.
func TestSearchFindsEachSendAtOnceWhileTheIndexApplies(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := store.Open(filepath.Join(t.TempDir(), "db"), store.ProfileSmall, log)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(db, Options{BaseURL: "http://127.0.0.1", Log: log})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		e.Close()
		db.Close()
	}()
	join := func(sub string) Caller {
		m, _, err := e.Join(ctx, JoinInput{Login: Login{Issuer: "http://127.0.0.1", Subject: sub}, ClientAddr: sub, Req: &svcv1.JoinRequest{}})
		if err != nil {
			t.Fatal(err)
		}
		return Caller{ID: m.GetId()}
	}
	owner := join("owner")
	ch, err := e.CreateChannel(ctx, owner, &svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT})
	if err != nil {
		t.Fatal(err)
	}
	const senders, each = 8, 10
	errs := make(chan error, senders)
	for s := range senders {
		c := join(fmt.Sprintf("sender%d", s))
		go func() {
			for i := range each {
				word := fmt.Sprintf("word%dx%d", s, i)
				res, err := e.SendMessage(ctx, c, &svcv1.SendMessageRequest{ChannelId: ch.GetChannel().GetId(), Text: "common " + word})
				if err != nil {
					errs <- err
					return
				}
				found, err := e.Search(ctx, c, &svcv1.SearchRequest{Query: word + " "})
				if err != nil {
					errs <- err
					return
				}
				if len(found.GetMessages()) != 1 || found.GetMessages()[0].GetId() != res.GetMessage().GetId() {
					errs <- fmt.Errorf("%s right after its send: %v", word, found.GetMessages())
					return
				}
			}
			errs <- nil
		}()
	}
	for range senders {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	res, err := e.Search(ctx, owner, &svcv1.SearchRequest{Query: "common", Limit: 100})
	if err != nil || len(res.GetMessages()) != senders*each {
		t.Fatalf("common: %d messages, %v; want %d", len(res.GetMessages()), err, senders*each)
	}
}
