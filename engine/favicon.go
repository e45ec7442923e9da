package engine

import (
	"time"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
)

// iconMaxAge is how long a browser may keep the community's icon as the favicon: a new icon
// shows within the hour.
const iconMaxAge = time.Hour

// CommunityIcon is the community's icon, to serve as the favicon; nil when it has none. The
// icon is public, as the rest of GetServerInfo's card is.
func (e *Engine) CommunityIcon() (*File, error) {
	icon := e.snap.Load().Settings().GetIcon()
	if icon == nil || e.opts.Bucket == nil {
		return nil, nil
	}
	var u *storepb.UploadRecord
	err := e.db.View(func(r *store.Reader) error {
		var err error
		u, err = r.Upload(icon.GetId())
		return err
	})
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return e.fileOf(u, iconMaxAge), nil
}
