package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web"
)

// What every reader hands the driver: conversations (a channel and its messages in time order),
// people by source key, and files it can open.

// Conversation is one channel of an export with its messages, oldest first.
type Conversation struct {
	Channel engine.ImportChannel
	// MemberKeys are the people of a PRIVATE channel or DM (Channel.MemberIDs is filled from
	// them).
	MemberKeys []string
	// Messages calls yield with each message in time order.
	Messages func(yield func(*Message) error) error
}

// Message is a message of an export whose people are still source keys.
type Message struct {
	engine.ImportMessage
	// Author is the author's person key; ReactionKeys the people of each of Reactions (their
	// MemberIds are filled from them); PinnedBy the person who pinned it, if known.
	Author       string
	ReactionKeys [][]string
	PinnedBy     string
	// Files are its attachments in the export; Missing the names of those not in it.
	Files   []File
	Missing []string
}

// File is a file of an export.
type File struct {
	Key, Name string
	// Open opens its bytes; an error means it is not in the export after all.
	Open func() (io.ReadCloser, error)
}

// Person is someone of an export.
type Person struct {
	engine.ImportPerson
	// Avatar is their picture, when the export holds it.
	Avatar *File
}

// mentionMark wraps a person key in a message's text until the key has a member id: the
// driver puts `<@id>` in its place. The marks are private-use characters, which no export's
// text is expected to hold (any that one holds are dropped).
const mentionOpen, mentionClose = "\ue000", "\ue001"

var mentionMarks = regexp.MustCompile(mentionOpen + "([^" + mentionClose + "]*)" + mentionClose)

// Mention is the text that mentions a person, until the driver resolves it.
func Mention(personKey string) string { return mentionOpen + personKey + mentionClose }

// Summary is what an import did, for its last words.
type Summary struct {
	Conversations, NewChannels        int
	Messages, Added, Present          int
	PastRetention, OutOfOrder, Future int
	Rootless, System, Empty, Cut      int
	People, Files, FilesPresent       int
	Missing, TooLarge, Emoji          int
	ReactionsUnknown, EmojiRefused    int
	Pins, Replies                     int
	Bytes, TotalBytes                 int64
	MissingExamples                   []string
	kind                              string
}

// driver sends an export to the server.
type driver struct {
	c        *Client
	ctx      context.Context
	people   map[string]*Person
	ids      map[string]string // person key -> member id
	avatars  map[string]bool   // person keys whose picture was sent
	sum      *Summary
	progress *progress
	batch    int
	// fresh is set while the conversation's channel was made by this run.
	fresh bool
}

// batchSize is how many messages go in one request (one writer change on the server).
const batchSize = 1000

func newDriver(ctx context.Context, c *Client, sum *Summary, prog *progress) *driver {
	return &driver{c: c, ctx: ctx, people: map[string]*Person{}, ids: map[string]string{}, avatars: map[string]bool{}, sum: sum, progress: prog, batch: batchSize}
}

// person registers someone of the export (the first registration of a key wins).
func (d *driver) person(p *Person) {
	if _, ok := d.people[p.Key]; !ok {
		d.people[p.Key] = p
	}
}

// resolve makes sure the people of keys have member ids.
func (d *driver) resolve(keys []string) error {
	var missing []engine.ImportPerson
	var asked []string
	for _, k := range keys {
		if _, ok := d.ids[k]; ok || slices.Contains(asked, k) {
			continue
		}
		asked = append(asked, k)
		p := d.people[k]
		if p == nil {
			p = &Person{ImportPerson: engine.ImportPerson{Key: k, Username: "unknown"}}
			d.people[k] = p
		}
		missing = append(missing, p.ImportPerson)
	}
	for len(missing) > 0 {
		chunk := missing[:min(len(missing), engine.ImportPeopleMax)]
		missing = missing[len(chunk):]
		var out web.ImportPeopleResponse
		if err := d.c.postJSON(d.ctx, web.AdminImportPeoplePath, web.ImportPeopleRequest{People: chunk}, &out); err != nil {
			return fmt.Errorf("adding people: %w", err)
		}
		for k, id := range out.IDs {
			d.ids[k] = id
		}
	}
	for _, k := range asked {
		if p := d.people[k]; p.Avatar != nil && !d.avatars[k] {
			d.avatars[k] = true
			if _, err := d.sendFile(*p.Avatar, d.ids[k], true); err != nil && !isMissing(err) {
				return err
			}
		}
	}
	return nil
}

// errMissing is a file the export names but does not hold, or one the server refused.
type errMissing struct{ why string }

func (e errMissing) Error() string { return e.why }

func isMissing(err error) bool {
	var m errMissing
	return errors.As(err, &m)
}

// sendFile sends one file for owner and returns its upload id.
func (d *driver) sendFile(f File, owner string, avatar bool) (string, error) {
	rc, err := f.Open()
	if err != nil {
		return "", errMissing{"not in the export"}
	}
	defer rc.Close()
	id, err := d.c.file(d.ctx, f.Key, owner, f.Name, rc, avatar)
	var se *ServerError
	if errors.As(err, &se) && se.Status == http.StatusRequestEntityTooLarge {
		d.sum.TooLarge++
		return "", errMissing{"larger than 25 MB"}
	}
	return id, err
}

// conversation sends one conversation.
func (d *driver) conversation(cv *Conversation) error {
	d.sum.Conversations++
	if err := d.resolve(cv.MemberKeys); err != nil {
		return err
	}
	ch := cv.Channel
	ch.MemberIDs = nil
	for _, k := range cv.MemberKeys {
		if !slices.Contains(ch.MemberIDs, d.ids[k]) {
			ch.MemberIDs = append(ch.MemberIDs, d.ids[k])
		}
	}
	if ch.Kind == svcv1.ChannelKind_CHANNEL_KIND_DM && (len(ch.MemberIDs) < 2 || len(ch.MemberIDs) > 9) {
		ch.Kind = svcv1.ChannelKind_CHANNEL_KIND_PRIVATE
	}
	var made engine.ImportedChannel
	if err := d.c.postJSON(d.ctx, web.AdminImportChannelPath, ch, &made); err != nil {
		return fmt.Errorf("channel %s: %w", describe(cv.Channel), err)
	}
	if made.Created {
		d.sum.NewChannels++
	}
	// A channel made now holds nothing: its batches need no lookup of what is there.
	d.fresh = made.Created
	var pending []*Message
	err := cv.Messages(func(m *Message) error {
		d.sum.Messages++
		pending = append(pending, m)
		if len(pending) == d.batch {
			err := d.flush(ch.Key, pending)
			pending = pending[:0]
			return err
		}
		return nil
	})
	if err == nil && len(pending) > 0 {
		err = d.flush(ch.Key, pending)
	}
	if err != nil {
		return err
	}
	return d.c.postJSON(d.ctx, web.AdminImportFinishPath, web.ImportFinishRequest{ChannelKey: ch.Key}, nil)
}

// describe names a channel of an export for people.
func describe(ch engine.ImportChannel) string {
	if ch.Name != "" {
		return fmt.Sprintf("%q", ch.Name)
	}
	return ch.Key
}

// flush sends a batch: its people, then (for the messages not imported before) its files, then
// the messages.
func (d *driver) flush(chKey string, batch []*Message) error {
	keys := make([]string, len(batch))
	for i, m := range batch {
		keys[i] = m.Key
	}
	var found web.ImportLookupResponse
	if !d.fresh {
		if err := d.c.postJSON(d.ctx, web.AdminImportLookupPath, web.ImportLookupRequest{Keys: keys}, &found); err != nil {
			return err
		}
	}
	var fresh []*Message
	var people []string
	for _, m := range batch {
		if found.IDs[m.Key] != "" {
			d.sum.Present++
			continue
		}
		fresh = append(fresh, m)
		people = append(people, m.Author)
		if m.PinnedBy != "" {
			people = append(people, m.PinnedBy)
		}
		for _, rk := range m.ReactionKeys {
			people = append(people, rk...)
		}
		for _, mk := range mentionMarks.FindAllStringSubmatch(m.Text, -1) {
			people = append(people, mk[1])
		}
	}
	if len(fresh) == 0 {
		d.progress.add(len(batch))
		return nil
	}
	if err := d.resolve(people); err != nil {
		return err
	}
	out := make([]engine.ImportMessage, 0, len(fresh))
	for _, m := range fresh {
		im := m.ImportMessage
		im.AuthorID = d.ids[m.Author]
		if m.PinnedBy != "" {
			im.PinnedByID = d.ids[m.PinnedBy]
		}
		if im.PinnedAtMs > 0 {
			d.sum.Pins++
		}
		if im.ReplyToKey != "" {
			d.sum.Replies++
		}
		im.Reactions = nil
		for i, r := range m.Reactions {
			var ids []string
			for _, k := range m.ReactionKeys[i] {
				if id := d.ids[k]; id != "" && !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
			if len(ids) > 0 {
				im.Reactions = append(im.Reactions, &svcv1.Reaction{Emoji: r.GetEmoji(), MemberIds: ids})
			}
		}
		im.Text = mentionMarks.ReplaceAllStringFunc(im.Text, func(s string) string {
			return "<@" + d.ids[mentionMarks.FindStringSubmatch(s)[1]] + ">"
		})
		missing := slices.Clone(m.Missing)
		for _, f := range m.Files {
			if len(im.AttachmentIDs) == 10 {
				missing = append(missing, f.Name)
				continue
			}
			id, err := d.sendFile(f, im.AuthorID, false)
			if isMissing(err) {
				missing = append(missing, f.Name)
				continue
			}
			if err != nil {
				return fmt.Errorf("file %s: %w", f.Name, err)
			}
			d.sum.Files++
			im.AttachmentIDs = append(im.AttachmentIDs, id)
		}
		for _, name := range missing {
			d.sum.Missing++
			if len(d.sum.MissingExamples) < 5 {
				d.sum.MissingExamples = append(d.sum.MissingExamples, name)
			}
			im.Text = strings.TrimSpace(im.Text + "\n(attachment not in the export: " + name + ")")
		}
		im.Text = d.fit(im.Text)
		if strings.TrimSpace(im.Text) == "" && len(im.AttachmentIDs) == 0 && !im.Deleted {
			d.sum.Empty++
			continue
		}
		out = append(out, im)
	}
	var res engine.ImportBatchResult
	if err := d.c.postJSON(d.ctx, web.AdminImportMessagesPath, web.ImportMessagesRequest{ChannelKey: chKey, Messages: out}, &res); err != nil {
		return err
	}
	d.sum.Added += res.Added
	d.sum.Present += res.Present
	d.sum.PastRetention += res.PastRetention
	d.sum.OutOfOrder += res.OutOfOrder
	d.sum.Future += res.Future
	d.sum.Rootless += res.Rootless
	d.progress.add(len(batch))
	return nil
}

// textMax is the longest text a message may have (API.md).
const textMax = 8000

// fit cuts a text longer than a message may be, saying so.
func (d *driver) fit(s string) string {
	if utf8.RuneCountInString(s) <= textMax {
		return s
	}
	d.sum.Cut++
	const more = "… (cut: the message was longer than 8,000 characters)"
	return string([]rune(s)[:textMax-utf8.RuneCountInString(more)]) + more
}

// progress shows how far an import is, on a terminal.
type progress struct {
	w        io.Writer
	tty      bool
	done     int
	sum      *Summary
	lastDraw int
}

func newProgress(w io.Writer, sum *Summary) *progress {
	p := &progress{w: w, sum: sum}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

// add counts messages done and redraws the bar now and then.
func (p *progress) add(n int) {
	p.done += n
	if p.done-p.lastDraw < 2000 && n < 2000 {
		if p.tty {
			p.draw()
		}
		return
	}
	p.lastDraw = p.done
	p.draw()
}

func (p *progress) draw() {
	if p.w == nil {
		return
	}
	frac := 0.0
	if p.sum.TotalBytes > 0 {
		frac = min(1, float64(p.sum.Bytes)/float64(p.sum.TotalBytes))
	}
	const width = 30
	bar := strings.Repeat("#", int(frac*width)) + strings.Repeat(".", width-int(frac*width))
	line := fmt.Sprintf("[%s] %3.0f%%  %s messages, %s new", bar, frac*100, thousands(p.done), thousands(p.sum.Added))
	if p.tty {
		fmt.Fprintf(p.w, "\r%s", line)
		return
	}
	fmt.Fprintln(p.w, line)
}

// end finishes the bar's line.
func (p *progress) end() {
	if p.tty {
		p.draw()
		fmt.Fprintln(p.w)
	}
}

// thousands formats 12345 as "12,345".
func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Print writes the summary for people.
func (s *Summary) Print(w io.Writer) {
	fmt.Fprintf(w, "Imported from %s: %s conversations (%s new channels), %s messages (%s added, %s already here), %s files, %s custom emoji.\n",
		s.kind, thousands(s.Conversations), thousands(s.NewChannels), thousands(s.Messages), thousands(s.Added), thousands(s.Present), thousands(s.Files), thousands(s.Emoji))
	if s.Pins > 0 || s.Replies > 0 {
		fmt.Fprintf(w, "With them: %s replies and %s pins (a reply to a message of another channel stays a plain message; a channel keeps its newest 50 pins).\n", thousands(s.Replies), thousands(s.Pins))
	}
	var left []string
	add := func(n int, what string) {
		if n > 0 {
			left = append(left, thousands(n)+" "+what)
		}
	}
	add(s.Missing, "attachments not in the export (each noted in its message)")
	add(s.TooLarge, "of them larger than 25 MB")
	add(s.PastRetention, "messages older than the server's retention")
	add(s.OutOfOrder, "messages older than what their channel already held")
	add(s.Future, "messages dated in the future")
	add(s.System, "system messages (joins, pins, renames)")
	add(s.Empty, "empty messages")
	add(s.ReactionsUnknown, "reactions without the list of who reacted")
	add(s.EmojiRefused, "custom emoji images the server refused")
	if len(left) > 0 {
		fmt.Fprintf(w, "Left out: %s.\n", strings.Join(left, "; "))
	}
	if len(s.MissingExamples) > 0 {
		fmt.Fprintf(w, "Missing files include: %s.\n", strings.Join(s.MissingExamples, ", "))
	}
	if s.Rootless > 0 {
		fmt.Fprintf(w, "%s thread replies whose thread start is not in the export became messages of their channel.\n", thousands(s.Rootless))
	}
	if s.Cut > 0 {
		fmt.Fprintf(w, "%s messages longer than 8,000 characters were cut.\n", thousands(s.Cut))
	}
}
