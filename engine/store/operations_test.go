package store

import (
	"testing"

	"hearth/engine/store/storepb"
)

func usageOf(t *testing.T, db *DB) (Usage, bool) {
	t.Helper()
	var u Usage
	var counted bool
	if err := db.View(func(r *Reader) error {
		var err error
		u, counted, err = r.Usage()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return u, counted
}

// TestUsageFollowsTheRows: the bucket's totals move with every row of an object put or
// deleted (a put of an existing upload, marking it used, moves nothing), and a count from the
// rows agrees with them.
func TestUsageFollowsTheRows(t *testing.T) {
	db := openTestDB(t)
	up := &storepb.UploadRecord{Id: "u1", Size: 100}
	commit(t, db, func(b *Batch) error {
		if err := b.PutUpload(up); err != nil {
			return err
		}
		if err := b.PutUpload(&storepb.UploadRecord{Id: "u2", Size: 5}); err != nil {
			return err
		}
		if err := b.PutEmoji(&storepb.EmojiRecord{Id: "e1", Name: "party", Size: 30}); err != nil {
			return err
		}
		return b.PutPreviewImage(&storepb.PreviewImageRecord{Id: "p1", Size: 7})
	})
	commit(t, db, func(b *Batch) error {
		used := &storepb.UploadRecord{Id: "u1", Size: 100, Use: storepb.UploadUse_UPLOAD_USE_MESSAGE}
		return b.PutUpload(used)
	})
	want := Usage{Files: 2, FileBytes: 105, Emoji: 1, EmojiBytes: 30, Previews: 1, PreviewBytes: 7}
	if u, counted := usageOf(t, db); u != want || counted {
		t.Fatalf("usage %+v (counted %v), want %+v not counted", u, counted, want)
	}
	commit(t, db, func(b *Batch) error {
		if err := b.DeleteUpload(up); err != nil {
			return err
		}
		if err := b.DeleteEmoji(&storepb.EmojiRecord{Id: "e1", Name: "party", Size: 30}); err != nil {
			return err
		}
		if err := b.DeletePreviewImage("p1"); err != nil {
			return err
		}
		return b.DeletePreviewImage("no-such-image")
	})
	want = Usage{Files: 1, FileBytes: 5}
	if u, _ := usageOf(t, db); u != want {
		t.Fatalf("after the deletes: %+v, want %+v", u, want)
	}
	var counted Usage
	commit(t, db, func(b *Batch) error {
		var err error
		counted, err = b.CountUsage()
		return err
	})
	if u, ok := usageOf(t, db); counted != want || u != want || !ok {
		t.Fatalf("CountUsage %+v, then Usage %+v (counted %v); want %+v", counted, u, ok, want)
	}
}

func TestMessagesByDayAndActiveDays(t *testing.T) {
	db := openTestDB(t)
	commit(t, db, func(b *Batch) error {
		for _, d := range []int32{20000, 20000, 20002, 20010} {
			if err := b.AddMessagesOnDay(d, 1); err != nil {
				return err
			}
		}
		if err := b.PutActiveDay("m1", 20000); err != nil {
			return err
		}
		if err := b.PutActiveDay("m1", 20002); err != nil {
			return err
		}
		return b.PutActiveDay("m2", 19990)
	})
	days := map[int32]int64{}
	active := map[string]int32{}
	if err := db.View(func(r *Reader) error {
		if err := r.MessagesByDay(19999, 20002, func(d int32, n int64) { days[d] = n }); err != nil {
			return err
		}
		return r.ActiveDays(func(m string, d int32) { active[m] = d })
	}); err != nil {
		t.Fatal(err)
	}
	if len(days) != 2 || days[20000] != 2 || days[20002] != 1 {
		t.Errorf("days %v", days)
	}
	if len(active) != 2 || active["m1"] != 20002 || active["m2"] != 19990 {
		t.Errorf("active %v", active)
	}
}
