package web_test

import (
	"slices"
	"testing"

	svcv1 "hearth/proto/svc/v1"
)

// TestSearchUnifiesHalfWidthKana: half-width katakana are a compatibility form of the
// full-width ones, voicing marks included (ｶﾞ is ガ), so either spelling finds both.
func TestSearchUnifiesHalfWidthKana(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	general := c.channel("general")
	full := c.send(c.owner, general.GetId(), "ガイドを読む")
	half := c.send(c.owner, general.GetId(), "ｶﾞｲﾄﾞを読む")
	bread := c.send(c.owner, general.GetId(), "ﾊﾟﾝが好き")
	for _, tc := range []struct {
		query string
		want  []*svcv1.Message
	}{
		{"ガイド", []*svcv1.Message{half, full}},
		{"ｶﾞｲﾄﾞ", []*svcv1.Message{half, full}},
		{`"ガイドを"`, []*svcv1.Message{half, full}},
		{"パン", []*svcv1.Message{bread}},
		{"ガ", []*svcv1.Message{half, full}},
		{"カ", nil}, // カ is not ガ
	} {
		if got := searchIDs(t, c.owner, &svcv1.SearchRequest{Query: tc.query}); !slices.Equal(got, ids(tc.want...)) {
			t.Errorf("Search(%q) = %v, want %v", tc.query, got, ids(tc.want...))
		}
	}
}
