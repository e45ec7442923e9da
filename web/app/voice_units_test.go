package app_test

import "testing"

// TestUnitsVoiceStatesByVersion: who is in voice follows the versions. The voice_state events
// that come while ListVoiceStates is on its way are held, then those newer than its answer
// applied; a call's answer (JoinVoice, SetVoiceState) shows at once and does not hide older
// events of other members that come after it; a member's stale event changes nothing; a voice
// channel that appears makes the client list who is in voice again.
func TestUnitsVoiceStatesByVersion(t *testing.T) {
	t.Parallel()
	p := unitPage(t)
	got := unitRun(t, p, `
		const s = units.newSession();
		s.state.status = "ready";
		s.state.channels.set("v1", units.channel({ id: "v1", name: "lounge", kind: 4 }));
		s.state.channels.set("v2", units.channel({ id: "v2", name: "studio", kind: 4 }));
		let answer, lists = 0;
		s.api = { voice: { listVoiceStates: () => (lists++, new Promise((r) => (answer = r))) } };
		const v = (memberId, channelId, version, more = {}) => ({ memberId, channelId, joined: true, version: BigInt(version), joinedAtMs: BigInt(version), ...more });
		const ev = (state) => units.event({ seq: 0n, kind: { case: "voiceState", value: state } });
		const shown = () => [...s.state.voice.values()].map((x) => x.memberId + "@" + x.channelId + (x.muted ? " muted" : "")).sort().join(", ");
		const out = [];

		s.received(ev(v("m1", "v1", 5)));
		out.push(shown());
		s.reloadVoice();
		s.received(ev(v("m2", "v1", 9)));
		s.received(ev(v("m3", "v2", 12)));
		s.received(ev(v("m1", "v1", 13, { joined: false })));
		out.push("held: " + shown());
		answer({ states: [v("m1", "v1", 5), v("m2", "v1", 9)], version: 10n });
		await tick();
		await tick();
		out.push(shown());

		// A call's answer first, then an older event of someone else, then a stale one of the same.
		s.dispatch({ case: "voiceStates", value: [v("m4", "v1", 20)] });
		s.received(ev(v("m3", "v2", 15, { muted: true })));
		s.received(ev(v("m4", "v1", 18, { joined: false })));
		out.push(shown());

		// In the voice channel's room, in the order they joined.
		out.push(units.select.voiceRoom(s.state, "v1").map((x) => x.memberId).join(" "));

		// A voice channel the person starts seeing: who is in voice is listed again.
		s.received(units.event({ seq: 30n, kind: { case: "channelCreated", value: units.channel({ id: "v3", name: "garden", kind: 4 }) } }));
		out.push("lists: " + lists);
		return out.join(" | ");`)
	want := "m1@v1 | held: m1@v1 | m2@v1, m3@v2 | m2@v1, m3@v2 muted, m4@v1 | m2 m4 | lists: 2"
	if got != want {
		t.Errorf("voice states:\n got %s\nwant %s", got, want)
	}
}
