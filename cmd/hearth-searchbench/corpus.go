package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The corpus: chat messages of mixed lengths and languages, made up from word lists with a
// Zipf distribution (a few words everywhere, a long tail of rare ones), so that common, rare,
// prefix and phrase queries behave as they would on a real community's history.

var english = strings.Fields(`the to and a of I you it is in that for on we this be with
have are not just so do was at but can if my me will what about like all get it's up out
know think one don't time there an good now they would as from how or more i'm when make
see people no your yeah going one some then them because thanks need really here also
today work go which any too new team deploy build release meeting tomorrow issue fix bug
test review merge branch server client database query index search channel message user
thread reply file upload image link preview docs update change config option error log
metric alert latency memory cpu disk network cache queue worker job task sprint plan
design product customer support ticket feedback launch demo call lunch coffee weekend
morning afternoon week month friday monday tuesday thursday office remote home travel
great nice cool awesome sure okay right yes maybe probably actually definitely sorry
please help question answer idea problem solution feature request pull commit push tag
version stable beta nightly rollback incident outage page oncall handoff notes agenda
minutes summary draft final approve reject block unblock assign close open reopen`)

var latin = strings.Fields(`café crème brûlée naïve façade déjà vu résumé élève garçon
français été hôtel forêt œuvre cœur señor mañana niño año corazón canción pequeño
también música teléfono rápido fácil difícil Straße Grüße Mädchen Bäcker schön über
Müller Fräulein Größe Ärger São Paulo coração ação informação Łódź Kraków źródło żółw
Ørsted smørrebrød Ångström Malmö København İstanbul şehir çalışma`)

var cyrillic = strings.Fields(`привет как дела спасибо работа сервер база данных поиск
сообщение канал сегодня завтра встреча пожалуйста хорошо отлично проблема решение
москва ёлка пользователь ошибка обновление`)

var japanese = []string{"東京", "大阪", "会議", "明日", "今日", "ありがとう", "お願いします",
	"サーバー", "データベース", "検索", "メッセージ", "チャンネル", "確認", "対応", "問題",
	"解決", "リリース", "テスト", "レビュー", "よろしく", "です", "ます", "した", "ください"}

var chinese = []string{"我们", "今天", "明天", "会议", "服务器", "数据库", "搜索", "消息",
	"频道", "问题", "解决", "发布", "测试", "谢谢", "你好", "可以", "没有", "已经", "用户"}

var korean = strings.Fields(`안녕하세요 감사합니다 서버 데이터베이스 검색 메시지 채널 오늘
내일 회의 문제 해결 배포 테스트 확인 부탁드립니다 좋아요`)

var emoji = []string{"👍", "🎉", "🚀", "😂", "❤️", "🔥", "👀", "✅", "🙏", "😅", "🤔", "💯",
	"👍🏽", "🇫🇷", "🐛", "☕", "🍕", "😭", "🥳", "⚠️"}

var shortcodes = []string{":tada:", ":+1:", ":rocket:", ":eyes:", ":party_parrot:", ":shipit:",
	":white_check_mark:", ":bug:", ":coffee:", ":thinking_face:"}

var syllables = strings.Fields(`ka ro mi ta ne shu lo va ze pi dor ban tel mar qui ost
ren fal gri tho len sa ve ni co ra pe lu to mo de si ga fu je wa`)

type corpus struct {
	rng     *rand.Rand
	zipf    *rand.Zipf
	vocab   []string
	members []string
}

func newCorpus(seed uint64) *corpus {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	c := &corpus{rng: rng}
	c.vocab = append(c.vocab, english...)
	seen := map[string]bool{}
	for _, w := range english {
		seen[w] = true
	}
	// A long tail of made-up words: names, jargon, typos.
	for len(c.vocab) < 60_000 {
		n := 2 + rng.IntN(3)
		var b strings.Builder
		for range n {
			b.WriteString(syllables[rng.IntN(len(syllables))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			c.vocab = append(c.vocab, w)
		}
	}
	c.zipf = rand.NewZipf(rng, 1.07, 2, uint64(len(c.vocab)-1))
	for i := range 100 {
		c.members = append(c.members, memberID(i))
	}
	return c
}

func memberID(i int) string { return fmt.Sprintf("0190f0a0-0000-7000-8000-%012d", i) }

// words is how many words a message has: mostly short, some long.
func (c *corpus) words() int {
	switch p := c.rng.Float64(); {
	case p < 0.6:
		return 1 + c.rng.IntN(8)
	case p < 0.9:
		return 8 + c.rng.IntN(22)
	default:
		return 30 + c.rng.IntN(120)
	}
}

// message makes one message text.
func (c *corpus) message() string {
	n := c.words()
	var b strings.Builder
	lang := c.rng.Float64()
	for i := range n {
		if i > 0 && !(lang >= 0.85 && lang < 0.93) {
			b.WriteByte(' ')
		}
		switch {
		case lang < 0.72:
			b.WriteString(c.vocab[c.zipf.Uint64()])
		case lang < 0.82:
			if c.rng.IntN(2) == 0 {
				b.WriteString(latin[c.rng.IntN(len(latin))])
			} else {
				b.WriteString(c.vocab[c.zipf.Uint64()%400])
			}
		case lang < 0.85:
			b.WriteString(cyrillic[c.rng.IntN(len(cyrillic))])
		case lang < 0.90:
			b.WriteString(japanese[c.rng.IntN(len(japanese))])
			if c.rng.IntN(8) == 0 {
				b.WriteString("。")
			}
		case lang < 0.93:
			b.WriteString(chinese[c.rng.IntN(len(chinese))])
		case lang < 0.96:
			b.WriteString(korean[c.rng.IntN(len(korean))])
		default:
			// Code, links and numbers.
			switch c.rng.IntN(3) {
			case 0:
				fmt.Fprintf(&b, "https://git.example.com/%s/%s/pull/%d", c.vocab[c.zipf.Uint64()%500], c.vocab[c.zipf.Uint64()], c.rng.IntN(5000))
			case 1:
				fmt.Fprintf(&b, "`%s_%s()`", c.vocab[c.zipf.Uint64()%500], c.vocab[c.zipf.Uint64()%2000])
			default:
				fmt.Fprintf(&b, "v%d.%d.%d", c.rng.IntN(5), c.rng.IntN(30), c.rng.IntN(10))
			}
		}
		if c.rng.IntN(12) == 0 {
			b.WriteString([]string{",", ".", "!", "?", ":"}[c.rng.IntN(5)])
		}
	}
	if c.rng.IntN(10) == 0 {
		b.WriteString(" <@" + c.members[c.rng.IntN(len(c.members))] + ">")
	}
	if c.rng.IntN(7) == 0 {
		b.WriteString(" " + emoji[c.rng.IntN(len(emoji))])
	}
	if c.rng.IntN(20) == 0 {
		b.WriteString(" " + shortcodes[c.rng.IntN(len(shortcodes))])
	}
	return b.String()
}
