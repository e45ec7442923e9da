package engine

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"golang.org/x/time/rate"
	"google.golang.org/protobuf/proto"

	"hearth/engine/ratelimit"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// Join limits: 10 per minute per client address (DECISIONS.md).
var joinRate = rate.Every(6 * time.Second)

const joinBurst = 10

// JoinInput is a Join call: who the token says the person is, and what they sent.
type JoinInput struct {
	Login Login
	// The token's preferred_username and name claims, for the username.
	PreferredUsername, Name string
	// ClientAddr is the address the call came from, for the rate limit.
	ClientAddr string
	Req        *svcv1.JoinRequest
}

// Join makes the person a member (or returns their existing member).
func (e *Engine) Join(ctx context.Context, in JoinInput) (*svcv1.Member, bool, error) {
	if wait := e.limits.allow("join:"+ratelimit.AddrKey(in.ClientAddr), joinRate, joinBurst); wait > 0 {
		return nil, false, rateLimited("joining", wait)
	}
	req := in.Req
	if err := checkShownText("display_name", req.GetDisplayName(), displayNameMax); err != nil {
		return nil, false, err
	}
	if err := checkLen("bio", req.GetBio(), bioMax); err != nil {
		return nil, false, err
	}
	if err := checkWebURL("avatar_url", req.GetAvatarUrl(), avatarURLMax); err != nil {
		return nil, false, err
	}
	if err := checkLen("invite_code", req.GetInviteCode(), inviteCodeInputMax); err != nil {
		return nil, false, err
	}
	for i, a := range req.GetAnswers() {
		if err := checkLen("answers["+itoa(i)+"]", a, joinAnswerMax); err != nil {
			return nil, false, err
		}
	}
	d := e.snap.Load()
	if err := lockedOut(d.Settings(), d.memberByLogin(in.Login.Issuer, in.Login.Subject)); err != nil {
		return nil, false, err
	}
	// The plugins have their say before anything changes.
	hooked, err := e.checkJoinHook(ctx, in)
	if err != nil {
		return nil, false, err
	}
	type joined struct {
		m       *svcv1.Member
		created bool
	}
	out, err := submit(e, func(tx *Tx) (joined, error) {
		d := tx.Snap()
		rec := d.memberByLogin(in.Login.Issuer, in.Login.Subject)
		if rec != nil {
			switch rec.GetState() {
			case storepb.MemberState_MEMBER_STATE_ACTIVE:
				return joined{m: e.memberView(rec.GetMember()), created: false}, nil
			case storepb.MemberState_MEMBER_STATE_BANNED:
				return joined{}, ErrBanned
			}
		}
		if err := lockedOut(d.Settings(), rec); err != nil {
			return joined{}, err
		}
		// A member coming back (who left, was kicked or was unbanned) was admitted once.
		if err := e.admit(tx, req, hooked, rec != nil); err != nil {
			return joined{}, err
		}
		m, err := e.addMember(tx, rec, in)
		if err != nil {
			return joined{}, err
		}
		return joined{m: e.memberView(m), created: true}, nil
	})
	return out.m, out.created, err
}

// admit checks what a newcomer must bring: the invite of an invite-only community and one answer
// per join question (the community's and the plugins' that checkJoinHook asked). It uses up one
// invite use, unless the person is returning (a former member: left, kicked or unbanned): they
// need an invite that would admit a newcomer now, but their return takes no slot of it
// (docs/decisions.md, "Coming back").
func (e *Engine) admit(tx *Tx, req *svcv1.JoinRequest, hooked []JoinQuestion, returning bool) error {
	s := tx.Snap().Settings()
	if err := answersMatch(len(s.GetJoinQuestions())+len(hooked), len(req.GetAnswers())); err != nil {
		return err
	}
	if !s.GetInviteOnly() {
		return nil
	}
	code := strings.ToUpper(strings.TrimSpace(req.GetInviteCode()))
	if code == "" {
		return denied("this community is invite only: invite_code is required")
	}
	inv, err := tx.read().Invite(code)
	if isNotFound(err) {
		inv, err = nil, nil
	}
	if err != nil {
		return err
	}
	if err := inviteRefusal(inv, req.GetInviteCode(), tx.NowMs()); err != nil {
		return err
	}
	if returning {
		return nil
	}
	inv = proto.Clone(inv).(*storepb.InviteRecord)
	inv.Invite.Uses++
	return tx.mutate().PutInvite(inv)
}

// inviteRefusal is why an invite (nil: no such code) admits nobody now, or nil when it would.
// code is the code as sent, which the refusal repeats.
func inviteRefusal(inv *storepb.InviteRecord, code string, nowMs int64) error {
	i := inv.GetInvite()
	switch {
	case inv == nil:
		return denied("invite_code %q is not a valid invite", code)
	case inv.GetRevoked():
		return denied("invite_code %q has been revoked", code)
	case i.GetExpiresAtMs() > 0 && nowMs >= i.GetExpiresAtMs():
		return denied("invite_code %q has expired", code)
	case i.GetMaxUses() > 0 && i.GetUses() >= i.GetMaxUses():
		return denied("invite_code %q has been used up", code)
	}
	return nil
}

// addMember creates a member for a login, or brings back one who left (same id).
func (e *Engine) addMember(tx *Tx, prev *storepb.MemberRecord, in JoinInput) (*svcv1.Member, error) {
	d := tx.Snap()
	req := in.Req
	var m *svcv1.Member
	if prev != nil {
		m = proto.Clone(prev.GetMember()).(*svcv1.Member)
		// Someone coming back starts over as a plain member.
		m.Role = svcv1.MemberRole_MEMBER_ROLE_MEMBER
		m.RoleIds = nil
	} else {
		name := shownName(in.Name, displayNameMax)
		base := normalizeUsername(firstNonEmpty(in.PreferredUsername, name, in.Login.Subject))
		m = &svcv1.Member{
			Id:       uuid.Must(uuid.NewV7()).String(),
			Kind:     svcv1.MemberKind_MEMBER_KIND_HUMAN,
			Role:     svcv1.MemberRole_MEMBER_ROLE_MEMBER,
			Username: uniqueUsername(base, func(u string) bool { return d.usernameTaken(u, "") }),
		}
		// A claim is the issuer's text, not the caller's: what may not be shown is dropped.
		m.DisplayName = firstNonEmpty(name, m.Username)
	}
	m.JoinedAtMs = tx.NowMs()
	if req.GetDisplayName() != "" {
		m.DisplayName = req.GetDisplayName()
	}
	if req.GetAvatarUrl() != "" {
		var err error
		if m.AvatarUrl, err = tx.replaceAvatar(m, nil, req.GetAvatarUrl()); err != nil {
			return nil, err
		}
	}
	if req.GetBio() != "" {
		m.Bio = req.GetBio()
	}
	s := d.Settings()
	becomesOwner := s.GetOwnerId() == "" &&
		(e.opts.Owner == nil || *e.opts.Owner == in.Login)
	if becomesOwner {
		m.Role = svcv1.MemberRole_MEMBER_ROLE_OWNER
		s = proto.Clone(s).(*storepb.Settings)
		s.OwnerId = m.Id
		if err := tx.putSettings(s); err != nil {
			return nil, err
		}
	}
	rec := &storepb.MemberRecord{
		Member:  m,
		Issuer:  in.Login.Issuer,
		Subject: in.Login.Subject,
		State:   storepb.MemberState_MEMBER_STATE_ACTIVE,
	}
	return m, e.welcome(tx, rec)
}

// welcome writes a newcomer's row (a person who joins, a new bot), joins them to the default
// channels as any newcomer, and sends member_joined to every member.
func (e *Engine) welcome(tx *Tx, rec *storepb.MemberRecord) error {
	rec.JoinedSeq = tx.seq + 1
	if err := tx.putMember(rec); err != nil {
		return err
	}
	m := rec.GetMember()
	if err := e.joinDefaultChannels(tx, m.GetId()); err != nil {
		return err
	}
	_, err := tx.emit(toEveryone(), &svcv1.Event{Kind: &svcv1.Event_MemberJoined{MemberJoined: m}})
	return err
}

// GetMe is the caller's member, with the server's version for admins and the owner.
func (e *Engine) GetMe(ctx context.Context, c Caller, _ *svcv1.GetMeRequest) (*svcv1.GetMeResponse, error) {
	rec, err := e.snap.Load().caller(c)
	if err != nil {
		return nil, err
	}
	out := &svcv1.GetMeResponse{Member: e.memberView(rec.GetMember())}
	if rec.GetMember().GetRole() >= svcv1.MemberRole_MEMBER_ROLE_ADMIN {
		out.ServerVersion = e.opts.Version
		out.ServerTrack = TrackOf(e.opts.Version)
		if e.opts.Updates != nil {
			out.UpdateAvailable = e.opts.Updates.Newer(out.ServerVersion, out.ServerTrack)
		}
	}
	return out, nil
}

// TrackOf tells a version's release track from its form: "1.4.0" is stable, "1.5.0-beta.2"
// (or -rc) beta, "nightly-2026-11-20" and development builds ("dev") nightly.
func TrackOf(version string) string {
	v := strings.ToLower(version)
	switch {
	case v == "dev" || strings.Contains(v, "nightly"):
		return "nightly"
	case strings.Contains(v, "beta") || strings.Contains(v, "-rc"):
		return "beta"
	}
	return "stable"
}

// UpdateProfile changes the caller's own profile fields that are set.
func (e *Engine) UpdateProfile(ctx context.Context, c Caller, req *svcv1.UpdateProfileRequest) (*svcv1.UpdateProfileResponse, error) {
	if req.Username != nil {
		if err := checkUsername("username", req.GetUsername()); err != nil {
			return nil, err
		}
	}
	if err := checkShownText("display_name", req.GetDisplayName(), displayNameMax); err != nil {
		return nil, err
	}
	if req.DisplayName != nil && req.GetDisplayName() == "" {
		return nil, invalid("display_name must not be empty")
	}
	if err := checkLen("bio", req.GetBio(), bioMax); err != nil {
		return nil, err
	}
	if err := checkShownText("status_text", req.GetStatusText(), statusTextMax); err != nil {
		return nil, err
	}
	if err := checkBytes("status_emoji", req.GetStatusEmoji(), statusEmojiMax); err != nil {
		return nil, err
	}
	// Shown beside the member's name: an override character would turn the name around.
	if err := checkRefusedInName("status_emoji", req.GetStatusEmoji()); err != nil {
		return nil, err
	}
	// avatar_url is the url of an upload of the caller's, or a picture elsewhere on the web.
	if err := checkLen("avatar_url", req.GetAvatarUrl(), avatarURLMax); err != nil {
		return nil, err
	}
	avatarID, _, isUpload := parseFileRef(req.GetAvatarUrl(), e.opts.BaseURL)
	if !isUpload {
		if err := checkWebURL("avatar_url", req.GetAvatarUrl(), avatarURLMax); err != nil {
			return nil, invalid("avatar_url must be the url of an upload of yours, an http or https URL, or empty")
		}
	}
	return submit(e, func(tx *Tx) (*svcv1.UpdateProfileResponse, error) {
		d := tx.Snap()
		rec, err := d.caller(c)
		if err != nil {
			return nil, err
		}
		if req.Username != nil && d.usernameTaken(req.GetUsername(), c.ID) {
			return nil, exists("username %q is taken", req.GetUsername())
		}
		var img *storepb.UploadRecord
		if isUpload {
			if img, err = imageUpload(tx, c, "avatar_url", avatarID); err != nil {
				return nil, err
			}
		}
		rec = proto.Clone(rec).(*storepb.MemberRecord)
		m := rec.Member
		if req.Username != nil {
			m.Username = req.GetUsername()
		}
		if req.DisplayName != nil {
			m.DisplayName = req.GetDisplayName()
		}
		if req.AvatarUrl != nil {
			if m.AvatarUrl, err = tx.replaceAvatar(m, img, req.GetAvatarUrl()); err != nil {
				return nil, err
			}
		}
		if req.Bio != nil {
			m.Bio = req.GetBio()
		}
		if req.StatusText != nil {
			m.StatusText = req.GetStatusText()
		}
		if req.StatusEmoji != nil {
			m.StatusEmoji = req.GetStatusEmoji()
		}
		if err := tx.putMember(rec); err != nil {
			return nil, err
		}
		if err := e.emitMemberUpdated(tx, m); err != nil {
			return nil, err
		}
		return &svcv1.UpdateProfileResponse{Member: e.memberView(m)}, nil
	})
}

// replaceAvatar lets go of the member's uploaded picture, if they had one, and returns the new
// avatar_url: the unsigned reference to img when given, else external (a URL elsewhere on the
// web, or empty). A profile picture is one of two kinds, never both: an upload kept by the
// server (UpdateProfile with an upload's url) or a picture elsewhere on the web, which is what
// Join takes (the profile the person agreed to share); the one set last wins.
func (tx *Tx) replaceAvatar(m *svcv1.Member, img *storepb.UploadRecord, external string) (string, error) {
	if id, _, ok := parseFileRef(m.GetAvatarUrl(), ""); ok {
		if err := tx.dropFile(id); err != nil {
			return "", err
		}
	}
	if img == nil {
		return external, nil
	}
	if err := tx.useUpload(img, storepb.UploadUse_UPLOAD_USE_AVATAR, m.GetId()); err != nil {
		return "", err
	}
	return fileRef(img.GetId(), img.GetName()), nil
}

func (e *Engine) emitMemberUpdated(tx *Tx, m *svcv1.Member) error {
	_, err := tx.emit(toEveryone(), &svcv1.Event{Kind: &svcv1.Event_MemberUpdated{MemberUpdated: m}})
	return err
}

// ListMembers is everyone currently in the community.
func (e *Engine) ListMembers(ctx context.Context, c Caller, _ *svcv1.ListMembersRequest) (*svcv1.ListMembersResponse, error) {
	d := e.snap.Load()
	if _, err := d.caller(c); err != nil {
		return nil, err
	}
	return &svcv1.ListMembersResponse{Members: e.memberViews(d)}, nil
}

func (e *Engine) memberViews(d *Snapshot) []*svcv1.Member {
	recs := d.activeMembers()
	out := make([]*svcv1.Member, len(recs))
	for i, r := range recs {
		out[i] = e.memberView(r.GetMember())
	}
	return out
}

// memberView is a member as the API shows it: the stored row plus live presence, without a
// timeout that has ended.
func (e *Engine) memberView(m *svcv1.Member) *svcv1.Member {
	out := proto.Clone(m).(*svcv1.Member)
	out.Presence = e.presence.get(m.GetId())
	timedOutView(out, e.now())
	return out
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
