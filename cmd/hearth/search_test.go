package main

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"hearth/auth"
	svcv1 "hearth/proto/svc/v1"
	"hearth/proto/svc/v1/svcv1connect"
)

// TestSearchFindsEveryAcknowledgedSendAfterKill9 builds hearth, sends, edits and deletes
// messages, kills the process with SIGKILL right after the last acknowledgement (before the
// index has folded anything into its lists), starts it again on the same data and searches:
// every acknowledged message is found, by its current text only, and the deleted one is not.
func TestSearchFindsEveryAcknowledgedSendAfterKill9(t *testing.T) {
	t.Parallel()
	bin := hearthBinary(t)
	data := t.TempDir()
	const base = "http://chat.test"
	srv, url := startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0", "-base-url", base)
	tok, err := exec.Command(bin, "token", "-data", data, "-base-url", base, "-sub", "alice").Output()
	if err != nil {
		t.Fatalf("hearth token: %v", err)
	}
	bearer := connect.WithInterceptors(auth.WithBearer(strings.TrimSpace(string(tok))))
	ctx := context.Background()
	clients := func(url string) (svcv1connect.ServerServiceClient, svcv1connect.ChatServiceClient) {
		return svcv1connect.NewServerServiceClient(http.DefaultClient, url, bearer),
			svcv1connect.NewChatServiceClient(http.DefaultClient, url, bearer)
	}
	server, chat := clients(url)
	if _, err := server.Join(ctx, connect.NewRequest(&svcv1.JoinRequest{})); err != nil {
		t.Fatal(err)
	}
	ch, err := chat.CreateChannel(ctx, connect.NewRequest(&svcv1.CreateChannelRequest{Name: "general", Kind: svcv1.ChannelKind_CHANNEL_KIND_TEXT}))
	if err != nil {
		t.Fatal(err)
	}
	var sent []string
	for i := range 8 {
		res, err := chat.SendMessage(ctx, connect.NewRequest(&svcv1.SendMessageRequest{ChannelId: ch.Msg.GetChannel().GetId(), Text: fmt.Sprintf("kiwi number %d", i)}))
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, res.Msg.GetMessage().GetId())
	}
	if _, err := chat.EditMessage(ctx, connect.NewRequest(&svcv1.EditMessageRequest{MessageId: sent[3], Text: "mango instead"})); err != nil {
		t.Fatal(err)
	}
	if _, err := chat.DeleteMessage(ctx, connect.NewRequest(&svcv1.DeleteMessageRequest{MessageId: sent[5]})); err != nil {
		t.Fatal(err)
	}
	if err := srv.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	srv.wait(10 * time.Second)

	_, url = startBinary(t, bin, "-data", data, "-addr", "127.0.0.1:0", "-base-url", base)
	_, chat = clients(url)
	find := func(q string) []string {
		t.Helper()
		res, err := chat.Search(ctx, connect.NewRequest(&svcv1.SearchRequest{Query: q}))
		if err != nil {
			t.Fatalf("Search(%q): %v", q, err)
		}
		var ids []string
		for _, m := range res.Msg.GetMessages() {
			ids = append(ids, m.GetId())
		}
		return ids
	}
	want := []string{sent[7], sent[6], sent[4], sent[2], sent[1], sent[0]}
	if got := find("kiwi"); !slices.Equal(got, want) {
		t.Fatalf("after kill -9, kiwi: %v, want %v", got, want)
	}
	if got := find("mango"); !slices.Equal(got, []string{sent[3]}) {
		t.Fatalf("after kill -9, the edit's new word: %v", got)
	}
}
