package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/engine"
	"hearth/engine/diskspace"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web"
	"hearth/web/webtest"
)

type newerRelease string

func (n newerRelease) Newer(current, track string) string { return string(n) }

func status(t *testing.T, c *webtest.Client, days int32) *svcv1.GetServerStatusResponse {
	t.Helper()
	res, err := c.Server.GetServerStatus(ctx, req(&svcv1.GetServerStatusRequest{Days: days}))
	if err != nil {
		t.Fatalf("GetServerStatus: %v", err)
	}
	return res.Msg
}

func perDay(st *svcv1.GetServerStatusResponse) map[string]int64 {
	out := map[string]int64{}
	for _, d := range st.GetMessagesPerDay() {
		out[d.GetDay()] = d.GetMessages()
	}
	return out
}

// TestServerStatusIsForAdmins: admins and the owner may read the status; moderators and
// members may not; days outside 1 to 90 are refused.
func TestServerStatusIsForAdmins(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner, admin, mod, member := s.Join("owner"), s.Join("admin"), s.Join("mod"), s.Join("member")
	for c, role := range map[*webtest.Client]svcv1.MemberRole{admin: svcv1.MemberRole_MEMBER_ROLE_ADMIN, mod: svcv1.MemberRole_MEMBER_ROLE_MODERATOR} {
		if _, err := owner.Server.SetMemberRole(ctx, req(&svcv1.SetMemberRoleRequest{MemberId: c.Member.GetId(), Role: role})); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []*webtest.Client{owner, admin} {
		if st := status(t, c, 0); len(st.GetMessagesPerDay()) != 30 {
			t.Errorf("the default is 30 days, got %d", len(st.GetMessagesPerDay()))
		}
	}
	for name, c := range map[string]*webtest.Client{"a moderator": mod, "a member": member} {
		_, err := c.Server.GetServerStatus(ctx, req(&svcv1.GetServerStatusRequest{}))
		if connect.CodeOf(err) != connect.CodePermissionDenied || !strings.Contains(err.Error(), "the server's status needs the admin rank or higher") {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, days := range []int32{-1, 91} {
		_, err := owner.Server.GetServerStatus(ctx, req(&svcv1.GetServerStatusRequest{Days: days}))
		if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "it must be 1 to 90") {
			t.Errorf("days %d: %v", days, err)
		}
	}
	if st := status(t, owner, 90); len(st.GetMessagesPerDay()) != 90 {
		t.Errorf("90 days: %d entries", len(st.GetMessagesPerDay()))
	}
}

// A member active by a stream alone, closed before any minute's jobs ran, is still active
// after a restart: the engine stores who was active as it closes.
func TestServerStatusActivityIsStoredAtShutdown(t *testing.T) {
	t.Parallel()
	clk := webtest.NewClock() // a manual clock: the minute's jobs never run
	s := webtest.Start(t, webtest.WithClock(clk))
	owner, reader := s.Join("owner"), s.Join("reader")
	reader.Subscribe(t, 0).Close()
	for deadline := time.Now().Add(webtest.Wait); s.Engine.Stats().Streams > 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server did not close the stream")
		}
	}
	s.Restart()
	if got := status(t, owner, 7); got.GetActiveToday() != 1 || got.GetActiveWeek() != 1 {
		t.Errorf("after a restart: active today %d, this week %d; want 1 and 1 (the reader)", got.GetActiveToday(), got.GetActiveWeek())
	}
}

// TestServerStatusCountsMembersActivityAndMessages: people and bots apart; a member is active
// on a day they sent a message or had a stream open; messages are counted by day; all of it
// survives a restart.
func TestServerStatusCountsMembersActivityAndMessages(t *testing.T) {
	t.Parallel()
	clk := webtest.NewClock() // 2026-11-01 12:00 UTC
	s := webtest.Start(t, webtest.WithClock(clk), func(o *engine.Options) {
		o.Version = "1.4.0"
		o.Updates = newerRelease("1.4.2")
	})
	owner, idle, sender, reader := s.Join("owner"), s.Join("idle"), s.Join("sender"), s.Join("reader")
	s.CreateBot(owner, "greeter")
	ch := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	for _, c := range []*webtest.Client{owner, owner, sender} {
		mustSend(t, c, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "hi"})
	}
	st := reader.Subscribe(t, 0)

	got := status(t, owner, 7)
	if got.GetServerVersion() != "1.4.0" || got.GetServerTrack() != "stable" || got.GetUpdateAvailable() != "1.4.2" {
		t.Errorf("version %q track %q update %q", got.GetServerVersion(), got.GetServerTrack(), got.GetUpdateAvailable())
	}
	if got.GetAtMs() != clk.Now().UnixMilli() || got.GetStartedAtMs() > got.GetAtMs() || got.GetStartedAtMs() == 0 {
		t.Errorf("at %d, started %d", got.GetAtMs(), got.GetStartedAtMs())
	}
	if got.GetMembers() != 4 || got.GetBots() != 1 {
		t.Errorf("%d members and %d bots, want 4 and 1", got.GetMembers(), got.GetBots())
	}
	// The owner and the sender sent; the reader has a stream open; idle did neither.
	if got.GetActiveToday() != 3 || got.GetActiveWeek() != 3 {
		t.Errorf("active today %d, this week %d; want 3 and 3", got.GetActiveToday(), got.GetActiveWeek())
	}
	days := got.GetMessagesPerDay()
	if len(days) != 7 || days[6].GetDay() != "2026-11-01" || days[0].GetDay() != "2026-10-26" || days[6].GetMessages() != 3 || days[5].GetMessages() != 0 {
		t.Fatalf("messages per day: %v", days)
	}
	_ = idle

	// Two days on, the stream closed: nobody today, the same three this week.
	st.Close()
	for deadline := time.Now().Add(webtest.Wait); s.Engine.Stats().Streams > 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server did not close the stream")
		}
	}
	clk.Advance(48 * time.Hour)
	mustSend(t, sender, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "again"})
	got = status(t, owner, 7)
	if got.GetActiveToday() != 1 || got.GetActiveWeek() != 3 {
		t.Errorf("two days on: active today %d, this week %d; want 1 and 3", got.GetActiveToday(), got.GetActiveWeek())
	}
	if m := perDay(got); m["2026-11-01"] != 3 || m["2026-11-03"] != 1 || m["2026-11-02"] != 0 {
		t.Errorf("two days on: %v", m)
	}

	// Kept across a restart: the minute's jobs or the engine's close stored the reader's
	// stream day.
	s.Restart()
	got = status(t, owner, 7)
	if got.GetActiveToday() != 1 || got.GetActiveWeek() != 3 {
		t.Errorf("after a restart: active today %d, this week %d; want 1 and 3", got.GetActiveToday(), got.GetActiveWeek())
	}
	if m := perDay(got); m["2026-11-01"] != 3 || m["2026-11-03"] != 1 {
		t.Errorf("after a restart: %v", m)
	}

	// A week past the first day: only the sender, who sent two days later.
	clk.Advance(5 * 24 * time.Hour)
	got = status(t, owner, 7)
	if got.GetActiveToday() != 0 || got.GetActiveWeek() != 1 {
		t.Errorf("a week on: active today %d, this week %d; want 0 and 1", got.GetActiveToday(), got.GetActiveWeek())
	}
}

// TestServerStatusStorageBackupAndDisk: the bucket's bytes by kind follow the files put and
// deleted; the latest backup is told, after a restart too; the disk's space and threshold.
func TestServerStatusStorageBackupAndDisk(t *testing.T) {
	t.Parallel()
	disk := &fakeDisk{sp: diskspace.Space{Free: 300 << 20, Total: 1 << 30}}
	s := webtest.StartConfig(t, func(c *web.Config) { c.Disk = diskspace.Options{Statfs: disk.statfs} })
	owner := s.Join("owner")
	got := status(t, owner, 1)
	if got.GetStorage().GetDatabaseBytes() <= 0 || got.GetStorage().GetFiles() != 0 || got.GetStorage().GetFilesBytes() != 0 {
		t.Errorf("storage at the start: %v", got.GetStorage())
	}
	if got.GetLastBackup() != nil {
		t.Errorf("a backup before any: %v", got.GetLastBackup())
	}
	if d := got.GetDisk(); d.GetFreeBytes() != 300<<20 || d.GetTotalBytes() != 1<<30 || d.GetFullThresholdBytes() != 64<<20 || d.GetFull() {
		t.Errorf("disk %v", d)
	}

	png := pngImage(t, 32, 32)
	att := mustUpload(t, s, owner, "icon.png", png)
	mustUpload(t, s, owner, "notes.txt", []byte("some notes"))
	got = status(t, owner, 1)
	if st := got.GetStorage(); st.GetFiles() != 2 || st.GetFilesBytes() != int64(len(png))+10 {
		t.Errorf("after two uploads: %v, want 2 files of %d bytes", st, len(png)+10)
	}
	if _, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{IconId: &att.Id})); err != nil {
		t.Fatal(err)
	}
	none := ""
	if _, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{IconId: &none})); err != nil {
		t.Fatal(err)
	}
	got = status(t, owner, 1)
	if st := got.GetStorage(); st.GetFiles() != 1 || st.GetFilesBytes() != 10 {
		t.Errorf("after the icon's file was deleted: %v, want 1 file of 10 bytes", st)
	}

	res, err := s.App().Backups.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got = status(t, owner, 1)
	if b := got.GetLastBackup(); !b.GetOk() || b.GetLocation() != res.Location || b.GetBytes() != res.Bytes || b.GetError() != "" || b.GetAtMs() == 0 {
		t.Errorf("after a backup: %v, want %s", b, res.Location)
	}
	s.Restart()
	got = status(t, owner, 1)
	if b := got.GetLastBackup(); !b.GetOk() || b.GetLocation() != res.Location || b.GetAtMs() == 0 {
		t.Errorf("after a restart: %v, want the backup found at %s", b, res.Location)
	}

	disk.setFree(10 << 20)
	got = status(t, owner, 1)
	if d := got.GetDisk(); d.GetFreeBytes() != 10<<20 || !d.GetFull() {
		t.Errorf("on a full disk: %v", d)
	}
	if st := got.GetStorage(); st.GetFiles() != 1 {
		t.Errorf("on a full disk the storage is still told: %v", st)
	}
}
