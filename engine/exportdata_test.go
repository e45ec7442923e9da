package engine

import (
	"context"
	"testing"
	"time"

	"hearth/engine/sandbox"
	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// ExportMyData asked again while the member's export is being made answers that export's link
// (a page reloaded finds it again) and starts no other; once it is ready, a new one is made.
func TestExportMyDataAskedAgainAnswersTheExportBeingMade(t *testing.T) {
	ctx := context.Background()
	c := openFiledCommunity(t, sandbox.Info{ContentType: "text/plain; charset=utf-8"})
	m, _, err := c.e.Join(ctx, JoinInput{Login: Login{Issuer: "http://127.0.0.1", Subject: "s"}, ClientAddr: "a", Req: &svcv1.JoinRequest{}})
	if err != nil {
		t.Fatal(err)
	}
	me := Caller{ID: m.GetId()}
	// Every place to make an export taken: the export waits, being made.
	j := &c.e.exports
	j.mu.Lock()
	j.running, j.slots = map[string]bool{}, make(chan struct{}, exportsAtOnce)
	j.mu.Unlock()
	for range exportsAtOnce {
		j.slots <- struct{}{}
	}
	first, err := c.e.ExportMyData(ctx, me, &svcv1.ExportMyDataRequest{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.e.ExportMyData(ctx, me, &svcv1.ExportMyDataRequest{})
	if err != nil || again.GetUrl() != first.GetUrl() {
		t.Fatalf("asked again while it is made: %q %v, want %q", again.GetUrl(), err, first.GetUrl())
	}
	if n := c.exportCount(); n != 1 {
		t.Fatalf("%d exports, want 1", n)
	}
	for range exportsAtOnce {
		<-j.slots
	}
	for deadline := time.Now().Add(10 * time.Second); c.exportState() != storepb.ExportState_EXPORT_STATE_READY; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the export: %v", c.exportState())
		}
	}
	next, err := c.e.ExportMyData(ctx, me, &svcv1.ExportMyDataRequest{})
	if err != nil || next.GetUrl() == first.GetUrl() {
		t.Fatalf("asked once it is ready: %q %v, want a new export", next.GetUrl(), err)
	}
}

// exports are the export rows stored.
func (c *filedCommunity) exports() []*storepb.ExportRecord {
	var out []*storepb.ExportRecord
	if err := c.db.View(func(r *store.Reader) error {
		return r.Exports(func(x *storepb.ExportRecord) error {
			out = append(out, x)
			return nil
		})
	}); err != nil {
		c.t.Fatal(err)
	}
	return out
}

func (c *filedCommunity) exportCount() int { return len(c.exports()) }

// exportState is the state of the first export stored.
func (c *filedCommunity) exportState() storepb.ExportState {
	if x := c.exports(); len(x) > 0 {
		return x[0].GetState()
	}
	return storepb.ExportState_EXPORT_STATE_UNSPECIFIED
}
