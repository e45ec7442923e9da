package importer

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"hearth/engine"
	"hearth/engine/zipread"
	svcv1 "hearth/proto/svc/v1"
)

// Slack's workspace export: a zip holding users.json, channels.json (public channels),
// groups.json (private ones), dms.json and mpims.json (direct and group messages) when the
// export has them, and a folder per conversation of daily files (2024-05-01.json), each an array
// of messages {ts, user, text, thread_ts, reply_count, reactions [{name, users, count}], files
// [{id, name, ...}], edited {ts}, subtype, pinned_to}. Files are in the export only when a tool
// put them there (<folder>/attachments/<id>-<name>, or __uploads/<id>/<name>); the url_private
// links are never fetched. The daily files are read one at a time, in date order.

// Slack export limits: what the zip may hold.
var slackLimits = zipread.Limits{MaxFiles: 500_000, MaxSize: 256 << 20}

// slackFileMax is the largest file of the export that is sent (the server's upload limit).
const slackFileMax = engine.MaxUploadBytes

type slackUser struct {
	ID      string `json:"id"`
	TeamID  string `json:"team_id"`
	Name    string `json:"name"`
	Deleted bool   `json:"deleted"`
	IsBot   bool   `json:"is_bot"`
	Profile struct {
		RealName    string `json:"real_name"`
		DisplayName string `json:"display_name"`
	} `json:"profile"`
}

type slackChannel struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Members []string `json:"members"`
	Topic   struct {
		Value string `json:"value"`
	} `json:"topic"`
	Purpose struct {
		Value string `json:"value"`
	} `json:"purpose"`
	Pins []struct {
		ID      string `json:"id"`
		Created int64  `json:"created"`
		User    string `json:"user"`
	} `json:"pins"`
}

type slackMessage struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	TS          string `json:"ts"`
	User        string `json:"user"`
	BotID       string `json:"bot_id"`
	Username    string `json:"username"`
	Text        string `json:"text"`
	ThreadTS    string `json:"thread_ts"`
	UserProfile *struct {
		RealName    string `json:"real_name"`
		DisplayName string `json:"display_name"`
		Name        string `json:"name"`
	} `json:"user_profile"`
	Edited *struct {
		TS string `json:"ts"`
	} `json:"edited"`
	Reactions []struct {
		Name  string   `json:"name"`
		Users []string `json:"users"`
		Count int      `json:"count"`
	} `json:"reactions"`
	Files []struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Title string `json:"title"`
		Mode  string `json:"mode"`
	} `json:"files"`
	PinnedTo []string `json:"pinned_to"`
}

// ImportSlack reads the Slack workspace export at zipPath and sends it to the server.
func ImportSlack(ctx context.Context, c *Client, zipPath string, progressTo io.Writer) (*Summary, error) {
	f, err := os.Open(zipPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	a, err := zipread.Open(f, fi.Size(), slackLimits)
	if err != nil {
		return nil, fmt.Errorf("%s is not a Slack export: %v", zipPath, err)
	}
	r := &slackReader{a: a, path: zipPath, files: map[string]string{}}
	if err := r.index(); err != nil {
		return nil, fmt.Errorf("%s is not a Slack export: %v", zipPath, err)
	}
	sum := &Summary{kind: "Slack"}
	for _, n := range a.Names() {
		if strings.HasSuffix(n, ".json") && strings.Contains(n, "/") {
			sum.TotalBytes += a.Size(n)
		}
	}
	prog := newProgress(progressTo, sum)
	defer prog.end()
	r.d = newDriver(ctx, c, sum, prog)
	for _, u := range r.users {
		r.d.person(r.personOf(u))
	}
	for _, cv := range r.convs {
		if err := r.d.conversation(r.conversation(cv)); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

type slackReader struct {
	a     *zipread.Archive
	path  string
	d     *driver
	team  string
	users map[string]slackUser
	convs []slackConv
	// files maps a file id to its entry in the zip.
	files map[string]string
}

// slackConv is one conversation of the export and where its daily files are.
type slackConv struct {
	ch     slackChannel
	kind   svcv1.ChannelKind
	folder string
	days   []string
}

// readJSON decodes one entry of the zip.
func (r *slackReader) readJSON(name string, v any) error {
	data, err := r.a.Read(name, 0)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s is not valid JSON: %v", name, err)
	}
	return nil
}

func (r *slackReader) has(name string) bool { return r.a.Size(name) > 0 }

// index reads users.json and the conversation lists, and finds each conversation's days.
func (r *slackReader) index() error {
	if !r.has("users.json") {
		return errors.New("it has no users.json")
	}
	var users []slackUser
	if err := r.readJSON("users.json", &users); err != nil {
		return err
	}
	r.users = map[string]slackUser{}
	for _, u := range users {
		r.users[u.ID] = u
		if r.team == "" {
			r.team = u.TeamID
		}
	}
	if r.team == "" {
		r.team = "workspace"
	}
	lists := []struct {
		file string
		kind svcv1.ChannelKind
	}{
		{"channels.json", svcv1.ChannelKind_CHANNEL_KIND_TEXT},
		{"groups.json", svcv1.ChannelKind_CHANNEL_KIND_PRIVATE},
		{"mpims.json", svcv1.ChannelKind_CHANNEL_KIND_DM},
		{"dms.json", svcv1.ChannelKind_CHANNEL_KIND_DM},
	}
	found := false
	for _, l := range lists {
		if !r.has(l.file) {
			continue
		}
		found = true
		var chs []slackChannel
		if err := r.readJSON(l.file, &chs); err != nil {
			return err
		}
		for _, ch := range chs {
			folder := ch.Name
			if folder == "" {
				folder = ch.ID
			}
			r.convs = append(r.convs, slackConv{ch: ch, kind: l.kind, folder: folder})
		}
	}
	if !found {
		return errors.New("it has neither channels.json, groups.json, dms.json nor mpims.json")
	}
	days := map[string][]string{}
	for _, n := range r.a.Names() {
		dir, base := path.Split(n)
		dir = strings.TrimSuffix(dir, "/")
		switch {
		case strings.HasPrefix(n, "__uploads/"):
			// __uploads/<file id>/<name>
			if parts := strings.Split(n, "/"); len(parts) == 3 {
				r.files[parts[1]] = n
			}
		case strings.HasSuffix(dir, "/attachments"):
			// <folder>/attachments/<file id>-<name>
			if id, _, ok := strings.Cut(base, "-"); ok {
				r.files[id] = n
			}
		case strings.HasSuffix(base, ".json") && dir != "" && !strings.Contains(dir, "/"):
			days[dir] = append(days[dir], n)
		}
	}
	for i := range r.convs {
		r.convs[i].days = days[r.convs[i].folder]
		sort.Strings(r.convs[i].days)
	}
	return nil
}

func (r *slackReader) userKey(id string) string { return "slack/" + r.team + "/user/" + id }
func (r *slackReader) messageKey(ch, ts string) string {
	return "slack/" + r.team + "/message/" + ch + "/" + ts
}

func (r *slackReader) personOf(u slackUser) *Person {
	return &Person{ImportPerson: engine.ImportPerson{Key: r.userKey(u.ID), Username: u.Name, DisplayName: firstOf(u.Profile.DisplayName, u.Profile.RealName, u.Name)}}
}

// conversation is the driver's view of one conversation.
func (r *slackReader) conversation(cv slackConv) *Conversation {
	ch := engine.ImportChannel{Key: "slack/" + r.team + "/channel/" + cv.ch.ID, Kind: cv.kind, Name: cv.ch.Name, Topic: firstOf(cv.ch.Topic.Value, cv.ch.Purpose.Value)}
	out := &Conversation{Channel: ch}
	if cv.kind != svcv1.ChannelKind_CHANNEL_KIND_TEXT {
		for _, id := range cv.ch.Members {
			out.MemberKeys = append(out.MemberKeys, r.userKey(id))
		}
	}
	pins := map[string]struct {
		at   int64
		user string
	}{}
	for _, p := range cv.ch.Pins {
		pins[p.ID] = struct {
			at   int64
			user string
		}{p.Created * 1000, p.User}
	}
	out.Messages = func(yield func(*Message) error) error {
		for _, day := range cv.days {
			var msgs []slackMessage
			data, err := r.a.Read(day, 0)
			if err != nil {
				return fmt.Errorf("%s: %s: %v", r.path, day, err)
			}
			r.d.sum.Bytes += int64(len(data))
			if err := json.NewDecoder(bufio.NewReader(bytes.NewReader(data))).Decode(&msgs); err != nil {
				return fmt.Errorf("%s: %s is not a day of Slack messages: %v", r.path, day, err)
			}
			sort.SliceStable(msgs, func(i, j int) bool { return slackTime(msgs[i].TS) < slackTime(msgs[j].TS) })
			for i := range msgs {
				m := r.message(cv, &msgs[i])
				if m == nil {
					continue
				}
				if p, ok := pins[msgs[i].TS]; ok {
					m.PinnedAtMs = max(p.at, m.CreatedAtMs)
					if p.user != "" {
						m.PinnedBy = r.userKey(p.user)
					}
				}
				if err := yield(m); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return out
}

// slackTime is a Slack ts ("1714557600.000200") in Unix ms; 0 when it is not one.
func slackTime(ts string) int64 {
	sec, frac, _ := strings.Cut(ts, ".")
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return 0
	}
	ms := int64(0)
	if len(frac) >= 3 {
		ms, _ = strconv.ParseInt(frac[:3], 10, 64)
	}
	return s*1000 + ms
}

// slackSkipped are the subtypes that say what happened to a channel, not what someone said.
var slackSkipped = map[string]bool{
	"channel_join": true, "channel_leave": true, "channel_topic": true, "channel_purpose": true,
	"channel_name": true, "channel_archive": true, "channel_unarchive": true, "group_join": true,
	"group_leave": true, "group_topic": true, "group_purpose": true, "group_name": true,
	"group_archive": true, "group_unarchive": true, "pinned_item": true, "unpinned_item": true,
	"bot_add": true, "bot_remove": true, "channel_convert_to_private": true,
}

// message turns a Slack message into an import's, or nil for one left out.
func (r *slackReader) message(cv slackConv, m *slackMessage) *Message {
	if m.Type != "" && m.Type != "message" || slackSkipped[m.Subtype] {
		r.d.sum.System++
		return nil
	}
	at := slackTime(m.TS)
	if at <= 0 {
		r.d.sum.System++
		return nil
	}
	out := &Message{}
	out.Key = r.messageKey(cv.ch.ID, m.TS)
	out.CreatedAtMs = at
	switch {
	case m.User != "" && m.Subtype != "bot_message":
		out.Author = r.userKey(m.User)
		if _, ok := r.users[m.User]; !ok {
			p := &Person{ImportPerson: engine.ImportPerson{Key: out.Author, Username: m.User}}
			if up := m.UserProfile; up != nil {
				p.Username, p.DisplayName = firstOf(up.Name, m.User), firstOf(up.DisplayName, up.RealName)
			}
			r.d.person(p)
		}
	case m.BotID != "":
		out.Author = "slack/" + r.team + "/bot/" + m.BotID
		r.d.person(&Person{ImportPerson: engine.ImportPerson{Key: out.Author, Username: firstOf(m.Username, "bot"), DisplayName: firstOf(m.Username, "bot")}})
	default:
		out.Author = "slack/" + r.team + "/user/unknown"
		r.d.person(&Person{ImportPerson: engine.ImportPerson{Key: out.Author, Username: "slack-unknown", DisplayName: "Unknown"}})
	}
	if m.Edited != nil {
		out.EditedAtMs = max(slackTime(m.Edited.TS), at)
	}
	if m.ThreadTS != "" && m.ThreadTS != m.TS {
		out.ThreadRootKey = r.messageKey(cv.ch.ID, m.ThreadTS)
	}
	if m.Subtype == "tombstone" {
		out.Deleted = true
		return out
	}
	out.Text = r.text(m.Text)
	if m.Subtype == "me_message" {
		out.Text = "_" + out.Text + "_"
	}
	for _, f := range m.Files {
		name := firstOf(f.Name, f.Title, f.ID)
		if f.Mode == "tombstone" || f.Mode == "hidden_by_limit" {
			out.Missing = append(out.Missing, name)
			continue
		}
		entry, ok := r.files[f.ID]
		if !ok {
			out.Missing = append(out.Missing, name)
			continue
		}
		out.Files = append(out.Files, File{Key: "slack/" + r.team + "/file/" + f.ID, Name: name, Open: func() (io.ReadCloser, error) {
			data, err := r.a.Read(entry, slackFileMax)
			if errors.Is(err, zipread.ErrTooLarge) {
				r.d.sum.TooLarge++
			}
			if err != nil {
				return nil, err
			}
			return io.NopCloser(bytes.NewReader(data)), nil
		}})
	}
	for _, re := range m.Reactions {
		if len(re.Users) == 0 {
			r.d.sum.ReactionsUnknown++
			continue
		}
		var keys []string
		for _, u := range re.Users {
			keys = append(keys, r.userKey(u))
		}
		out.Reactions = append(out.Reactions, &svcv1.Reaction{Emoji: SlackEmoji(re.Name)})
		out.ReactionKeys = append(out.ReactionKeys, keys)
	}
	return out
}

// slackMarkup finds Slack's <...> markup: mentions, channels, special mentions and links.
var slackMarkup = regexp.MustCompile(`<([@#!]?)([^<>|]*)(?:\|([^<>]*))?>`)

// text turns Slack's markup into Hearth's: <@U1> mentions, #channel, @here, [label](url).
func (r *slackReader) text(s string) string {
	s = strings.NewReplacer(mentionOpen, "", mentionClose, "").Replace(s)
	s = slackMarkup.ReplaceAllStringFunc(s, func(tok string) string {
		sm := slackMarkup.FindStringSubmatch(tok)
		kind, target, label := sm[1], sm[2], sm[3]
		switch kind {
		case "@":
			if target == "" {
				return tok
			}
			if _, ok := r.users[target]; !ok {
				r.d.person(&Person{ImportPerson: engine.ImportPerson{Key: r.userKey(target), Username: firstOf(label, target)}})
			}
			return Mention(r.userKey(target))
		case "#":
			return "#" + firstOf(label, target)
		case "!":
			name, _, _ := strings.Cut(target, "^")
			switch name {
			case "here", "channel", "everyone":
				return "@" + name
			}
			return firstOf(label, "@"+name)
		}
		if label != "" && label != target {
			return "[" + label + "](" + target + ")"
		}
		return target
	})
	// Slack escapes &, < and > in its text.
	return html.UnescapeString(s)
}

//go:embed shortcodes.tsv
var shortcodesTSV string

var shortcodes = func() map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(shortcodesTSV, "\n") {
		name, cps, ok := strings.Cut(line, "\t")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		var b strings.Builder
		for _, cp := range strings.Split(cps, "-") {
			n, err := strconv.ParseUint(cp, 16, 32)
			if err == nil && utf8.ValidRune(rune(n)) {
				b.WriteRune(rune(n))
			}
		}
		m[name] = b.String()
	}
	return m
}()

// skinTones are the modifiers of Slack's "::skin-tone-2" to "::skin-tone-6".
var skinTones = map[string]rune{"2": 0x1F3FB, "3": 0x1F3FC, "4": 0x1F3FD, "5": 0x1F3FE, "6": 0x1F3FF}

// SlackEmoji is the reaction a Slack emoji name stands for: the unicode emoji of a standard
// shortcode (with its skin tone), else the custom emoji's `:name:`.
func SlackEmoji(name string) string {
	base, tone, _ := strings.Cut(name, "::skin-tone-")
	// Keycaps (1️⃣, #️⃣) hold a digit or a sign, which a reaction's unicode emoji may not:
	// they stay shortcodes.
	if e, ok := shortcodes[base]; ok && !strings.ContainsAny(e, "0123456789#*") {
		if m, ok := skinTones[tone]; ok {
			e = strings.TrimSuffix(e, "\ufe0f") + string(m)
		}
		return e
	}
	return ":" + emojiName(base) + ":"
}
