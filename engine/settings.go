package engine

import (
	"context"

	"google.golang.org/protobuf/proto"

	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
)

// ProtocolVersion is GetServerInfo.protocol_version.
const ProtocolVersion = 1

// ServerInfo is the community's public card.
func (e *Engine) ServerInfo() *svcv1.GetServerInfoResponse {
	return e.serverInfo(e.snap.Load())
}

func (e *Engine) serverInfo(d *Snapshot) *svcv1.GetServerInfoResponse {
	s := d.Settings()
	out := &svcv1.GetServerInfoResponse{
		Name:            s.GetName(),
		Description:     s.GetDescription(),
		AccentColor:     s.GetAccentColor(),
		BaseUrl:         e.opts.BaseURL,
		InviteOnly:      s.GetInviteOnly(),
		JoinQuestions:   joinQuestions(s, e.hookQuestions()),
		MemberCount:     int32(d.joinedCount()),
		NeedsSetup:      !s.GetSetupComplete(),
		ProtocolVersion: ProtocolVersion,
		RetentionDays:   s.GetRetentionDays(),
		TrustedIssuers:  e.opts.TrustedIssuers,
		// GroupMentionRank: groupmentions.go.
		GroupMentionRank: groupMentionRank(s),
		Lockdown:         s.GetLockdown(),
	}
	// Unsigned here; SignURLs signs them on the way out. The icon is public like the rest of
	// the card: GetServerInfo needs no token.
	if icon := s.GetIcon(); icon != nil {
		out.IconUrl = fileRef(icon.GetId(), icon.GetName())
	}
	if b := s.GetBanner(); b != nil {
		out.Banner = proto.Clone(b).(*svcv1.Attachment)
	}
	return out
}

// UpdateServerSettings changes the settings that are set in the request.
func (e *Engine) UpdateServerSettings(ctx context.Context, c Caller, req *svcv1.UpdateServerSettingsRequest) (*svcv1.GetServerInfoResponse, error) {
	if err := checkSettings(req); err != nil {
		return nil, err
	}
	if req.GetChannelMode() == svcv1.ChannelMode_CHANNEL_MODE_OPT_IN {
		if err := e.prepareOptIn(c); err != nil {
			return nil, err
		}
	}
	return submit(e, func(tx *Tx) (*svcv1.GetServerInfoResponse, error) {
		d := tx.Snap()
		if _, err := d.requireRank(c, svcv1.MemberRole_MEMBER_ROLE_ADMIN, "changing the settings"); err != nil {
			return nil, err
		}
		if req.SetupComplete != nil && d.rank(c.ID) != svcv1.MemberRole_MEMBER_ROLE_OWNER {
			return nil, denied("only the owner can finish the setup")
		}
		// needs_setup belongs to a new community: once finished, the setup is not opened
		// again, which would shut every member but the owner out of the community.
		if req.SetupComplete != nil && !req.GetSetupComplete() && d.Settings().GetSetupComplete() {
			return nil, precondition("setup_complete cannot be set back to false: the setup is finished")
		}
		var icon, banner *storepb.UploadRecord
		var err error
		if id := req.GetIconId(); id != "" {
			if icon, err = imageUpload(tx, c, "icon_id", id); err != nil {
				return nil, err
			}
		}
		if id := req.GetBannerId(); id != "" {
			if id == req.GetIconId() {
				return nil, invalid("icon_id and banner_id name the same upload; an upload is used once")
			}
			if banner, err = imageUpload(tx, c, "banner_id", id); err != nil {
				return nil, err
			}
		}
		before := d.Settings()
		s := proto.Clone(before).(*storepb.Settings)
		oldMode := s.GetChannelMode()
		if req.Name != nil {
			s.Name = req.GetName()
		}
		if req.Description != nil {
			s.Description = req.GetDescription()
		}
		if req.AccentColor != nil {
			s.AccentColor = req.GetAccentColor()
		}
		if req.InviteOnly != nil {
			s.InviteOnly = req.GetInviteOnly()
		}
		if req.RetentionDays != nil {
			s.RetentionDays = req.GetRetentionDays()
		}
		if req.SetupComplete != nil {
			s.SetupComplete = req.GetSetupComplete()
		}
		if req.GetSetJoinQuestions() {
			s.JoinQuestions = req.GetJoinQuestions()
		}
		if req.ChannelMode != nil {
			s.ChannelMode = req.GetChannelMode()
		}
		if req.GroupMentionRank != nil {
			s.GroupMentionRank = req.GetGroupMentionRank()
		}
		if req.Lockdown != nil {
			s.Lockdown = req.GetLockdown()
		}
		if req.IconId != nil {
			if s.Icon, err = tx.replaceImage(s.GetIcon(), icon, storepb.UploadUse_UPLOAD_USE_SERVER_ICON, ""); err != nil {
				return nil, err
			}
		}
		if req.BannerId != nil {
			if s.Banner, err = tx.replaceImage(s.GetBanner(), banner, storepb.UploadUse_UPLOAD_USE_SERVER_BANNER, ""); err != nil {
				return nil, err
			}
		}
		if err := tx.putSettings(s); err != nil {
			return nil, err
		}
		if s.GetChannelMode() != oldMode {
			if err := e.switchChannelMode(tx, s.GetChannelMode()); err != nil {
				return nil, err
			}
		}
		if _, err := tx.emit(toEveryone(), &svcv1.Event{Kind: &svcv1.Event_ServerUpdated{ServerUpdated: true}}); err != nil {
			return nil, err
		}
		if err := auditSettings(tx, c, before, s); err != nil {
			return nil, err
		}
		return e.serverInfo(tx.Snap()), nil
	})
}

func checkSettings(req *svcv1.UpdateServerSettingsRequest) error {
	if err := checkBytes("icon_id", req.GetIconId(), uploadIDMax); err != nil {
		return err
	}
	if err := checkBytes("banner_id", req.GetBannerId(), uploadIDMax); err != nil {
		return err
	}
	if req.Name != nil {
		if req.GetName() == "" {
			return invalid("name must not be empty")
		}
		if err := checkShownText("name", req.GetName(), serverNameMax); err != nil {
			return err
		}
	}
	if err := checkLen("description", req.GetDescription(), descriptionMax); err != nil {
		return err
	}
	if err := checkColor("accent_color", req.GetAccentColor()); err != nil {
		return err
	}
	if d := req.GetRetentionDays(); d < 0 || d > retentionDaysMax {
		return invalid("retention_days must be 0 (keep forever) to %s; got %d", thousands(retentionDaysMax), d)
	}
	if req.ChannelMode != nil {
		switch req.GetChannelMode() {
		case svcv1.ChannelMode_CHANNEL_MODE_ROLES, svcv1.ChannelMode_CHANNEL_MODE_OPT_IN:
		default:
			return invalid("channel_mode must be CHANNEL_MODE_ROLES or CHANNEL_MODE_OPT_IN")
		}
	}
	if err := checkGroupMentionRank(req); err != nil {
		return err
	}
	if !req.GetSetJoinQuestions() && len(req.GetJoinQuestions()) > 0 {
		return invalid("join_questions is only applied with set_join_questions true")
	}
	return CheckJoinQuestions("join_questions", req.GetJoinQuestions())
}
