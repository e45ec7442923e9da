package web_test

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// wantImageURL checks that u is a fresh signed URL of the upload, and that it fetches it.
func wantImageURL(t *testing.T, what string, s *webtest.Server, clock *webtest.Clock, u string, of *svcv1.Attachment) {
	t.Helper()
	if !strings.HasPrefix(u, "/files/"+of.GetId()+"/") {
		t.Errorf("%s: %q is not a URL of upload %s", what, u, of.GetId())
		return
	}
	if d := urlExpiry(t, u).Sub(clock.Now()); d < time.Hour || d > 2*time.Hour {
		t.Errorf("%s: expires in %v", what, d)
	}
	if f := fetch(t, s, http.MethodGet, u); f.status != 200 || int64(len(f.body)) != of.GetSize() || f.header.Get("Content-Type") != of.GetContentType() {
		t.Errorf("%s: GET %d, %d bytes, %q", what, f.status, len(f.body), f.header.Get("Content-Type"))
	}
}

// wantGone checks that an upload's file is deleted.
func wantGone(t *testing.T, what string, s *webtest.Server, a *svcv1.Attachment) {
	t.Helper()
	if inBucket(t, s, a.GetId()) {
		t.Errorf("%s: upload %s is still in the bucket", what, a.GetId())
	}
}

func TestSettingsImages(t *testing.T) {
	t.Parallel()
	forBuckets(t, func(t *testing.T, bucket webtest.Option) {
		c := newCommunity(t, bucket)
		s, clock, owner := c.s, c.clock, c.owner
		bob := c.join("bob")
		ch := c.channel("general")
		st := bob.Subscribe(t, s.Engine.Seq())
		icon := mustUpload(t, s, owner, "icon.png", pngImage(t, 64, 64))
		banner := mustUpload(t, s, owner, "banner.png", pngImage(t, 120, 40))

		// The community's icon and banner: public, like the rest of the server's card.
		_, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{IconId: ptr(icon.GetId()), BannerId: ptr(banner.GetId())}))
		wantOK(t, "icon and banner", err)
		info, err := s.Client("").Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
		wantOK(t, "GetServerInfo", err)
		wantImageURL(t, "icon_url", s, clock, info.Msg.GetIconUrl(), icon)
		if b := info.Msg.GetBanner(); b.GetWidth() != 120 || b.GetHeight() != 40 || b.GetContentType() != "image/png" {
			t.Errorf("banner %v", b)
		}
		wantImageURL(t, "banner", s, clock, info.Msg.GetBanner().GetUrl(), banner)
		if !st.Next().GetServerUpdated() {
			t.Error("no server_updated")
		}
		// Still valid hours later: the setting keeps the upload, not a URL.
		clock.Advance(5 * time.Hour)
		info, _ = s.Client("").Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
		wantImageURL(t, "icon_url later", s, clock, info.Msg.GetIconUrl(), icon)

		// Replacing an image deletes the old file; an empty id removes it.
		icon2 := mustUpload(t, s, owner, "icon2.png", pngImage(t, 32, 32))
		_, err = owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{IconId: ptr(icon2.GetId()), BannerId: ptr("")}))
		wantOK(t, "replace the icon, remove the banner", err)
		info, _ = s.Client("").Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
		wantImageURL(t, "the new icon", s, clock, info.Msg.GetIconUrl(), icon2)
		if info.Msg.GetBanner() != nil {
			t.Errorf("the removed banner is %v", info.Msg.GetBanner())
		}
		wantGone(t, "the replaced icon", s, icon)
		wantGone(t, "the removed banner", s, banner)

		// A channel header: in the response, GetState and channel_updated.
		header := mustUpload(t, s, owner, "header.png", pngImage(t, 200, 50))
		res, err := owner.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: ch.GetId(), HeaderImageId: ptr(header.GetId())}))
		wantOK(t, "header image", err)
		wantImageURL(t, "UpdateChannel", s, clock, res.Msg.GetChannel().GetHeaderImage().GetUrl(), header)
		st.Until(func(ev *svcv1.Event) bool {
			if u := ev.GetChannelUpdated(); u != nil {
				wantImageURL(t, "channel_updated", s, clock, u.GetHeaderImage().GetUrl(), header)
				return true
			}
			return false
		})
		state, err := bob.Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
		wantOK(t, "GetState", err)
		wantImageURL(t, "GetState", s, clock, state.Msg.GetChannels()[0].GetHeaderImage().GetUrl(), header)
		_, err = owner.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: ch.GetId(), HeaderImageId: ptr("")}))
		wantOK(t, "remove the header", err)
		wantGone(t, "the removed header", s, header)

		// A profile picture: the upload's url, as given by the upload (or absolute).
		avatar := mustUpload(t, s, bob, "me.png", pngImage(t, 48, 48))
		prof, err := bob.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{AvatarUrl: ptr(s.URL + avatar.GetUrl())}))
		wantOK(t, "avatar", err)
		wantImageURL(t, "UpdateProfile", s, clock, prof.Msg.GetMember().GetAvatarUrl(), avatar)
		st.Until(func(ev *svcv1.Event) bool {
			if u := ev.GetMemberUpdated(); u != nil {
				wantImageURL(t, "member_updated", s, clock, u.GetAvatarUrl(), avatar)
				return true
			}
			return false
		})
		members, err := owner.Server.ListMembers(ctx, req(&svcv1.ListMembersRequest{}))
		wantOK(t, "ListMembers", err)
		for _, m := range members.Msg.GetMembers() {
			if m.GetId() == bob.Member.GetId() {
				wantImageURL(t, "ListMembers", s, clock, m.GetAvatarUrl(), avatar)
			}
		}
		// Replay, hours later, signs afresh.
		clock.Advance(3 * time.Hour)
		replay := bob.Subscribe(t, 0)
		replay.Until(func(ev *svcv1.Event) bool {
			if u := ev.GetMemberUpdated(); u != nil {
				wantImageURL(t, "replayed member_updated", s, clock, u.GetAvatarUrl(), avatar)
				return true
			}
			return false
		})
		// A picture elsewhere on the web replaces the upload, whose file goes.
		prof, err = bob.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{AvatarUrl: ptr("https://example.com/me.png")}))
		wantOK(t, "an external avatar", err)
		if prof.Msg.GetMember().GetAvatarUrl() != "https://example.com/me.png" {
			t.Errorf("avatar_url %q", prof.Msg.GetMember().GetAvatarUrl())
		}
		wantGone(t, "the replaced avatar", s, avatar)
		_, err = bob.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{AvatarUrl: ptr("javascript:alert(1)")}))
		wantCode(t, "a script URL", err, connect.CodeInvalidArgument, "avatar_url must be the url of an upload of yours, an http or https URL, or empty")
	})
}

func TestSettingsImageRefusals(t *testing.T) {
	t.Parallel()
	forBuckets(t, func(t *testing.T, bucket webtest.Option) {
		c := newCommunity(t, bucket)
		s, clock, owner := c.s, c.clock, c.owner
		bob := c.join("bob")
		ch := c.channel("general")
		up := func(by *webtest.Client, name string, data []byte) *svcv1.Attachment {
			clock.Advance(2 * time.Second)
			return mustUpload(t, s, by, name, data)
		}
		// A PNG that claims 100,000 x 100,000 pixels is a fine upload, with its size told...
		huge := up(owner, "huge.png", pngHeader(100000, 100000))
		if huge.GetContentType() != "image/png" || huge.GetWidth() != 100000 || huge.GetHeight() != 100000 {
			t.Fatalf("the huge PNG: %v", huge)
		}
		bomb := up(owner, "bomb.png", zipBomb(t))
		if bomb.GetContentType() != "application/zip" || bomb.GetWidth() != 0 {
			t.Fatalf("the zip bomb: %v", bomb)
		}
		heavy := up(owner, "heavy.png", append(pngImage(t, 8, 8), bytes.Repeat([]byte{0}, 8_000_000)...))
		text := up(owner, "text.png", []byte("not an image"))
		bobs := up(bob, "bob.png", pngImage(t, 8, 8))
		used := up(owner, "used.png", pngImage(t, 8, 8))
		mustSend(t, owner, &svcv1.SendMessageRequest{ChannelId: ch.GetId(), AttachmentIds: []string{used.GetId()}})
		good := up(owner, "good.png", pngImage(t, 8, 8))

		// ... but no settings image: every client would draw it unasked.
		for _, tc := range []struct {
			what string
			id   string
			code connect.Code
			text string
		}{
			{"huge", huge.GetId(), connect.CodeInvalidArgument, "icon_id: upload " + huge.GetId() + " is 100000x100000 pixels; an image is at most 8,192 pixels on a side"},
			{"zip bomb", bomb.GetId(), connect.CodeInvalidArgument, "icon_id: upload " + bomb.GetId() + " is application/zip, not a PNG, JPEG, GIF, WebP or AVIF image"},
			{"over 8 MB", heavy.GetId(), connect.CodeInvalidArgument, "icon_id: upload " + heavy.GetId() + " is " + thousandsOf(heavy.GetSize()) + " bytes; an image is at most 8 MB (8,000,000 bytes)"},
			{"text", text.GetId(), connect.CodeInvalidArgument, "icon_id: upload " + text.GetId() + " is text/plain; charset=utf-8, not a PNG, JPEG, GIF, WebP or AVIF image"},
			{"somebody else's", bobs.GetId(), connect.CodePermissionDenied, "icon_id: upload " + bobs.GetId() + " is not yours; only its uploader can use it"},
			{"attached", used.GetId(), connect.CodeFailedPrecondition, "icon_id: upload " + used.GetId() + " is already in use; an upload is used once, so upload the file again"},
			{"unknown", "nope", connect.CodeNotFound, "icon_id: upload nope does not exist (an upload not used within a day is deleted)"},
		} {
			_, err := owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{IconId: ptr(tc.id)}))
			wantCode(t, tc.what, err, tc.code, tc.text)
		}
		// The same checks hold for a channel header and a profile picture.
		_, err := owner.Chat.UpdateChannel(ctx, req(&svcv1.UpdateChannelRequest{ChannelId: ch.GetId(), HeaderImageId: ptr(bomb.GetId())}))
		wantCode(t, "a zip bomb header", err, connect.CodeInvalidArgument, "header_image_id: upload "+bomb.GetId()+" is application/zip")
		_, err = owner.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{AvatarUrl: ptr(huge.GetUrl())}))
		wantCode(t, "a huge avatar", err, connect.CodeInvalidArgument, "avatar_url: upload "+huge.GetId()+" is 100000x100000 pixels")
		_, err = owner.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{AvatarUrl: ptr(bobs.GetUrl())}))
		wantCode(t, "bob's picture as mine", err, connect.CodePermissionDenied, "is not yours")
		// One upload is one image, and a refused change changes nothing: good is still unused.
		_, err = owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{IconId: ptr(good.GetId()), BannerId: ptr(good.GetId())}))
		wantCode(t, "one upload twice", err, connect.CodeInvalidArgument, "icon_id and banner_id name the same upload; an upload is used once")
		_, err = owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{IconId: ptr(good.GetId()), BannerId: ptr(bomb.GetId())}))
		wantCode(t, "a good icon with a bad banner", err, connect.CodeInvalidArgument, "banner_id: upload "+bomb.GetId())
		info, _ := owner.Server.GetServerInfo(ctx, req(&svcv1.GetServerInfoRequest{}))
		if info.Msg.GetIconUrl() != "" {
			t.Errorf("a refused change set the icon: %q", info.Msg.GetIconUrl())
		}
		_, err = owner.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{IconId: ptr(good.GetId())}))
		wantOK(t, "the good icon after all", err)
		// Only admins change the server's images; members their own picture.
		mine := up(bob, "mine.png", pngImage(t, 8, 8))
		_, err = bob.Server.UpdateServerSettings(ctx, req(&svcv1.UpdateServerSettingsRequest{IconId: ptr(mine.GetId())}))
		wantCode(t, "a member's icon", err, connect.CodePermissionDenied, "changing the settings needs the admin rank or higher")
	})
}

// Join's avatar_url is a picture elsewhere on the web, kept as given (never signed); a member
// who comes back with another replaces an uploaded one, whose file goes.
func TestJoinAvatarIsExternal(t *testing.T) {
	t.Parallel()
	c := newCommunity(t)
	s := c.s
	dan := s.Client(s.Token("dan"))
	res, err := dan.Server.Join(ctx, req(&svcv1.JoinRequest{AvatarUrl: "https://example.com/dan.png"}))
	wantOK(t, "Join", err)
	if res.Msg.GetMember().GetAvatarUrl() != "https://example.com/dan.png" {
		t.Fatalf("avatar_url %q", res.Msg.GetMember().GetAvatarUrl())
	}
	up := mustUpload(t, s, dan, "dan.png", pngImage(t, 8, 8))
	_, err = dan.Server.UpdateProfile(ctx, req(&svcv1.UpdateProfileRequest{AvatarUrl: ptr(up.GetUrl())}))
	wantOK(t, "UpdateProfile", err)
	_, err = dan.Server.LeaveCommunity(ctx, req(&svcv1.LeaveCommunityRequest{}))
	wantOK(t, "leave", err)
	c.clock.Advance(time.Minute)
	res, err = dan.Server.Join(ctx, req(&svcv1.JoinRequest{AvatarUrl: "https://example.com/dan2.png"}))
	wantOK(t, "Join again", err)
	if res.Msg.GetMember().GetAvatarUrl() != "https://example.com/dan2.png" {
		t.Errorf("avatar_url %q", res.Msg.GetMember().GetAvatarUrl())
	}
	wantGone(t, "the uploaded picture replaced on Join", s, up)
}

// thousandsOf writes 8001 as "8,001", as the API's messages do.
func thousandsOf(n int64) string {
	s := strconv.FormatInt(n, 10)
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
