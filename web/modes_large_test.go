package web_test

import (
	"fmt"
	"testing"

	"github.com/google/uuid"

	"hearth/engine/store"
	"hearth/engine/store/storepb"
	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// Switching a community of 401 members and 40 channels to OPT_IN writes 16,040 joined rows:
// more than one Badger transaction takes under the small memory profile. The switch still
// succeeds, and every member stays in every channel, after a restart too.
func TestOptInSwitchOfALargeCommunity(t *testing.T) {
	s := webtest.Start(t)
	owner := s.Join("owner")
	const members, channels = 400, 40
	s.Seed(func(b *store.Batch) error {
		for i := range members {
			sub := fmt.Sprintf("m%d", i)
			err := b.PutMember(&storepb.MemberRecord{
				Member: &svcv1.Member{Id: uuid.Must(uuid.NewV7()).String(), Kind: svcv1.MemberKind_MEMBER_KIND_HUMAN,
					Role: svcv1.MemberRole_MEMBER_ROLE_MEMBER, Username: sub, DisplayName: sub},
				Issuer: s.Issuer.URL(), Subject: sub, State: storepb.MemberState_MEMBER_STATE_ACTIVE,
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	for i := range channels {
		mustChannel(t, owner, fmt.Sprintf("c%d", i), svcv1.ChannelKind_CHANNEL_KIND_TEXT)
	}
	setMode(t, owner, svcv1.ChannelMode_CHANNEL_MODE_OPT_IN)
	check := func(when string) {
		t.Helper()
		for _, sub := range []string{"m0", "m399"} {
			st, err := s.Client(s.Token(sub)).Chat.GetState(ctx, req(&svcv1.GetStateRequest{}))
			if err != nil {
				t.Fatalf("%s: GetState of %s: %v", when, sub, err)
			}
			if n := len(st.Msg.GetChannels()); n != channels {
				t.Fatalf("%s: %s is in %d channels, want %d", when, sub, n, channels)
			}
		}
	}
	check("after the switch")
	s.Restart()
	check("after a restart")
}
