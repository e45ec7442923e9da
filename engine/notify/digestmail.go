package notify

import (
	"html/template"
	"strconv"
	"strings"

	"hearth/engine"
	"hearth/engine/mail"
)

// A digest's email: plain text and a simple HTML alternative, one section per channel (or DM)
// in the order they were first written in, each message a line with its link, and a footer
// that says how to turn the emails off.

// settingsPath is the client's notification settings, which the footer links to.
const settingsPath = "/#/settings/notifications"

// digestView is what both forms of the email show.
type digestView struct {
	Name, Intro, Community string
	Sections               []digestSection
	More                   int64
	AppURL, SettingsURL    string
}

type digestSection struct {
	Title string
	Lines []digestLine
}

// digestLine is one message: Lead ("alice in #general", or "New message in #general" when
// the member hides content), Text (empty when hidden) and the link to it.
type digestLine struct {
	Lead, Text, URL string
}

// mail makes the email of a digest.
func (g *digests) mail(to string, dg *engine.Digest, entries []engine.DigestEntry, hide bool) mail.Message {
	s := g.s
	community := strings.Join(strings.Fields(s.eng.ServerInfo().GetName()), " ")
	if community == "" {
		community = "Hearth"
	}
	v := digestView{
		Name:        dg.Name,
		Community:   community,
		More:        dg.Dropped,
		AppURL:      s.webURL + "/",
		SettingsURL: s.webURL + settingsPath,
	}
	mentions, dms := 0, 0
	at := map[string]int{}
	for _, en := range entries {
		if en.DM {
			dms++
		} else {
			mentions++
		}
		i, ok := at[en.ChannelID]
		if !ok {
			i = len(v.Sections)
			at[en.ChannelID] = i
			title := en.Title
			if en.DM {
				title = "Direct messages with " + en.Title
			}
			v.Sections = append(v.Sections, digestSection{Title: title})
		}
		v.Sections[i].Lines = append(v.Sections[i].Lines, digestLine{
			Lead: lead(en, hide),
			Text: text(en, hide),
			URL:  s.messageURL(en.ChannelID, en.MessageID, en.ThreadRootID),
		})
	}
	var counts []string
	if mentions > 0 {
		counts = append(counts, count(mentions, "new mention", "new mentions"))
	}
	if dms > 0 {
		counts = append(counts, count(dms, "new direct message", "new direct messages"))
	}
	what := strings.Join(counts, " and ")
	v.Intro = "Still unread in " + community + ": " + what + "."
	return mail.Message{
		To: to,
		// The counts and a community name of at most 64 characters: well within SubjectMax.
		Subject: what + " in " + community,
		Text:    digestText(v),
		HTML:    digestHTML(v),
	}
}

func lead(en engine.DigestEntry, hide bool) string {
	switch {
	case hide && en.DM:
		return "New direct message"
	case hide:
		return "New message in " + en.Title
	case en.DM:
		return en.Author + " in a direct message"
	}
	return en.Author + " in " + en.Title
}

func text(en engine.DigestEntry, hide bool) string {
	if hide {
		return ""
	}
	return en.Text
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func digestText(v digestView) string {
	var b strings.Builder
	b.WriteString("Hi " + v.Name + ",\n\n" + v.Intro + "\n")
	for _, sec := range v.Sections {
		b.WriteString("\n" + sec.Title + "\n")
		for _, l := range sec.Lines {
			b.WriteString("- " + l.Lead)
			if l.Text != "" {
				b.WriteString(": " + l.Text)
			}
			b.WriteString("\n  " + l.URL + "\n")
		}
	}
	if v.More > 0 {
		b.WriteString("\nAnd " + strconv.FormatInt(v.More, 10) + " more that did not fit in this email.\n")
	}
	b.WriteString("\nOpen " + v.Community + ": " + v.AppURL + "\n\n-- \n" +
		"You get this email because email notifications are on in your notification settings in " + v.Community +
		". To turn them off: " + v.SettingsURL + "\n")
	return b.String()
}

var digestPage = template.Must(template.New("digest").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #222; max-width: 40em">
<p>Hi {{.Name}},</p>
<p>{{.Intro}}</p>
{{range .Sections}}<h3 style="margin: 1.2em 0 .3em; font-size: 1em">{{.Title}}</h3>
<ul style="margin: 0; padding-left: 1.2em">
{{range .Lines}}<li><a href="{{.URL}}" style="color: inherit"><strong>{{.Lead}}</strong>{{if .Text}}: {{.Text}}{{end}}</a></li>
{{end}}</ul>
{{end}}{{if .More}}<p>And {{.More}} more that did not fit in this email.</p>
{{end}}<p><a href="{{.AppURL}}">Open {{.Community}}</a></p>
<p style="color: #666; font-size: .85em">You get this email because email notifications are on in your
<a href="{{.SettingsURL}}" style="color: inherit">notification settings</a> in {{.Community}}. Turn them off there.</p>
</body></html>
`))

func digestHTML(v digestView) string {
	var b strings.Builder
	if err := digestPage.Execute(&b, v); err != nil {
		// The template is fixed and the view plain strings: it cannot fail.
		panic(err)
	}
	return b.String()
}
