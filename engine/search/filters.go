package search

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Search filters (EXTENSIONS.md 5): from:, in:, has:, is:pinned, mentions:me, before:, after:.
// Each is answered from the posting lists, as the words are: a message is also indexed under
// terms that no text makes (they start with a control character, as stems and pairs do) for
// its author, its channel, its files, images and links, whether it is pinned and whom it
// mentions, and the index keeps the bounds of each day's documents (days.go), so that the
// documents of a range of days are within a range of documents: the lists are walked from the
// highest document before the range's end down to the lowest in it, never past them. Every candidate is checked
// against the message as stored, filters included, as for the words.

// filterMark starts every filter term; no word holds it.
const filterMark = "\x04"

// AuthorTerm is the term of the messages a member wrote.
func AuthorTerm(memberID string) string { return filterMark + "from " + memberID }

// ChannelTerm is the term of the messages of a channel: a search narrowed to one channel walks
// it, so that a small channel is not looked for among the lists of the whole history.
func ChannelTerm(channelID string) string { return filterMark + "in " + channelID }

// MentionTerm is the term of the messages that mention a member: a <@id> in the text, or a
// reply to one of the member's messages.
func MentionTerm(memberID string) string { return filterMark + "at " + memberID }

// Filter terms without an argument.
const (
	everyoneTerm = filterMark + "at !everyone"
	hereTerm     = filterMark + "at !here"
	fileTerm     = filterMark + "has file"
	imageTerm    = filterMark + "has image"
	linkTerm     = filterMark + "has link"
	pinnedTerm   = filterMark + "is pinned"
)

// Filter is what a query's filter words ask for.
type Filter struct {
	// From and In are as typed (from:NAME, in:NAME or in:ID), lower case, without a leading @
	// or #; MentionsMe is mentions:me. The caller resolves them into AuthorID, ChannelID and
	// MentionsID (a member's and a channel's ids) before the query runs.
	From, In   string
	MentionsMe bool

	AuthorID, ChannelID, MentionsID string
	HasFile, HasImage, HasLink      bool
	Pinned                          bool
	// AfterMs and BeforeMs bound created_at_ms: at or after AfterMs, before BeforeMs; 0 leaves
	// that end open.
	AfterMs, BeforeMs int64
}

// empty reports a filter that asks for nothing.
func (f *Filter) empty() bool { return *f == Filter{} }

// filterKeys are the filter words; any other word with a colon is text.
var filterKeys = map[string]bool{"from": true, "in": true, "has": true, "is": true, "mentions": true, "before": true, "after": true}

// FilterError is a filter word the query cannot take.
type FilterError struct{ Msg string }

func (e *FilterError) Error() string { return e.Msg }

func filterErr(format string, args ...any) error {
	return &FilterError{Msg: fmt.Sprintf(format, args...)}
}

// splitFilter reads a word as a filter: its key (lower case) and value, or ok false for text.
func splitFilter(word string) (key, value string, ok bool) {
	k, v, found := strings.Cut(word, ":")
	if !found {
		return "", "", false
	}
	k = strings.ToLower(k)
	if !filterKeys[k] {
		return "", "", false
	}
	return k, v, true
}

const dayMs = 24 * 60 * 60 * 1000

// add takes one filter word; seen holds the words taken so far.
func (f *Filter) add(word, key, value string, seen map[string]bool) error {
	id := key + ":" + strings.ToLower(value)
	if key == "from" || key == "in" || key == "mentions" || key == "before" || key == "after" {
		id = key
	}
	if seen[id] {
		return filterErr("%s may be used once in a query", quoteWord(key+":"))
	}
	seen[id] = true
	if value == "" {
		return filterErr("%s needs a value (%s)", quoteWord(word), filterHelp[key])
	}
	switch key {
	case "from":
		f.From = strings.ToLower(strings.TrimPrefix(value, "@"))
	case "in":
		f.In = strings.ToLower(strings.TrimPrefix(value, "#"))
	case "has":
		switch strings.ToLower(value) {
		case "file":
			f.HasFile = true
		case "image":
			f.HasImage = true
		case "link":
			f.HasLink = true
		default:
			return filterErr("%s: has: takes file, image or link", quoteWord(word))
		}
	case "is":
		if strings.ToLower(value) != "pinned" {
			return filterErr("%s: is: takes pinned", quoteWord(word))
		}
		f.Pinned = true
	case "mentions":
		if strings.ToLower(value) != "me" {
			return filterErr("%s: mentions: takes me", quoteWord(word))
		}
		f.MentionsMe = true
	case "before", "after":
		day, err := time.ParseInLocation("2006-01-02", value, time.UTC)
		if err != nil {
			return filterErr("%s is not a date: %s takes a day as YYYY-MM-DD (UTC)", quoteWord(word), key+":")
		}
		if key == "before" {
			f.BeforeMs = day.UnixMilli()
		} else {
			// after: excludes its own day.
			f.AfterMs = day.UnixMilli() + dayMs
		}
	}
	return nil
}

var filterHelp = map[string]string{
	"from": "a username", "in": "a channel name or id", "has": "file, image or link",
	"is": "pinned", "mentions": "me", "before": "a day as YYYY-MM-DD", "after": "a day as YYYY-MM-DD",
}

// quoteWord quotes a word of the query for an error message, cut to 64 characters.
func quoteWord(w string) string {
	if r := []rune(w); len(r) > 64 {
		w = string(r[:64]) + "…"
	}
	return fmt.Sprintf("%q", w)
}

// Narrow narrows the filter to one channel (SearchRequest.channel_id); false when its in:
// names another one, and nothing can match.
func (f *Filter) Narrow(channelID string) bool {
	if f.ChannelID != "" && f.ChannelID != channelID {
		return false
	}
	f.ChannelID = channelID
	return true
}

// terms are the terms every match holds.
func (f *Filter) terms() []string {
	var out []string
	if f.AuthorID != "" {
		out = append(out, AuthorTerm(f.AuthorID))
	}
	if f.ChannelID != "" {
		out = append(out, ChannelTerm(f.ChannelID))
	}
	if f.HasFile {
		out = append(out, fileTerm)
	}
	if f.HasImage {
		out = append(out, imageTerm)
	}
	if f.HasLink {
		out = append(out, linkTerm)
	}
	if f.Pinned {
		out = append(out, pinnedTerm)
	}
	return out
}

// anyOf are the groups of terms a match holds one of each.
func (f *Filter) anyOf() [][]string {
	if f.MentionsID == "" {
		return nil
	}
	return [][]string{{MentionTerm(f.MentionsID), everyoneTerm, hereTerm}}
}

// inTime reports whether a creation time is inside the filter's days.
func (f *Filter) inTime(atMs int64) bool {
	return (f.AfterMs == 0 || atMs >= f.AfterMs) && (f.BeforeMs == 0 || atMs < f.BeforeMs)
}

// matches checks a candidate against the filter: the message as stored now, and its channel
// log entry (created_seq is the document).
func (f *Filter) matches(r *store.Reader, m *svcv1.Message, e *storepb.MessageEntry) (bool, error) {
	switch {
	case f.AuthorID != "" && m.GetAuthorId() != f.AuthorID,
		f.ChannelID != "" && m.GetChannelId() != f.ChannelID,
		f.HasFile && len(m.GetAttachments()) == 0,
		f.HasImage && !hasImage(m),
		f.HasLink && !HasLink(m.GetText()),
		f.Pinned && m.GetPinnedAtMs() == 0,
		!f.inTime(m.GetCreatedAtMs()):
		return false, nil
	}
	if id := f.MentionsID; id != "" {
		if m.GetAuthorId() == id {
			return false, nil
		}
		return r.Mentions(m.GetChannelId(), m.GetCreatedSeq(), e, id)
	}
	return true, nil
}

func hasImage(m *svcv1.Message) bool {
	return slices.ContainsFunc(m.GetAttachments(), func(a *svcv1.Attachment) bool {
		return strings.HasPrefix(a.GetContentType(), "image/")
	})
}

// HasLink reports whether a text holds an http(s) link as the link previews find them (the
// regular expression (?i)\bhttps?://[^\s<>"`]), without a regular expression: it runs in
// the writer for every message.
func HasLink(text string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], "://")
		if j < 0 {
			return false
		}
		j += i
		i = j + 3
		if i >= len(text) || strings.IndexByte(" \t\n\f\r<>\"`", text[i]) >= 0 {
			continue
		}
		var start int
		switch {
		case j >= 5 && strings.EqualFold(text[j-5:j], "https"):
			start = j - 5
		case j >= 4 && strings.EqualFold(text[j-4:j], "http"):
			start = j - 4
		default:
			continue
		}
		// \b: no ASCII word character before the scheme.
		if start == 0 || !isASCIIWord(text[start-1]) && text[start-1] != '_' {
			return true
		}
	}
}

// MentionIDs scans a text for `<@member_id>` mentions (36 of 0-9, a-f, A-F and -) and returns
// their ids, in lower case, once each, in order.
func MentionIDs(text string) []string {
	var out []string
	for i := 0; ; {
		j := strings.Index(text[i:], "<@")
		if j < 0 {
			return out
		}
		i += j + 2
		if len(text) < i+37 || text[i+36] != '>' {
			continue
		}
		id := text[i : i+36]
		if strings.IndexFunc(id, func(r rune) bool { return !isHexOrHyphen(r) }) >= 0 {
			continue
		}
		if id = strings.ToLower(id); !slices.Contains(out, id) {
			out = append(out, id)
		}
		i += 37
	}
}

func isHexOrHyphen(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' || r == '-'
}

// filterTerms are the filter terms of a message as stored, sorted.
func filterTerms(m *svcv1.Message) []string {
	out := []string{AuthorTerm(m.GetAuthorId()), ChannelTerm(m.GetChannelId())}
	if len(m.GetAttachments()) > 0 {
		out = append(out, fileTerm)
		if hasImage(m) {
			out = append(out, imageTerm)
		}
	}
	if HasLink(m.GetText()) {
		out = append(out, linkTerm)
	}
	if m.GetPinnedAtMs() != 0 {
		out = append(out, pinnedTerm)
	}
	for _, id := range MentionIDs(m.GetText()) {
		out = append(out, MentionTerm(id))
	}
	if a := m.GetReplyTo().GetAuthorId(); a != "" && a != m.GetAuthorId() {
		out = append(out, MentionTerm(a))
	}
	if m.GetMentionsEveryone() {
		out = append(out, everyoneTerm)
	}
	if m.GetMentionsHere() {
		out = append(out, hereTerm)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// withFilterTerms adds a message's filter terms to the Doc of its text (they take no position).
func withFilterTerms(d Doc, m *svcv1.Message) Doc {
	extra := filterTerms(m)
	out := Doc{Terms: make([]string, 0, len(d.Terms)+len(extra)), Masks: make([]uint32, 0, len(d.Terms)+len(extra))}
	i, j := 0, 0
	for i < len(d.Terms) || j < len(extra) {
		switch {
		case j == len(extra) || i < len(d.Terms) && d.Terms[i] < extra[j]:
			out.Terms = append(out.Terms, d.Terms[i])
			out.Masks = append(out.Masks, maskAt(d.Masks, i))
			i++
		case i == len(d.Terms) || extra[j] < d.Terms[i]:
			out.Terms = append(out.Terms, extra[j])
			out.Masks = append(out.Masks, 0)
			j++
		default: // the same term (never: no word starts with filterMark)
			out.Terms = append(out.Terms, d.Terms[i])
			out.Masks = append(out.Masks, maskAt(d.Masks, i))
			i++
			j++
		}
	}
	return out
}

func maskAt(masks []uint32, i int) uint32 {
	if i < len(masks) {
		return masks[i]
	}
	return 0
}

// Fields are the texts of a message searched besides its text: its files' names, and its
// poll's question and options.
func Fields(m *svcv1.Message) []string {
	out := FileNames(m)
	if p := m.GetPoll(); p != nil {
		out = append(out, p.GetQuestion())
		for _, o := range p.GetOptions() {
			out = append(out, o.GetText())
		}
	}
	return out
}

// Resolver finds what from: and in: name.
type Resolver interface {
	// Member is the id of the member with a username (lower case), of any standing: a member
	// who left still wrote what they wrote.
	Member(username string) (string, bool)
	// Channel is the id of a channel the caller sees, by id or by name.
	Channel(nameOrID string) (string, bool)
}

// Resolve fills the filter's ids from its names; me is the caller (mentions:me). An unknown
// username or channel is a FilterError naming it.
func (q *Query) Resolve(res Resolver, me string) error {
	f := &q.Filter
	if f.From != "" {
		id, ok := res.Member(f.From)
		if !ok {
			return filterErr("from:%s: no member has this username", clip(f.From))
		}
		f.AuthorID = id
	}
	if f.In != "" {
		id, ok := res.Channel(f.In)
		if !ok {
			return filterErr("in:%s: no channel you can see has this name or id", clip(f.In))
		}
		f.ChannelID = id
	}
	if f.MentionsMe {
		f.MentionsID = me
	}
	return nil
}

func clip(s string) string {
	if r := []rune(s); len(r) > 64 {
		return string(r[:64]) + "…"
	}
	return s
}
