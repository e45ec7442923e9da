package app_test

import (
	"testing"
)

// conversationEntry exposes the pure pieces of replies, pins, group mentions and search filters.
const conversationEntry = `
import { create } from "@bufbuild/protobuf";
import { MessageSchema, MemberSchema, ChannelSchema, MessageRefSchema } from "./src/gen/svc/v1/types_pb";
import { pinsLoading, pinsLoaded, pinChanged } from "./src/state/pins";
import { mentionsMe, canPin, mayMentionGroups } from "./src/state/selectors";
import { groupsToWire, groupsFromWire } from "./src/lib/groups";
import { plainText } from "./src/lib/markdown";
import { MessageView } from "./src/state/view";
import { takeFilters, typedText, suggest, queryOf } from "./src/ui/search/chips";
import { pollProblem } from "./src/ui/polls/PollDialog";
globalThis.units = {
  message: (init) => create(MessageSchema, init), ref: (init) => create(MessageRefSchema, init),
  member: (init) => create(MemberSchema, init), channel: (init) => create(ChannelSchema, init),
  pinsLoading, pinsLoaded, pinChanged, mentionsMe, canPin, mayMentionGroups, groupsToWire, groupsFromWire, plainText,
  MessageView, takeFilters, typedText, suggest, queryOf, pollProblem,
};
`

// TestUnitsConversation: the pieces of replies, pins, group mentions, polls and search filters
// that the browser tests cannot reach one case at a time.
func TestUnitsConversation(t *testing.T) {
	t.Parallel()
	p := unitPageOf(t, conversationEntry)

	t.Run("pins keep what the stream brought while ListPins was on its way", func(t *testing.T) {
		got := unitRun(t, p, `
			const m = (id, pinnedAtMs, seq, deleted = false) => units.message({ id, channelId: "c", pinnedAtMs, seq, deleted });
			const ids = (l) => l.messages.map((x) => x.id + "@" + x.seq).join(",");
			let pins = units.pinsLoading(undefined);
			pins = units.pinChanged(pins, m("new", 50n, 9n)); // pinned after the answer was read
			pins = units.pinChanged(pins, m("old", 0n, 8n)); // unpinned after it was read
			pins = units.pinsLoaded(pins, [m("old", 10n, 3n), m("kept", 5n, 7n), m("older", 4n, 2n)]);
			const out = [ids(pins) + " loaded=" + pins.loaded];
			pins = units.pinChanged(pins, m("kept", 5n, 6n)); // an older copy: nothing
			pins = units.pinChanged(pins, m("kept", 5n, 1n, true)); // deleted: gone, whatever its seq
			out.push(ids(pins));
			pins = units.pinChanged(pins, m("x", 0n, 12n)); // not pinned, not held: nothing
			out.push(ids(pins));
			return out.join(" / ");`)
		if want := "new@9,kept@7,older@2 loaded=true / new@9,older@2 / new@9,older@2"; got != want {
			t.Errorf("pins: %s\nwant %s", got, want)
		}
	})

	t.Run("quotes follow the answered message", func(t *testing.T) {
		got := unitRun(t, p, `
			const session = { em: { emit() {} }, api: { chat: { listMessages: async () => ({ messages: [
				units.message({ id: "a", channelId: "c", text: "the original", seq: 1n, createdSeq: 1n }),
				units.message({ id: "r", channelId: "c", text: "the reply", seq: 2n, createdSeq: 2n, replyTo: units.ref({ id: "a", authorId: "o", text: "the original" }) }),
			], hasMore: false, hasMoreAfter: false }) } } };
			const v = new units.MessageView(session, "c");
			await v.loadLatest();
			const quote = () => { const r = v.messages[1].replyTo; return r.text + (r.deleted ? " (deleted)" : ""); };
			const out = [];
			const before = v.messages[1];
			v.requote(units.message({ id: "a", channelId: "c", text: "the original", seq: 3n })); // a reaction: same text
			out.push(v.messages[1] === before ? "unchanged" : "copied");
			v.requote(units.message({ id: "a", channelId: "c", text: "é".repeat(250), seq: 4n }));
			out.push([...quote()].length);
			v.requote(units.message({ id: "a", channelId: "c", text: "", deleted: true, seq: 5n }));
			out.push(quote());
			return out.join(" / ");`)
		if want := "unchanged / 200 /  (deleted)"; got != want {
			t.Errorf("quotes: %s\nwant %s", got, want)
		}
	})

	t.Run("what counts as a mention of the person", func(t *testing.T) {
		got := unitRun(t, p, `
			const m = (init) => units.message({ channelId: "c", ...init });
			return [
				units.mentionsMe(m({ authorId: "o", text: "hi <@me>" }), "me"),
				units.mentionsMe(m({ authorId: "o", text: "<!everyone> hi", mentionsEveryone: true }), "me"),
				units.mentionsMe(m({ authorId: "o", text: "<!everyone> hi", mentionsEveryone: false }), "me"),
				units.mentionsMe(m({ authorId: "o", text: "<!here> hi", mentionsHere: true }), "me"),
				units.mentionsMe(m({ authorId: "me", text: "<!here> hi", mentionsHere: true }), "me"),
				units.mentionsMe(m({ authorId: "o", text: "yes", replyTo: units.ref({ id: "x", authorId: "me" }) }), "me"),
				units.mentionsMe(m({ authorId: "o", text: "yes", replyTo: units.ref({ id: "x", authorId: "o2" }) }), "me"),
			].join(",");`)
		if want := "true,true,false,true,false,true,false"; got != want {
			t.Errorf("mentionsMe: %s\nwant %s", got, want)
		}
	})

	t.Run("who may pin and use group mentions", func(t *testing.T) {
		got := unitRun(t, p, `
			const me = (role) => units.member({ id: "me", role });
			const channels = new Map([["t", units.channel({ id: "t", kind: 1 })], ["d", units.channel({ id: "d", kind: 3 })]]);
			const s = (role, groupMentionRank) => ({ me: me(role), members: new Map(), channels, info: groupMentionRank === undefined ? undefined : { groupMentionRank } });
			return [
				units.canPin(s(1), "t"), units.canPin(s(2), "t"), units.canPin(s(1), "d"), units.canPin(s(4), "unknown"),
				units.mayMentionGroups(s(1), "t"), units.mayMentionGroups(s(2), "t"), units.mayMentionGroups(s(1), "d"),
				units.mayMentionGroups(s(1, 1), "t"), units.mayMentionGroups(s(2, 3), "t"), units.mayMentionGroups(s(2, 0), "t"),
			].join(",");`)
		if want := "false,true,true,false,false,true,true,true,false,true"; got != want {
			t.Errorf("ranks: %s\nwant %s", got, want)
		}
	})

	t.Run("group mentions as typed and as sent", func(t *testing.T) {
		cases := map[string]string{
			"@everyone come":         "<!everyone> come",
			"hi @here.":              "hi <!here>.",
			"@everyones stays":       "@everyones stays",
			"mail me@here":           "mail me@here",
			"(@here) and @everyone!": "(<!here>) and <!everyone>!",
		}
		for in, want := range cases {
			if got := eval[string](p, `units.groupsToWire(`+js(in)+`)`); got != want {
				t.Errorf("groupsToWire(%q) = %q, want %q", in, got, want)
			}
			if back := eval[string](p, `units.groupsFromWire(`+js(want)+`)`); want != in && back != in {
				t.Errorf("groupsFromWire(%q) = %q, want %q", want, back, in)
			}
		}
		if got := eval[string](p, `units.plainText("<!everyone> and <!here> and <!nobody>", () => undefined)`); got != "@everyone and @here and <!nobody>" {
			t.Errorf("plainText: %q", got)
		}
	})

	t.Run("search filters into chips", func(t *testing.T) {
		got := unitRun(t, p, `
			const t = (text, all) => { const r = units.takeFilters([{ key: "from", value: "sam" }], text, all); return JSON.stringify([units.queryOf(r.filters, ""), r.text]); };
			return [
				t("from:maria has:image lake", false),
				t("lake has:link", false),
				t("lake has:link", true),
				t("foo:bar lake ", false),
				t("is:pinned  mentions:me ", false),
			].join(" ");`)
		want := `["from:maria has:image","lake"] ["from:sam","lake has:link"] ["from:sam has:link","lake "] ["from:sam","foo:bar lake "] ["from:sam is:pinned mentions:me",""]`
		if got != want {
			t.Errorf("takeFilters: %s\nwant %s", got, want)
		}
		for in, want := range map[string]string{"lake from:ma": "lake ", "from:": "", "lake": "lake", "foo:bar": "foo:bar", "lake in:": "lake "} {
			if got := eval[string](p, `units.typedText(`+js(in)+`)`); got != want {
				t.Errorf("typedText(%q) = %q, want %q", in, got, want)
			}
		}
		got = unitRun(t, p, `
			const state = {
				members: new Map([["1", units.member({ id: "1", username: "maria", displayName: "Maria Lindqvist" })], ["2", units.member({ id: "2", username: "bob", displayName: "Bob Marley" })]]),
				channels: new Map([["c", units.channel({ id: "c", name: "general", kind: 1 })], ["d", units.channel({ id: "d", name: "", kind: 3 })]]),
			};
			const now = Date.UTC(2026, 10, 24, 12);
			const words = (w) => units.suggest(state, w, now).map((s) => s.word).join("|");
			return [words("h"), words("from:ma"), words("from:mar"), words("in:"), words("has:i"), words("before:2026-11-2"), words("after:"), words("after:2026-01-05"), words("nope:x"), words("")].join(" ");`)
		if want := "has: from:bob|from:maria from:bob|from:maria in:general has:image before:2026-11-24|before:2026-11-23 after:2026-11-23|after:2026-11-17|after:2026-10-25 after:2026-01-05  "; got != want {
			t.Errorf("suggest: %s\nwant %s", got, want)
		}
	})

	t.Run("a poll's form checks what the server checks", func(t *testing.T) {
		got := unitRun(t, p, `
			const now = 1_000_000_000_000;
			const ok = ["Park", "Beach"];
			return [
				units.pollProblem("", ok, 0, now),
				units.pollProblem("q".repeat(301), ok, 0, now),
				units.pollProblem("😀".repeat(300), ok, 0, now),
				units.pollProblem("Where?", ["Park"], 0, now),
				units.pollProblem("Where?", ["Park", " park".trim().toUpperCase()], 0, now),
				units.pollProblem("Where?", ["x".repeat(101), "y"], 0, now),
				units.pollProblem("Where?", ok, now + 30_000, now),
				units.pollProblem("Where?", ok, now + 31 * 86_400_000, now),
				units.pollProblem("Where?", ok, now + 30 * 86_400_000, now),
				units.pollProblem("Where?", ok, NaN, now),
			].join(" | ");`)
		want := `Write the question. | 1 character too many: a question is at most 300. |  | Give at least 2 options. | "PARK" is there twice: each option must be different. | 1 character too many: an option is at most 100. (xxxxxxxxxxxxxxxxxxxx…) | It must close at least a minute from now. | It must close within 30 days. |  | Pick the date and time it closes.`
		if got != want {
			t.Errorf("pollProblem: %s\nwant %s", got, want)
		}
	})
}
