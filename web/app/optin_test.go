package app_test

import (
	"context"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// TestBrowserOptInSidebarHoldsJoinedChannels: in OPT_IN mode the events of a text channel reach
// everyone who sees it, joined or not (DECISIONS.md). The sidebar lists the channels the person
// is in: a channel someone else makes, or renames, stays out of it; one they join on another
// device comes into it.
func TestBrowserOptInSidebarHoldsJoinedChannels(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, ids := community(t)
	ctx := context.Background()
	mode := svcv1.ChannelMode_CHANNEL_MODE_OPT_IN
	if _, err := owner.Server.UpdateServerSettings(ctx, connect.NewRequest(&svcv1.UpdateServerSettingsRequest{ChannelMode: &mode})); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Chat.SetChannelAccess(ctx, connect.NewRequest(&svcv1.SetChannelAccessRequest{ChannelId: ids["general"], IsDefault: true})); err != nil {
		t.Fatal(err)
	}
	bob := srv.Join("bob") // joined to #general, the default channel, only

	p := openPage(t, browser, "bob", 1280, 800)
	p.signIn(srv, "bob")
	p.openChannel("general")
	// Each step ends with a message in #general: once bob sees it, he has had the step's events.
	said := func(text string) {
		t.Helper()
		if _, err := owner.Chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ids["general"], Text: text})); err != nil {
			t.Fatal(err)
		}
		p.seesOnce(text)
	}

	t.Log("a channel someone else makes, and a topic changed in one bob is not in, stay out of his sidebar")
	news, err := owner.Chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "news", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil {
		t.Fatal(err)
	}
	topic := "Anything goes"
	if _, err := owner.Chat.UpdateChannel(ctx, connect.NewRequest(&svcv1.UpdateChannelRequest{ChannelId: ids["random"], Topic: &topic})); err != nil {
		t.Fatal(err)
	}
	said("news is open")
	for _, name := range []string{"news", "random"} {
		if label := p.sideLabel(name); label != "" {
			t.Errorf("#%s is in bob's sidebar (%q), but he has not joined it", name, label)
		}
	}

	t.Log("a channel bob joins on another device comes into his sidebar")
	if _, err := bob.Chat.JoinChannel(ctx, connect.NewRequest(&svcv1.JoinChannelRequest{ChannelId: news.Msg.GetChannel().GetId()})); err != nil {
		t.Fatal(err)
	}
	p.waitFor("#news in the sidebar", `document.querySelector('.side-link[aria-label="#news"]') !== null`)
	said("welcome to news")
	if label := p.sideLabel("random"); label != "" {
		t.Errorf("#random is in bob's sidebar (%q) after the state was loaded again", label)
	}
	p.noErrors(srv.URL)
}
