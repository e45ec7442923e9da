package engine

import (
	"context"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	"hearth/engine/search"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// The community's filters (EXTENSIONS.md 6): blocked words and a most of mentions, set with
// UpdateModerationSettings and applied to the messages and edits of members below moderator
// before their change is queued. Words are matched on the terms search makes of a text
// (engine/search: case-folded, accents and compatibility forms folded, punctuation between
// words dropped, scripts without spaces in pairs of characters), so a filter sees the words as
// people write them, not their bytes: "DARN!", "darn," and "Darn" are all darn. A blocked word
// of several words matches them in a row; a trailing `*` matches any ending of the last one.

const (
	blockedWordsMax = 500
	blockedWordMax  = 50 // characters
	maxMentionsMax  = 1000
)

// GetModerationSettings returns the moderation settings (moderators and higher).
func (e *Engine) GetModerationSettings(ctx context.Context, c Caller, _ *svcv1.GetModerationSettingsRequest) (*svcv1.GetModerationSettingsResponse, error) {
	d := e.snap.Load()
	if _, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_MODERATOR, "reading the moderation settings"); err != nil {
		return nil, err
	}
	return &svcv1.GetModerationSettingsResponse{Settings: moderationView(d.Settings())}, nil
}

// moderationView is the moderation settings as the API shows them (never nil).
func moderationView(s *storepb.Settings) *svcv1.ModerationSettings {
	if m := s.GetModeration(); m != nil {
		return proto.Clone(m).(*svcv1.ModerationSettings)
	}
	return &svcv1.ModerationSettings{}
}

// UpdateModerationSettings changes the moderation settings that are set (admins and the owner).
func (e *Engine) UpdateModerationSettings(ctx context.Context, c Caller, req *svcv1.UpdateModerationSettingsRequest) (*svcv1.UpdateModerationSettingsResponse, error) {
	if !req.GetSetBlockedWords() && len(req.GetBlockedWords()) > 0 {
		return nil, invalid("blocked_words is only applied with set_blocked_words true")
	}
	var words []string
	if req.GetSetBlockedWords() {
		var err error
		if words, err = checkBlockedWords(req.GetBlockedWords()); err != nil {
			return nil, err
		}
	}
	if n := req.GetMaxMentions(); n < 0 || n > maxMentionsMax {
		return nil, invalid("max_mentions must be 0 (off) to %s; got %d", thousands(maxMentionsMax), n)
	}
	if req.Require_2FaRank != nil {
		if _, ok := svcv1.MemberRole_name[int32(req.GetRequire_2FaRank())]; !ok {
			return nil, invalid("require_2fa_rank must be MEMBER_ROLE_UNSPECIFIED (nobody), MEMBER, MODERATOR, ADMIN or OWNER; got %d", int32(req.GetRequire_2FaRank()))
		}
	}
	return submit(e, func(tx *Tx) (*svcv1.UpdateModerationSettingsResponse, error) {
		d := tx.Snap()
		if _, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, "changing the moderation settings"); err != nil {
			return nil, err
		}
		before := moderationView(d.Settings())
		after := proto.Clone(before).(*svcv1.ModerationSettings)
		if req.GetSetBlockedWords() {
			after.BlockedWords = words
		}
		if req.MaxMentions != nil {
			after.MaxMentions = req.GetMaxMentions()
		}
		if req.Require_2FaRank != nil {
			after.Require_2FaRank = req.GetRequire_2FaRank()
		}
		changed := changedFields(before, after)
		if len(changed) == 0 {
			return &svcv1.UpdateModerationSettingsResponse{Settings: after}, nil
		}
		s := proto.Clone(d.Settings()).(*storepb.Settings)
		s.Moderation = after
		if err := tx.putSettings(s); err != nil {
			return nil, err
		}
		// The words themselves stay out of the log: the settings show them to whoever may see.
		for i, f := range changed {
			switch f {
			case "blocked_words":
				changed[i] = "blocked_words (" + plural(len(after.GetBlockedWords()), "word", "words") + ")"
			case "max_mentions":
				changed[i] = "max_mentions " + itoa(int(after.GetMaxMentions()))
			case "require_2fa_rank":
				changed[i] = "require_2fa_rank " + describeRank(after.GetRequire_2FaRank())
			}
		}
		err := appendAudit(tx, &svcv1.AuditEntry{
			ActorId: c.ID,
			Action:  svcv1.AuditAction_AUDIT_ACTION_MODERATION_SETTINGS_CHANGED,
			Detail:  strings.Join(changed, ", "),
		})
		if err != nil {
			return nil, err
		}
		return &svcv1.UpdateModerationSettingsResponse{Settings: after}, nil
	})
}

// checkBlockedWords checks a list of blocked words and returns it trimmed, without repeats.
func checkBlockedWords(in []string) ([]string, error) {
	if n := len(in); n > blockedWordsMax {
		return nil, invalid("blocked_words has %s words; the limit is %d", thousands(n), blockedWordsMax)
	}
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for i, raw := range in {
		w := strings.TrimSpace(raw)
		field := "blocked_words[" + itoa(i) + "]"
		if !utf8.ValidString(w) {
			return nil, invalid("%s is not valid UTF-8", field)
		}
		if n := utf8.RuneCountInString(w); n < 1 || n > blockedWordMax {
			return nil, invalid("%s must be 1 to %d characters; it is %d", field, blockedWordMax, n)
		}
		if i := strings.IndexByte(w, '*'); i >= 0 && i != len(w)-1 {
			return nil, invalid("%s %q: `*` may only end a word (it matches any ending)", field, w)
		}
		if len(compileWord(w).terms) == 0 {
			return nil, invalid("%s %q has no letter, digit or emoji to match", field, w)
		}
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out, nil
}

// A wordPattern is a blocked word as terms: each matches a term of the text equal to it or,
// if prefix, starting with it.
type wordPattern struct {
	terms  []string
	prefix []bool
}

// compileWord makes the pattern of a blocked word. A trailing `*` makes its last term a prefix;
// so is the last character of a run of a script without spaces (search's cjkTail), which any
// character of such a run starts a term with.
func compileWord(w string) wordPattern {
	star := strings.HasSuffix(w, "*")
	var p wordPattern
	search.Tokens(strings.TrimSuffix(w, "*"), func(term string, cjkTail bool) {
		p.terms = append(p.terms, term)
		p.prefix = append(p.prefix, cjkTail)
	})
	if star && len(p.prefix) > 0 {
		p.prefix[len(p.prefix)-1] = true
	}
	return p
}

// A wordFilter finds blocked words in a text: the patterns by their first term (exact), or by
// its length in bytes when it is a prefix, so that each term of a text costs a few map lookups
// whatever the number of words.
type wordFilter struct {
	exact   map[string][]wordPattern
	prefix  map[int]map[string][]wordPattern
	lengths []int
}

func newWordFilter(words []string) *wordFilter {
	f := &wordFilter{exact: map[string][]wordPattern{}, prefix: map[int]map[string][]wordPattern{}}
	for _, w := range words {
		p := compileWord(w)
		if len(p.terms) == 0 {
			continue
		}
		first := p.terms[0]
		if !p.prefix[0] {
			f.exact[first] = append(f.exact[first], p)
			continue
		}
		n := len(first)
		if f.prefix[n] == nil {
			f.prefix[n] = map[string][]wordPattern{}
			f.lengths = append(f.lengths, n)
		}
		f.prefix[n][first] = append(f.prefix[n][first], p)
	}
	return f
}

// matches reports whether a text holds a blocked word.
func (f *wordFilter) matches(text string) bool {
	if len(f.exact) == 0 && len(f.lengths) == 0 {
		return false
	}
	var terms []string
	search.Tokens(text, func(term string, _ bool) { terms = append(terms, term) })
	for i, t := range terms {
		for _, p := range f.exact[t] {
			if p.matchAt(terms, i) {
				return true
			}
		}
		for _, n := range f.lengths {
			if len(t) < n {
				continue
			}
			for _, p := range f.prefix[n][t[:n]] {
				if p.matchAt(terms, i) {
					return true
				}
			}
		}
	}
	return false
}

// matchAt reports whether the pattern matches the terms from i on.
func (p wordPattern) matchAt(terms []string, i int) bool {
	if i+len(p.terms) > len(terms) {
		return false
	}
	for k, want := range p.terms {
		got := terms[i+k]
		if p.prefix[k] {
			if !strings.HasPrefix(got, want) {
				return false
			}
		} else if got != want {
			return false
		}
	}
	return true
}

// filterCache holds the word filter of the moderation settings it was made from: settings
// change rarely, messages often.
type filterCache struct {
	settings *svcv1.ModerationSettings
	words    *wordFilter
}

type filters struct{ p atomic.Pointer[filterCache] }

// wordFilter is the filter of the settings given, made once per settings.
func (e *Engine) wordFilter(m *svcv1.ModerationSettings) *wordFilter {
	if fc := e.filters.p.Load(); fc != nil && fc.settings == m {
		return fc.words
	}
	fc := &filterCache{settings: m, words: newWordFilter(m.GetBlockedWords())}
	e.filters.p.Store(fc)
	return fc.words
}

// filterRule is the filter a text breaks, named for the refusal and the audit log ("" when
// none): the words are never named, so that a refusal teaches nothing of the list.
func (e *Engine) filterRule(m *svcv1.ModerationSettings, text string) (rule, msg string) {
	if max := int(m.GetMaxMentions()); max > 0 {
		if n := mentionCount(text); n > max {
			return "max_mentions", "text mentions " + itoa(n) + " members or groups; this community allows at most " + itoa(max) + " in a message (max_mentions)"
		}
	}
	if len(m.GetBlockedWords()) > 0 && e.wordFilter(m).matches(text) {
		return "blocked_words", "text holds a word this community does not allow (blocked_words)"
	}
	return "", ""
}

// mentionCount counts the distinct mentions of a text: members (<@id>), <!here> and
// <!everyone>.
func mentionCount(text string) int {
	n := len(mentionedIDs(text))
	for _, g := range []string{"<!here>", "<!everyone>"} {
		if strings.Contains(text, g) {
			n++
		}
	}
	return n
}
