package web_test

import (
	"bytes"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// TestABannedLoginIsToldItIsBanned: a banned login was told to call Join first, which it cannot
// do. Every call but GetServerInfo, streams and uploads included, now says it is banned; after
// an unban the login can join again.
func TestABannedLoginIsToldItIsBanned(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	owner := s.Join("owner")
	bob := s.Join("bob")
	ch := mustChannel(t, owner, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	if _, err := owner.Server.BanMember(ctx, req(&svcv1.BanMemberRequest{MemberId: bob.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	const says = "you are banned from this community"
	calls := map[string]error{}
	_, calls["GetMe"] = bob.Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	_, calls["GetState"] = bob.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
	_, calls["SendMessage"] = bob.Chat.SendMessage(ctx, req(&svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "hi"}))
	_, calls["Join"] = bob.Server.Join(ctx, req(&svcv1.JoinRequest{}))
	_, calls["UpdateProfile"] = bob.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{DisplayName: ptr("Bob")}))
	stream, err := bob.Chat.Subscribe(ctx, req(&svcv1.SubscribeRequest{}))
	if err == nil {
		for stream.Receive() {
		}
		err = stream.Err()
	}
	calls["Subscribe"] = err
	for name, err := range calls {
		wantCode(t, name+" of a banned login", err, connect.CodePermissionDenied, says)
	}
	res := postUpload(t, s, bob.Token, part{form: "file", file: "a.txt", body: bytes.NewReader([]byte("a"))})
	wantRefused(t, "an upload of a banned login", res, http.StatusForbidden, says)
	if _, err := bob.Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{})); err != nil {
		t.Fatalf("GetServerInfo of a banned login: %v", err)
	}

	if _, err := owner.Server.UnbanMember(ctx, req(&svcv1.UnbanMemberRequest{MemberId: bob.Member.GetId()})); err != nil {
		t.Fatal(err)
	}
	_, err = bob.Server.GetMe(ctx, req(&svcv1.GetMeRequest{}))
	wantCode(t, "GetMe after the unban, before joining", err, connect.CodePermissionDenied, "call Join first")
	_, err = bob.Server.Join(ctx, req(&svcv1.JoinRequest{}))
	wantOK(t, "Join after the unban", err)
}

// TestSeventeenthStreamEndsTheOldest: one token opened 5,000 Subscribe streams. A member may
// have 16 open; opening a 17th ends their oldest with resource_exhausted, and every other stream,
// theirs and other members', goes on.
func TestSeventeenthStreamEndsTheOldest(t *testing.T) {
	t.Parallel()
	s := webtest.Start(t)
	alice := s.Join("alice")
	bob := s.Join("bob")
	ch := mustChannel(t, alice, "general", svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	open := func(c *webtest.Client) *webtest.Stream {
		st := c.Subscribe(t, s.Engine.Seq())
		// The heartbeat says the server has the stream (and in which order).
		st.Ephemeral = true
		if ev := st.Next(); !ev.GetHeartbeat() {
			t.Fatalf("a stream opened with %v", ev)
		}
		st.Ephemeral = false
		return st
	}
	var streams []*webtest.Stream
	for range 17 {
		streams = append(streams, open(alice))
	}
	bobs := open(bob)
	wantCode(t, "the oldest of 17 streams", streams[0].Ended(), connect.CodeResourceExhausted, "too many open streams")
	m := mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "to every open stream"})
	for i, st := range append(streams[1:], bobs) {
		if ev := st.Next(); ev.GetMessageCreated().GetId() != m.GetId() {
			t.Fatalf("stream %d got %v", i+1, ev)
		}
	}
	// Closing one makes room: a new one ends nobody's.
	streams[1].Close()
	streams = append(streams, open(alice))
	m = mustSend(t, alice, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), Text: "again"})
	for i, st := range streams[2:] {
		if ev := st.Next(); ev.GetMessageCreated().GetId() != m.GetId() {
			t.Fatalf("stream %d after a close got %v", i+2, ev)
		}
	}
}
