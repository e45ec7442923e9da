package app_test

import (
	"testing"
)

// notifyUnits exposes the notification helpers to the tests below.
const notifyUnits = `
import * as select from "./src/state/selectors";
import { deviceName } from "./src/lib/push";
import { Session } from "./src/state/session";
import { create } from "@bufbuild/protobuf";
import { ChannelSchema, ChannelKind, NotificationPrefsSchema, NotifyLevel, ReadStateSchema } from "./src/gen/svc/v1/types_pb";
import { EventSchema } from "./src/gen/svc/v1/events_pb";
const memoryStorage = () => {
  const m = new Map();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, String(v)), removeItem: (k) => void m.delete(k) };
};
for (const name of ["sessionStorage", "localStorage"]) {
  try {
    window[name];
  } catch {
    Object.defineProperty(window, name, { value: memoryStorage(), configurable: true });
  }
}
globalThis.units = {
  select, deviceName, NotifyLevel, ChannelKind,
  prefs: (init) => create(NotificationPrefsSchema, init),
  channel: (init) => create(ChannelSchema, init),
  readState: (init) => create(ReadStateSchema, init),
  event: (init) => create(EventSchema, init),
  newSession: () => new Session("http://unit.invalid"),
};
`

// TestUnitsNotificationPrefs: what a channel's preferences say at a time, what the whole
// preferences become after a change (ended mutes, channels no longer there and entries that
// say nothing left out, as the server wants them), which messages notify, the app's badge, and
// the device names.
func TestUnitsNotificationPrefs(t *testing.T) {
	t.Parallel()
	p := unitPageOf(t, notifyUnits)
	got := unitRun(t, p, `
		const u = units, L = u.NotifyLevel, now = 1_000_000;
		const channels = new Map([["a", u.channel({ id: "a" })], ["b", u.channel({ id: "b" })], ["d", u.channel({ id: "d", kind: u.ChannelKind.DM })]]);
		const s = { channels, reads: new Map(), prefs: u.prefs({ level: L.ALL, hideContent: true, channels: [
			{ channelId: "a", level: L.NONE, mutedUntilMs: 500n },      // a mute that ended
			{ channelId: "b", level: L.UNSPECIFIED, mutedUntilMs: -1n }, // muted until unmuted
			{ channelId: "gone", level: L.MENTIONS, mutedUntilMs: 0n },  // a channel no longer there
		] }) };
		const out = [];
		out.push(["muted", u.select.mutedUntil(s, "a", now), u.select.mutedUntil(s, "b", now), u.select.mutedUntil(s, "d", now)].join(" "));
		out.push(["level", u.select.notifyLevel(s, "a"), u.select.notifyLevel(s, "b"), u.select.notifyLevel({ prefs: undefined }, "a")].join(" "));
		out.push(["notifies", u.select.notifies(s, "a", false, now), u.select.notifies(s, "b", true, now), u.select.notifies(s, "d", false, now),
			u.select.notifies({ prefs: u.prefs({}) }, "x", false, now), u.select.notifies({ prefs: u.prefs({}) }, "x", true, now)].join(" "));
		const show = (p) => [p.level, p.hideContent, p.email, p.channels.map((c) => c.channelId + ":" + c.level + ":" + c.mutedUntilMs).join(",")].join(" ");
		out.push("unchanged " + show(u.select.prefsWith(s, {}, now)));
		out.push("mute a " + show(u.select.prefsWith(s, { channel: { id: "a", mutedUntilMs: now + 3600000 } }, now)));
		out.push("unmute b " + show(u.select.prefsWith(s, { channel: { id: "b", mutedUntilMs: 0 } }, now)));
		out.push("new d " + show(u.select.prefsWith(s, { email: true, level: L.MENTIONS, channel: { id: "d", level: L.ALL } }, now)));
		out.push("next end " + u.select.nextMuteEnd({ prefs: u.select.prefsWith(s, { channel: { id: "a", mutedUntilMs: 2_000_000 } }, now) }, now));
		s.reads = new Map([["a", u.readState({ channelId: "a", unreadCount: 5, mentionCount: 2 })], ["b", u.readState({ channelId: "b", mentionCount: 4 })], ["d", u.readState({ channelId: "d", unreadCount: 3, mentionCount: 1 })]]);
		out.push("badge " + u.select.badgeCount(s, now));
		out.push([
			"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/148.0.0.0 Safari/537.36",
			"Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0",
			"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
			"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 Edg/130.0.0.0",
			"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
			"curl/8",
		].map(u.deviceName).join(" / "));
		return out.join("\n");`)
	want := `muted 0 -1 0
level 3 1 2
notifies false false true false true
unchanged 1 true false a:3:0,b:0:-1
mute a 1 true false a:3:4600000,b:0:-1
unmute b 1 true false a:3:0
new d 2 true true a:3:0,b:0:-1,d:1:0
next end 2000000
badge 5
Chrome on Linux / Firefox on Android / Safari on iPhone / Edge on Windows / Safari on macOS / A browser`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestUnitsNotificationPrefsEvents: notification_prefs from the stream (another device's
// change) replaces the preferences and emits "prefs"; a mute's end emits it again when it
// comes; the disk's state changes only when it changes.
func TestUnitsNotificationPrefsEvents(t *testing.T) {
	t.Parallel()
	p := unitPageOf(t, notifyUnits)
	got := unitRun(t, p, `
		const u = units, s = u.newSession(), out = [];
		let prefs = 0, disk = 0;
		s.em.on("prefs", () => prefs++);
		s.em.on("disk", () => disk++);
		s.apply(u.event({ seq: 1n, kind: { case: "notificationPrefs", value: u.prefs({ level: u.NotifyLevel.NONE, channels: [{ channelId: "a", mutedUntilMs: BigInt(Date.now() + 150) }] }) } }));
		await tick();
		out.push(["level", s.state.prefs.level, "muted", u.select.mutedUntil(s.state, "a", Date.now()) > 0, "emits", prefs].join(" "));
		await new Promise((r) => setTimeout(r, 400));
		out.push(["muted", u.select.mutedUntil(s.state, "a", Date.now()) > 0, "emits", prefs].join(" "));
		s.dispatch({ case: "diskFull", value: true });
		s.dispatch({ case: "diskFull", value: true });
		await tick();
		out.push(["disk", s.state.diskFull, disk].join(" "));
		s.dispatch({ case: "diskFull", value: false });
		await tick();
		out.push(["disk", s.state.diskFull, disk].join(" "));
		s.close();
		return out.join("\n");`)
	want := `level 3 muted true emits 1
muted false emits 2
disk true 1
disk false 2`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
