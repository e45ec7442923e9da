package importer

import (
	"bufio"
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"hearth/engine"
	svcv1 "hearth/proto/svc/v1"
)

// DiscordChatExporter's JSON export: one file per channel, thread or forum post, each an object
// {guild, channel {id, type, categoryId, category, name, topic}, dateRange, exportedAt,
// messages [...], messageCount}, its messages oldest first. Exported with --media, the url
// fields of attachments, embeds, avatars and emoji are paths of files beside it (relative to
// the export file's folder); without, they are Discord's URLs, which are never fetched: such a
// file is noted as missing.
//
// A thread's file names its parent channel in categoryId/category (the format's "category" of a
// thread is its parent). A channel and its threads are read together, merged by time, so the
// channel's history goes in oldest first: a thread started from a message of the channel has
// that message as its root; one started without (a forum post, a thread whose start is not in
// the export) has its first message as root, posted in the parent channel with the thread's
// name in bold above it.

// Discord options.
type DiscordOptions struct {
	// MediaDir is another folder the export's files may be in (DiscordChatExporter's
	// --media-dir outside the output folder, whose paths are then absolute).
	MediaDir string
}

type dceHeader struct {
	Guild struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"guild"`
	Channel struct {
		ID         string `json:"id"`
		Type       string `json:"type"`
		CategoryID string `json:"categoryId"`
		Category   string `json:"category"`
		Name       string `json:"name"`
		Topic      string `json:"topic"`
	} `json:"channel"`
}

type dceUser struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Discriminator string `json:"discriminator"`
	Nickname      string `json:"nickname"`
	IsBot         bool   `json:"isBot"`
	AvatarURL     string `json:"avatarUrl"`
}

type dceEmoji struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Code     string `json:"code"`
	ImageURL string `json:"imageUrl"`
}

type dceImage struct {
	URL string `json:"url"`
}

type dceMessage struct {
	ID              string  `json:"id"`
	Type            string  `json:"type"`
	Timestamp       string  `json:"timestamp"`
	TimestampEdited *string `json:"timestampEdited"`
	IsPinned        bool    `json:"isPinned"`
	Content         string  `json:"content"`
	Author          dceUser `json:"author"`
	Attachments     []struct {
		ID       string `json:"id"`
		URL      string `json:"url"`
		FileName string `json:"fileName"`
	} `json:"attachments"`
	Embeds []struct {
		Title       string     `json:"title"`
		URL         string     `json:"url"`
		Description string     `json:"description"`
		Image       *dceImage  `json:"image"`
		Thumbnail   *dceImage  `json:"thumbnail"`
		Images      []dceImage `json:"images"`
		Fields      []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"fields"`
	} `json:"embeds"`
	Stickers []struct {
		Name string `json:"name"`
	} `json:"stickers"`
	Reactions []struct {
		Emoji dceEmoji  `json:"emoji"`
		Count int       `json:"count"`
		Users []dceUser `json:"users"`
	} `json:"reactions"`
	Mentions  []dceUser `json:"mentions"`
	Reference *struct {
		MessageID string `json:"messageId"`
		ChannelID string `json:"channelId"`
	} `json:"reference"`
	InlineEmojis []dceEmoji `json:"inlineEmojis"`

	at int64 // Timestamp in Unix ms
}

// dceFile is one export file, its header read.
type dceFile struct {
	path   string
	size   int64
	header dceHeader
	thread bool
	// first is the time of its first message (0: none), for the merge.
	first int64
}

// ImportDiscord reads the DiscordChatExporter JSON exports at paths (files, or folders searched
// for them) and sends them to the server.
func ImportDiscord(ctx context.Context, c *Client, paths []string, opts DiscordOptions, progressTo io.Writer) (*Summary, error) {
	files, err := scanDiscord(paths)
	if err != nil {
		return nil, err
	}
	sum := &Summary{kind: "Discord"}
	for _, f := range files {
		sum.TotalBytes += f.size
	}
	prog := newProgress(progressTo, sum)
	defer prog.end()
	d := newDriver(ctx, c, sum, prog)
	r := &discordReader{d: d, opts: opts, emoji: map[string]string{}}
	for _, g := range groupDiscord(files) {
		if err := r.group(g); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// scanDiscord lists the export files and reads their headers; a file that is not such an
// export is an error naming it.
func scanDiscord(paths []string) ([]*dceFile, error) {
	var names []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			names = append(names, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			// The media folders DiscordChatExporter writes beside its files hold no exports.
			if de.IsDir() && path != p && (strings.HasSuffix(de.Name(), "_Files") || strings.HasPrefix(de.Name(), ".")) {
				return filepath.SkipDir
			}
			if !de.IsDir() && strings.EqualFold(filepath.Ext(path), ".json") {
				names = append(names, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no DiscordChatExporter JSON files (*.json) in %s", strings.Join(paths, ", "))
	}
	var out []*dceFile
	for _, name := range names {
		f, err := readDiscordHeader(name)
		if err != nil {
			return nil, fmt.Errorf("%s is not a DiscordChatExporter JSON export: %v", name, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// dceStream is an export file open at its messages.
type dceStream struct {
	f   *os.File
	cr  *countingReader
	dec *json.Decoder
}

type countingReader struct {
	r   io.Reader
	n   int64
	sum *Summary
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.sum != nil {
		c.sum.Bytes += int64(n)
	}
	return n, err
}

// openDiscord opens an export file and reads its header up to the messages array.
func openDiscord(path string, sum *Summary) (*dceStream, dceHeader, error) {
	var h dceHeader
	f, err := os.Open(path)
	if err != nil {
		return nil, h, err
	}
	cr := &countingReader{r: bufio.NewReaderSize(f, 64<<10), sum: sum}
	dec := json.NewDecoder(cr)
	s := &dceStream{f: f, cr: cr, dec: dec}
	fail := func(err error) (*dceStream, dceHeader, error) {
		f.Close()
		return nil, h, err
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fail(errors.New("it is not a JSON object"))
	}
	var haveChannel bool
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fail(fmt.Errorf("it is not valid JSON: %v", err))
		}
		switch t {
		case "guild":
			err = dec.Decode(&h.Guild)
		case "channel":
			err = dec.Decode(&h.Channel)
			haveChannel = true
		case "messages":
			if !haveChannel || h.Channel.ID == "" {
				return fail(errors.New("it has no channel with an id before its messages"))
			}
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				return fail(errors.New("its messages are not an array"))
			}
			return s, h, nil
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return fail(fmt.Errorf("it is not valid JSON: %v", err))
		}
	}
	return fail(errors.New("it has no messages array"))
}

// next decodes the next message; io.EOF after the last.
func (s *dceStream) next() (*dceMessage, error) {
	if !s.dec.More() {
		return nil, io.EOF
	}
	m := new(dceMessage)
	if err := s.dec.Decode(m); err != nil {
		return nil, fmt.Errorf("%s: message after byte %d is not valid: %v", s.f.Name(), s.dec.InputOffset(), err)
	}
	t, err := time.Parse(time.RFC3339Nano, m.Timestamp)
	if err != nil || m.ID == "" {
		return nil, fmt.Errorf("%s: message %q has no id or no valid timestamp (%q)", s.f.Name(), m.ID, m.Timestamp)
	}
	m.at = t.UnixMilli()
	return m, nil
}

func (s *dceStream) close() { s.f.Close() }

func readDiscordHeader(path string) (*dceFile, error) {
	s, h, err := openDiscord(path, nil)
	if err != nil {
		return nil, err
	}
	defer s.close()
	f := &dceFile{path: path, header: h, thread: strings.Contains(h.Channel.Type, "Thread")}
	if fi, err := s.f.Stat(); err == nil {
		f.size = fi.Size()
	}
	m, err := s.next()
	switch {
	case err == nil:
		f.first = m.at
	case !errors.Is(err, io.EOF):
		return nil, err
	}
	return f, nil
}

// discordGroup is a channel and its threads.
type discordGroup struct {
	id      string
	channel *dceFile // nil when only its threads were exported
	threads []*dceFile
}

// groupDiscord puts each thread with its parent channel, in the order the channels came.
func groupDiscord(files []*dceFile) []*discordGroup {
	byID := map[string]*discordGroup{}
	var out []*discordGroup
	get := func(id string) *discordGroup {
		g := byID[id]
		if g == nil {
			g = &discordGroup{id: id}
			byID[id] = g
			out = append(out, g)
		}
		return g
	}
	for _, f := range files {
		if f.thread && f.header.Channel.CategoryID != "" {
			g := get(f.header.Channel.CategoryID)
			g.threads = append(g.threads, f)
			continue
		}
		g := get(f.header.Channel.ID)
		if g.channel == nil {
			g.channel = f
		}
	}
	for _, g := range out {
		// A thread without messages has nothing to import.
		g.threads = slices.DeleteFunc(g.threads, func(t *dceFile) bool { return t.first == 0 })
		sort.SliceStable(g.threads, func(i, j int) bool { return g.threads[i].first < g.threads[j].first })
	}
	return out
}

// discordReader turns export files into conversations.
type discordReader struct {
	d     *driver
	opts  DiscordOptions
	emoji map[string]string // Discord emoji id -> Hearth name
}

func channelKey(id string) string { return "discord/channel/" + id }
func messageKey(id string) string { return "discord/message/" + id }
func userKey(id string) string    { return "discord/user/" + id }

// group sends a channel with its threads.
func (r *discordReader) group(g *discordGroup) error {
	head := g.channel
	if head == nil {
		if len(g.threads) == 0 {
			return nil // threads without messages only
		}
		head = g.threads[0]
	}
	h := head.header.Channel
	ch := engine.ImportChannel{Key: channelKey(g.id), Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT, Name: h.Name, Topic: h.Topic, Category: h.Category}
	if g.channel == nil {
		// Only threads of this channel were exported: the channel is their parent.
		ch.Name, ch.Topic, ch.Category = h.Category, "", ""
	}
	cv := &Conversation{Channel: ch}
	if g.channel != nil && strings.HasPrefix(h.Type, "Direct") {
		keys, err := r.dmPeople(g.channel.path)
		if err != nil {
			return err
		}
		cv.Channel.Kind, cv.Channel.Name, cv.Channel.Category = svcv1.ChannelKind_CHANNEL_KIND_DM, "", ""
		cv.MemberKeys = keys
	}
	cv.Messages = func(yield func(*Message) error) error { return r.merge(g, yield) }
	return r.d.conversation(cv)
}

// dmPeople reads a DM's file once for the people who wrote in it (the export lists no members).
func (r *discordReader) dmPeople(path string) ([]string, error) {
	s, _, err := openDiscord(path, nil)
	if err != nil {
		return nil, err
	}
	defer s.close()
	var keys []string
	for {
		m, err := s.next()
		if errors.Is(err, io.EOF) {
			return keys, nil
		}
		if err != nil {
			return nil, err
		}
		r.personOf(m.Author, filepath.Dir(path))
		if k := userKey(m.Author.ID); !containsString(keys, k) {
			keys = append(keys, k)
		}
	}
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// cursor is one file of a group, read as the merge needs it.
type cursor struct {
	file  *dceFile
	order int
	s     *dceStream
	m     *dceMessage
}

type cursorHeap []*cursor

func (h cursorHeap) Len() int { return len(h) }
func (h cursorHeap) Less(i, j int) bool {
	a, b := h[i].m, h[j].m
	if a.at != b.at {
		return a.at < b.at
	}
	if x, y := snowflake(a.ID), snowflake(b.ID); x != y {
		return x < y
	}
	return h[i].order < h[j].order
}
func (h cursorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

func snowflake(id string) uint64 {
	n, _ := strconv.ParseUint(id, 10, 64)
	return n
}

// merge yields the messages of a channel and its threads in time order. A thread's file is
// opened when the merge reaches its first message and closed after its last.
func (r *discordReader) merge(g *discordGroup, yield func(*Message) error) error {
	var active cursorHeap
	defer func() {
		for _, c := range active {
			c.s.close()
		}
	}()
	open := func(f *dceFile, order int) error {
		s, _, err := openDiscord(f.path, r.d.sum)
		if err != nil {
			return fmt.Errorf("%s: %v", f.path, err)
		}
		c := &cursor{file: f, order: order, s: s}
		if err := c.advance(); err != nil {
			s.close()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		heap.Push(&active, c)
		return nil
	}
	if g.channel != nil {
		if err := open(g.channel, 0); err != nil {
			return err
		}
	}
	threadIDs := map[string]string{} // thread id -> thread name
	for _, t := range g.threads {
		threadIDs[t.header.Channel.ID] = t.header.Channel.Name
	}
	roots := map[string]string{} // thread id -> root message key
	next := 0
	for {
		for next < len(g.threads) && (len(active) == 0 || g.threads[next].first <= active[0].m.at) {
			if err := open(g.threads[next], next+1); err != nil {
				return err
			}
			next++
		}
		if len(active) == 0 {
			return nil
		}
		c := active[0]
		m := c.m
		if err := c.advance(); err != nil {
			if !errors.Is(err, io.EOF) {
				return err
			}
			heap.Pop(&active)
			c.s.close()
		} else {
			heap.Fix(&active, 0)
		}
		out := r.message(m, c.file, threadIDs, roots)
		if out == nil {
			continue
		}
		if err := yield(out); err != nil {
			return err
		}
	}
}

func (c *cursor) advance() error {
	m, err := c.s.next()
	c.m = m
	return err
}

var customEmoji = regexp.MustCompile(`<a?:([A-Za-z0-9_~\-]+):(\d+)>`)

// message turns a Discord message into an import's, or nil for one left out.
func (r *discordReader) message(m *dceMessage, f *dceFile, threadIDs, roots map[string]string) *Message {
	sum := r.d.sum
	dir := filepath.Dir(f.path)
	text := strings.NewReplacer(mentionOpen, "", mentionClose, "").Replace(m.Content)
	switch m.Type {
	case "Default", "Reply", "0", "19", "":
	case "ThreadCreated", "18":
		name := ""
		if m.Reference != nil {
			name = threadIDs[m.Reference.ChannelID]
		}
		text = "started a thread"
		if name != "" {
			text += ": **" + name + "**"
		}
	case "Call", "3":
		text = "📞 " + m.Content
	case "ThreadStarterMessage", "21", "ChannelPinnedMessage", "6", "GuildMemberJoin", "7", "RecipientAdd", "1", "RecipientRemove", "2", "ChannelNameChange", "4", "ChannelIconChange", "5":
		sum.System++
		return nil
	default:
		if strings.TrimSpace(m.Content) == "" && len(m.Attachments) == 0 {
			sum.System++
			return nil
		}
	}
	out := &Message{Author: r.personOf(m.Author, dir)}
	out.Key = messageKey(m.ID)
	out.CreatedAtMs = m.at
	if m.TimestampEdited != nil {
		if t, err := time.Parse(time.RFC3339Nano, *m.TimestampEdited); err == nil {
			out.EditedAtMs = t.UnixMilli()
		}
	}
	if m.IsPinned {
		out.PinnedAtMs = m.at
	}
	if m.Reference != nil && m.Reference.MessageID != "" && m.Type != "ThreadCreated" && m.Type != "18" {
		out.ReplyToKey = messageKey(m.Reference.MessageID)
	}
	// Threads: the root of thread T is the channel's message T, the ThreadCreated message
	// naming T, or the thread's first message.
	if _, isThread := threadIDs[m.ID]; isThread && !f.thread {
		roots[m.ID] = out.Key
	}
	if (m.Type == "ThreadCreated" || m.Type == "18") && m.Reference != nil && threadIDs[m.Reference.ChannelID] != "" {
		roots[m.Reference.ChannelID] = out.Key
	}
	if f.thread {
		tid := f.header.Channel.ID
		if root, ok := roots[tid]; ok {
			out.ThreadRootKey = root
		} else {
			roots[tid] = out.Key
			if name := f.header.Channel.Name; name != "" {
				text = "**" + name + "**\n" + text
			}
		}
	}
	// Mentions: <@id>, <@!id>, and the @name the exporter writes in their place.
	for _, u := range m.Mentions {
		k := r.personOf(u, dir)
		for _, form := range []string{"<@" + u.ID + ">", "<@!" + u.ID + ">"} {
			text = strings.ReplaceAll(text, form, Mention(k))
		}
		for _, name := range []string{u.Nickname, u.Name} {
			if name != "" {
				text = strings.ReplaceAll(text, "@"+name, Mention(k))
			}
		}
	}
	text = customEmoji.ReplaceAllStringFunc(text, func(s string) string {
		sm := customEmoji.FindStringSubmatch(s)
		return ":" + emojiName(sm[1]) + ":"
	})
	for _, e := range m.InlineEmojis {
		r.customEmoji(e, dir)
	}
	for _, a := range m.Attachments {
		if file, ok := r.localFile(dir, a.URL, "discord/attachment/"+a.ID, a.FileName); ok {
			out.Files = append(out.Files, file)
		} else {
			out.Missing = append(out.Missing, a.FileName)
		}
	}
	for i, e := range m.Embeds {
		var imgs []dceImage
		if e.Image != nil {
			imgs = append(imgs, *e.Image)
		}
		imgs = append(imgs, e.Images...)
		if e.Thumbnail != nil && len(imgs) == 0 {
			imgs = append(imgs, *e.Thumbnail)
		}
		seen := map[string]bool{}
		for j, img := range imgs {
			if img.URL == "" || seen[img.URL] {
				continue
			}
			seen[img.URL] = true
			if file, ok := r.localFile(dir, img.URL, fmt.Sprintf("discord/embed/%s/%d/%d", m.ID, i, j), path0(img.URL)); ok {
				out.Files = append(out.Files, file)
			}
		}
		if e.URL != "" && strings.Contains(text, e.URL) {
			continue // a link's preview: the link is in the text
		}
		var parts []string
		if e.Title != "" {
			parts = append(parts, "**"+e.Title+"**")
		}
		if e.Description != "" {
			parts = append(parts, e.Description)
		}
		for _, fl := range e.Fields {
			parts = append(parts, "**"+fl.Name+"**: "+fl.Value)
		}
		if e.URL != "" && len(parts) > 0 {
			parts = append(parts, e.URL)
		}
		if len(parts) > 0 {
			text = strings.TrimSpace(text + "\n" + strings.Join(parts, "\n"))
		}
	}
	for _, s := range m.Stickers {
		text = strings.TrimSpace(text + "\n[sticker: " + s.Name + "]")
	}
	for _, re := range m.Reactions {
		emoji := re.Emoji.Name
		if re.Emoji.ID != "" {
			emoji = ":" + r.customEmoji(re.Emoji, dir) + ":"
		}
		if len(re.Users) == 0 {
			sum.ReactionsUnknown++
			continue
		}
		var keys []string
		for _, u := range re.Users {
			keys = append(keys, r.personOf(u, dir))
		}
		out.Reactions = append(out.Reactions, &svcv1.Reaction{Emoji: emoji})
		out.ReactionKeys = append(out.ReactionKeys, keys)
	}
	out.Text = text
	return out
}

// path0 is the file name at the end of a path or URL.
func path0(u string) string {
	u, _, _ = strings.Cut(u, "?")
	if i := strings.LastIndexAny(u, `/\`); i >= 0 {
		return u[i+1:]
	}
	return u
}

// personOf registers a Discord user and returns their key.
func (r *discordReader) personOf(u dceUser, dir string) string {
	k := userKey(u.ID)
	if _, ok := r.d.people[k]; ok {
		return k
	}
	p := &Person{ImportPerson: engine.ImportPerson{Key: k, Username: u.Name, DisplayName: firstOf(u.Nickname, u.Name)}}
	if file, ok := r.localFile(dir, u.AvatarURL, "discord/avatar/"+u.ID, path0(u.AvatarURL)); ok {
		p.Avatar = &file
	}
	r.d.person(p)
	return k
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// customEmoji imports a custom emoji's image once, when the export holds it, and returns the
// name it goes by.
func (r *discordReader) customEmoji(e dceEmoji, dir string) string {
	if name, ok := r.emoji[e.ID]; ok || e.ID == "" {
		return name
	}
	name := emojiName(e.Name)
	r.emoji[e.ID] = name
	file, ok := r.localFile(dir, e.ImageURL, "discord/emoji/"+e.ID, name)
	if !ok {
		return name
	}
	rc, err := file.Open()
	if err != nil {
		return name
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, engine.EmojiMaxBytes+1))
	if err != nil {
		return name
	}
	got, why, err := r.d.c.emoji(r.d.ctx, name, data)
	switch {
	case err != nil || why != "":
		r.d.sum.EmojiRefused++
	default:
		r.d.sum.Emoji++
		r.emoji[e.ID] = got
		name = got
	}
	return name
}

// emojiName makes a Hearth emoji name of a Discord one: a-z, 0-9, hyphen and underscore.
func emojiName(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	out := b.String()
	if len(out) > 62 {
		out = out[:62]
	}
	if out == "" {
		out = "emoji"
	}
	return out
}

// localFile is the file an export's url field names, if it is a file of the export: a path
// relative to the export file's folder that stays inside it, or one inside MediaDir. URLs are
// never fetched.
func (r *discordReader) localFile(dir, u, key, name string) (File, bool) {
	if u == "" || strings.Contains(u, "://") {
		return File{}, false
	}
	p := filepath.FromSlash(strings.ReplaceAll(u, `\`, "/"))
	var root, rel string
	switch {
	case filepath.IsAbs(p) && r.opts.MediaDir != "":
		var err error
		if root, err = filepath.Abs(r.opts.MediaDir); err != nil {
			return File{}, false
		}
		if rel, err = filepath.Rel(root, p); err != nil {
			return File{}, false
		}
	case filepath.IsAbs(p):
		return File{}, false
	default:
		root, rel = dir, p
	}
	rel = filepath.ToSlash(rel)
	if !fs.ValidPath(rel) {
		return File{}, false
	}
	if name == "" {
		name = path0(rel)
	}
	return File{Key: key, Name: name, Open: func() (io.ReadCloser, error) {
		rt, err := os.OpenRoot(root)
		if err != nil {
			return nil, err
		}
		defer rt.Close()
		f, err := rt.Open(rel)
		if err != nil {
			return nil, err
		}
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			f.Close()
			return nil, errors.New("not a file")
		}
		return f, nil
	}}, true
}
