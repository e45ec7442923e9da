package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text shown to others as a name (display names, status texts, role, channel and community
// names, channel topics and categories) must not be able to pass for something else: a right
// to left override turns "Eve\u202enimda" into "Eveadmin" on screen, a control character can
// break a line or a terminal, and a name of zero-width characters looks like no name at all.
// So those fields refuse C0 and C1 control characters and the bidirectional override and
// isolate characters, and a value made only of spaces and invisible characters
// (docs/decisions.md, "Hardening"). Message text is not a name: it may hold newlines and tabs.

// refusedInName says why r may not appear in a shown name, or "" when it may.
func refusedInName(r rune) string {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return "control characters"
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return "bidirectional override or isolate characters"
	}
	return ""
}

// invisible reports whether r shows nothing on its own: white space, format characters (zero
// width space and joiners, the byte order mark, soft hyphen...), the other default-ignorable
// code points (Hangul fillers, variation selectors...), the blank Braille pattern, and marks
// that only combine with a character before them.
func invisible(r rune) bool {
	return unicode.Is(unicode.White_Space, r) ||
		unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Variation_Selector, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Mn, r) ||
		r == '\u2800'
}

// checkShownText checks a field shown to others as a name: valid UTF-8, at most max
// characters, none of the refused characters, and not only invisible ones. An empty value
// passes (callers that require one say so in their own words).
func checkShownText(field, s string, max int) error {
	if err := checkLen(field, s, max); err != nil {
		return err
	}
	if err := checkRefusedInName(field, s); err != nil {
		return err
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !invisible(r) }) < 0 {
		return invalid("%s must contain a visible character, not only spaces or invisible characters", field)
	}
	return nil
}

// checkRefusedInName refuses a field shown beside names (a name itself, a status emoji) that
// holds one of the characters refusedInName names.
func checkRefusedInName(field, s string) error {
	for i, r := range s {
		if why := refusedInName(r); why != "" {
			return invalid("%s must not contain %s; found U+%04X at character %d", field, why, r, utf8.RuneCountInString(s[:i])+1)
		}
	}
	return nil
}

// shownName turns a name from elsewhere (a token's name claim) into one the checks above
// accept: refused characters dropped, spaces around it trimmed, cut to max characters; empty
// when nothing visible is left.
func shownName(s string, max int) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if refusedInName(r) != "" {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > max {
		s = strings.TrimSpace(string([]rune(s)[:max]))
	}
	if strings.IndexFunc(s, func(r rune) bool { return !invisible(r) }) < 0 {
		return ""
	}
	return s
}

// CheckCommunityName checks a community name given at start (-name) by the rules
// UpdateServerSettings applies to it.
func CheckCommunityName(name string) error {
	if name == "" {
		return invalid("name must not be empty")
	}
	return checkShownText("name", name, serverNameMax)
}
