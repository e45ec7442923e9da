package engine

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on names and profile fields. API.md fixes some; the rest are ours (docs/decisions.md).
const (
	usernameMin       = 2
	usernameMax       = 32
	displayNameMax    = 64
	bioMax            = 1024
	avatarURLMax      = 2048
	statusTextMax     = 128
	statusEmojiMax    = 64 // bytes
	channelNameMax    = 80
	channelTopicMax   = 1024
	channelCategory   = 80
	serverNameMax     = 64
	descriptionMax    = 4000
	joinQuestionsMax  = 10
	joinQuestionMax   = 200
	joinAnswerMax     = 1000
	retentionDaysMax  = 36500
	roleNameMax       = 32
	clientIDMax       = 64
	messageTextMax    = 8000
	reactionsMax      = 50
	emojiBytesMax     = 64 // bytes: the longest emoji Unicode recommends are 35
	shortcodeMax      = 62
	listMessagesMax   = 200
	listMessagesDef   = 50
	attachmentsMax    = 10
	channelMembersAdd = 50
	dmOthersMax       = 8
)

var usernamePattern = regexp.MustCompile(`^[a-z0-9_.\-]{2,32}$`)

// checkUsername enforces the username alphabet (the bot username rule of API.md).
func checkUsername(field, s string) error {
	if !usernamePattern.MatchString(s) {
		return invalid("%s must be %d to %d characters of a-z, 0-9, underscore, dot and hyphen; got %q", field, usernameMin, usernameMax, s)
	}
	return nil
}

// normalizeUsername turns a claim (preferred_username, name or sub) into the username
// alphabet: lowercase, spaces become underscores, other characters are dropped, at most 32.
func normalizeUsername(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			b.WriteRune(r)
		case unicode.IsSpace(r):
			b.WriteByte('_')
		}
		if b.Len() >= usernameMax {
			break
		}
	}
	out := strings.Trim(b.String(), "_.-")
	if len(out) < usernameMin {
		return "member"
	}
	return out
}

// uniqueUsername adds the smallest numeric suffix (2, 3, ...) that makes base free.
func uniqueUsername(base string, taken func(string) bool) string {
	if !taken(base) {
		return base
	}
	for i := 2; ; i++ {
		suffix := strconv.Itoa(i)
		cand := base
		if len(cand)+len(suffix) > usernameMax {
			cand = cand[:usernameMax-len(suffix)]
		}
		if cand += suffix; !taken(cand) {
			return cand
		}
	}
}

// normalizeChannelName lowercases a channel name and joins its words with single hyphens:
// "Hello World!" becomes "hello-world". Letters and digits of any script are kept, but for the
// letters that show nothing (the Hangul fillers), which would make a name that looks empty.
func normalizeChannelName(s string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(s) {
		if (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') && !invisible(r) {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			continue
		}
		hyphen = true
	}
	return b.String()
}

// checkLen enforces a limit counted in characters (not bytes).
func checkLen(field, s string, max int) error {
	if !utf8.ValidString(s) {
		return invalid("%s is not valid UTF-8", field)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return invalid("%s is %s characters; the limit is %s", field, thousands(n), thousands(max))
	}
	return nil
}

// checkBytes enforces a limit counted in bytes.
func checkBytes(field, s string, max int) error {
	if !utf8.ValidString(s) {
		return invalid("%s is not valid UTF-8", field)
	}
	if len(s) > max {
		return invalid("%s is %d bytes; the limit is %d", field, len(s), max)
	}
	return nil
}

// checkWebURL accepts an absolute http(s) URL (or empty) up to max characters.
func checkWebURL(field, s string, max int) error {
	if s == "" {
		return nil
	}
	if err := checkLen(field, s, max); err != nil {
		return err
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return invalid("%s must be an http or https URL", field)
	}
	return nil
}

var colorPattern = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

func checkColor(field, s string) error {
	if s != "" && !colorPattern.MatchString(s) {
		return invalid("%s must be #rrggbb or empty; got %q", field, s)
	}
	return nil
}

// thousands formats 8001 as "8,001", as the API's limits are written.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	var out []byte
	for i, c := range []byte(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, c)
	}
	return string(out)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
