package importer

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// A Slack workspace export as Slack writes it (users.json, channels.json with pins,
// groups.json, dms.json, a folder of days per conversation), with the files a download tool
// adds under __uploads/<id>/<name>.

func slackZip(t *testing.T, path string, files map[string]any) {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		data, ok := files[n].([]byte)
		if !ok {
			if data, err = json.Marshal(files[n]); err != nil {
				t.Fatal(err)
			}
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, b.Bytes())
}

func slackUserJSON(id, name, display string) map[string]any {
	return map[string]any{"id": id, "team_id": "T1", "name": name, "deleted": false, "is_bot": false,
		"profile": map[string]any{"real_name": display + " Real", "display_name": display}}
}

var reportPDF = []byte("%PDF-1.4\n% a report\n")

func slackExport(t *testing.T, path string) {
	t.Helper()
	slackZip(t, path, map[string]any{
		"users.json": []any{slackUserJSON("U1", "maria", "María"), slackUserJSON("U2", "tom", "Tom")},
		"channels.json": []any{map[string]any{"id": "C1", "name": "general", "created": 1600000000, "members": []string{"U1", "U2"},
			"topic": map[string]any{"value": "Company-wide"}, "purpose": map[string]any{"value": "All of us"},
			"pins": []any{map[string]any{"id": "1640995300.000200", "type": "C", "created": 1641000000, "user": "U2"}}}},
		"groups.json": []any{map[string]any{"id": "G1", "name": "secret", "members": []string{"U1", "U2"}, "topic": map[string]any{"value": ""}, "purpose": map[string]any{"value": "Plans"}}},
		"dms.json":    []any{map[string]any{"id": "D1", "created": 1600000000, "members": []string{"U1", "U2"}}},
		"general/2022-01-01.json": []any{
			map[string]any{"type": "message", "subtype": "channel_join", "ts": "1640995100.000100", "user": "U2", "text": "<@U2> has joined the channel"},
			map[string]any{"type": "message", "ts": "1640995200.000100", "user": "U1", "text": "Hi <@U2>, see <#C1|general> &amp; <https://example.com|the site> :tada:",
				"edited": map[string]any{"user": "U1", "ts": "1640995260.000000"}, "thread_ts": "1640995200.000100", "reply_count": 2,
				"reactions": []any{map[string]any{"name": "thumbsup::skin-tone-2", "users": []string{"U2"}, "count": 1}, map[string]any{"name": "partyparrot", "users": []string{"U1", "U2"}, "count": 2}, map[string]any{"name": "+1", "users": []string{"U2"}, "count": 1}}},
			map[string]any{"type": "message", "ts": "1640995300.000200", "user": "U2", "text": "Report attached", "files": []any{
				map[string]any{"id": "F1", "name": "report.pdf", "title": "Report", "mimetype": "application/pdf", "url_private": "https://files.slack.com/F1/report.pdf"},
				map[string]any{"id": "F2", "name": "photo.jpg", "title": "Photo", "url_private": "https://files.slack.com/F2/photo.jpg"}}},
			map[string]any{"type": "message", "ts": "1640995400.000300", "user": "U2", "text": "sure thing", "thread_ts": "1640995200.000100", "parent_user_id": "U1"},
			map[string]any{"type": "message", "subtype": "tombstone", "ts": "1640995500.000400", "user": "USLACKBOT", "text": "This message was deleted.", "thread_ts": "1640995500.000400", "reply_count": 1},
		},
		"general/2022-01-02.json": []any{
			// Out of order in its file: read in ts order.
			map[string]any{"type": "message", "ts": "1641081700.000200", "user": "U1", "text": "later"},
			map[string]any{"type": "message", "ts": "1641081600.000100", "user": "U2", "text": "day two, in the deleted thread", "thread_ts": "1640995500.000400"},
			map[string]any{"type": "message", "ts": "1641081650.000100", "user": "U1", "text": "me too", "thread_ts": "1640995200.000100"},
		},
		"secret/2022-01-03.json":  []any{map[string]any{"type": "message", "ts": "1641168000.000100", "user": "U1", "text": "just us"}},
		"D1/2022-01-04.json":      []any{map[string]any{"type": "message", "ts": "1641254400.000100", "user": "U2", "text": "psst"}},
		"__uploads/F1/report.pdf": reportPDF,
	})
}

func TestImportSlackExportAndClaimAndExport(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	path := filepath.Join(t.TempDir(), "export.zip")
	slackExport(t, path)
	ctx := context.Background()
	sum, err := ImportSlack(ctx, NewClient(s.Dir), path, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sum.Print(&out)
	t.Log(out.String())
	if sum.Added != 9 || sum.System != 1 || sum.Missing != 1 || sum.Files != 1 || sum.NewChannels != 3 {
		t.Fatalf("summary: %+v", sum)
	}
	st := state(t, owner)
	maria, tom := memberNamed(t, st, "maria"), memberNamed(t, st, "tom")
	if maria.GetDisplayName() != "María" || !maria.GetImported() {
		t.Fatalf("maria: %v", maria)
	}
	general, _ := channelNamed(t, st, "general")
	if general.GetTopic() != "Company-wide" {
		t.Fatalf("general: %v", general)
	}
	// The private channel and the DM are their members' only: the owner sees neither.
	if len(st.GetChannels()) != 1 {
		t.Fatalf("the owner sees %v", st.GetChannels())
	}
	msgs := allMessages(t, owner, general.GetId(), "")
	if len(msgs) != 4 {
		t.Fatalf("general: %v", msgs)
	}
	hi, report, deleted, later := msgs[0], msgs[1], msgs[2], msgs[3]
	if hi.GetText() != "Hi <@"+tom.GetId()+">, see #general & [the site](https://example.com) :tada:" || hi.GetAuthorId() != maria.GetId() ||
		hi.GetCreatedAtMs() != 1640995200000 || hi.GetEditedAtMs() != 1640995260000 || hi.GetReplyCount() != 2 {
		t.Fatalf("hi: %v", hi)
	}
	var emoji []string
	for _, r := range hi.GetReactions() {
		emoji = append(emoji, r.GetEmoji()+"="+strings.Join(r.GetMemberIds(), ","))
	}
	if strings.Join(emoji, " ") != "👍🏻="+tom.GetId()+" :partyparrot:="+maria.GetId()+","+tom.GetId()+" 👍="+tom.GetId() {
		t.Fatalf("reactions: %v", emoji)
	}
	if report.GetText() != "Report attached\n(attachment not in the export: photo.jpg)" || len(report.GetAttachments()) != 1 ||
		report.GetPinnedAtMs() != 1641000000000 || report.GetPinnedBy() != tom.GetId() {
		t.Fatalf("report: %v", report)
	}
	if code, body := fetchURL(t, s, report.GetAttachments()[0].GetUrl()); code != 200 || !bytes.Equal(body, reportPDF) {
		t.Fatalf("the file: %d %q", code, body)
	}
	if !deleted.GetDeleted() || deleted.GetText() != "" || deleted.GetReplyCount() != 1 || later.GetText() != "later" {
		t.Fatalf("a deleted root with its replies: %v; then %v", deleted, later)
	}
	replies := allMessages(t, owner, general.GetId(), hi.GetId())
	if len(replies) != 2 || replies[0].GetText() != "sure thing" || replies[1].GetText() != "me too" {
		t.Fatalf("thread: %v", replies)
	}

	// Maria joins for real and an admin says the imported maria is her.
	real := s.Join("maria-real")
	stream := owner.Subscribe(t, state(t, owner).GetSeq())
	res, err := owner.Server.ClaimMember(ctx, connect.NewRequest(&svcv1.ClaimMemberRequest{PlaceholderId: maria.GetId(), MemberId: real.Member.GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Msg.GetMember().GetId() != real.Member.GetId() {
		t.Fatalf("claim answered %v", res.Msg.GetMember())
	}
	evs := stream.Until(func(ev *svcv1.Event) bool { return ev.GetMemberLeft() == maria.GetId() })
	sawClaim := false
	for _, ev := range evs {
		if m := ev.GetMemberUpdated(); m.GetId() == maria.GetId() && m.GetClaimedBy() == real.Member.GetId() {
			sawClaim = true
		}
		if ev.GetMessageUpdated() != nil || ev.GetMessageCreated() != nil {
			t.Fatalf("a claim sends no message events: %v", ev)
		}
	}
	if !sawClaim {
		t.Fatalf("no member_updated with claimed_by: %v", evs)
	}
	stream.Close()
	msgs = allMessages(t, owner, general.GetId(), "")
	hi = msgs[0]
	if hi.GetAuthorId() != real.Member.GetId() || !strings.Contains(hi.GetReactions()[1].GetMemberIds()[0], real.Member.GetId()) {
		t.Fatalf("after the claim: %v", hi)
	}
	if r := allMessages(t, owner, general.GetId(), hi.GetId()); r[1].GetAuthorId() != real.Member.GetId() {
		t.Fatalf("thread reply after the claim: %v", r[1])
	}
	for _, m := range state(t, owner).GetMembers() {
		if m.GetId() == maria.GetId() {
			t.Fatal("the placeholder is still a member")
		}
	}
	audit, err := owner.Server.ListAuditLog(ctx, connect.NewRequest(&svcv1.ListAuditLogRequest{Action: svcv1.AuditAction_AUDIT_ACTION_MEMBER_CLAIMED}))
	if err != nil || len(audit.Msg.GetEntries()) != 1 || audit.Msg.GetEntries()[0].GetActorId() != owner.Member.GetId() || audit.Msg.GetEntries()[0].GetTargetMemberId() != real.Member.GetId() {
		t.Fatalf("audit log: %v %v", audit, err)
	}
	// She now has the private channel and the DM.
	mine := state(t, real)
	secret, _ := channelNamed(t, mine, "secret")
	if got := allMessages(t, real, secret.GetId(), ""); len(got) != 1 || got[0].GetAuthorId() != real.Member.GetId() {
		t.Fatalf("secret: %v", got)
	}
	if len(mine.GetChannels()) != 3 {
		t.Fatalf("maria's channels: %v", mine.GetChannels())
	}
	// A claim again is refused: the placeholder is gone.
	if _, err := owner.Server.ClaimMember(ctx, connect.NewRequest(&svcv1.ClaimMemberRequest{PlaceholderId: maria.GetId(), MemberId: real.Member.GetId()})); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("claiming again: %v", err)
	}
	// An import again maps her messages to her, adding nothing.
	sum2, err := ImportSlack(ctx, NewClient(s.Dir), path, io.Discard)
	if err != nil || sum2.Added != 0 || sum2.Present != 9 {
		t.Fatalf("again: %+v %v", sum2, err)
	}

	// Her data, as a zip.
	ex, err := real.Server.ExportMyData(ctx, connect.NewRequest(&svcv1.ExportMyDataRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	var zipped []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		code, body := fetchURL(t, s, ex.Msg.GetUrl())
		if code == 200 {
			zipped = body
			break
		}
		if code != 503 || time.Now().After(deadline) {
			t.Fatalf("export: %d %s", code, body)
		}
	}
	zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		got[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	var exported []exportedMessageJSON
	if err := json.Unmarshal(got["messages.json"], &exported); err != nil {
		t.Fatalf("messages.json: %v\n%s", err, got["messages.json"])
	}
	var where []string
	for _, m := range exported {
		where = append(where, m.Channel+": "+m.Text)
	}
	if len(exported) != 4 || exported[0].Text != hi.GetText() || !slices.Contains(where, "#secret: just us") {
		t.Fatalf("exported messages: %q", where)
	}
	if !strings.Contains(string(got["profile.json"]), real.Member.GetId()) {
		t.Fatalf("profile.json: %s", got["profile.json"])
	}
	// A second export while the first is done is allowed; a fourth in a day is not.
	for i := 0; i < 2; i++ {
		waitExport(t, s, real)
	}
	if _, err := real.Server.ExportMyData(ctx, connect.NewRequest(&svcv1.ExportMyDataRequest{})); connect.CodeOf(err) != connect.CodeResourceExhausted {
		t.Fatalf("a fourth export in a day: %v", err)
	}
}

type exportedMessageJSON struct {
	Channel string `json:"channel"`
	Text    string `json:"text"`
}

// waitExport asks for an export and waits until its zip is ready.
func waitExport(t *testing.T, s *webtest.Server, c *webtest.Client) {
	t.Helper()
	ex, err := c.Server.ExportMyData(context.Background(), connect.NewRequest(&svcv1.ExportMyDataRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if code, _ := fetchURL(t, s, ex.Msg.GetUrl()); code == 200 {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("export: %d", code)
		}
	}
}

func TestImportSlackRefusesWhatIsNotAnExport(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	s.Join("owner")
	dir := t.TempDir()
	notZip := filepath.Join(dir, "export.zip")
	writeFile(t, notZip, []byte("just text"))
	noUsers := filepath.Join(dir, "nousers.zip")
	slackZip(t, noUsers, map[string]any{"channels.json": []any{}})
	badDay := filepath.Join(dir, "badday.zip")
	slackZip(t, badDay, map[string]any{"users.json": []any{}, "channels.json": []any{map[string]any{"id": "C1", "name": "general"}}, "general/2022-01-01.json": []byte(`[{"ts": `)})
	for _, p := range []string{notZip, noUsers, badDay} {
		_, err := ImportSlack(context.Background(), NewClient(s.Dir), p, io.Discard)
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Fatalf("%s: %v", p, err)
		}
		t.Logf("%s", err)
	}
	if _, err := os.Stat(notZip); err != nil {
		t.Fatal(err)
	}
}
