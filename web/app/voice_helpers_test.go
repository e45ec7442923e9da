package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// The voice tests run Chromium with its fake media devices: a microphone that beeps (so the
// server hears people speak) and permission prompts answered yes, against a server with voice
// on a loopback port. What a page receives is read from its RTCPeerConnection's statistics.

// voiceFlags are Chromium's fake microphone, its yes to every media prompt, and sound that
// plays without a click first (a page opened by the test has had none).
var voiceFlags = []chromedp.ExecAllocatorOption{
	chromedp.Flag("use-fake-device-for-media-stream", true),
	chromedp.Flag("use-fake-ui-for-media-stream", true),
	chromedp.Flag("autoplay-policy", "no-user-gesture-required"),
}

// voiceHook is put in every page of a voice test before the client runs. It keeps the page's
// RTCPeerConnections and audio elements, and gives the test:
//   - inbound(): what the newest connection received, by member id (the stream id of each
//     m-line) and kind: audio packets, video frames decoded;
//   - screen(title): a canvas drawn 15 times a second, as a stream;
//   - dropSignal(): the open Signal streams break, as in a network blip;
//   - failIce(): the connection says its ICE failed, once, as after a change of network.
const voiceHook = `(() => {
  const pcs = [];
  const players = [];
  const Native = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends Native {
    constructor(...args) { super(...args); pcs.push(this); }
  };
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function () { if (!players.includes(this)) players.push(this); return play.call(this); };
  const signals = new Set();
  let signalsOpened = 0;
  const realFetch = window.fetch;
  window.fetch = function (input, init) {
    const url = typeof input === "string" ? input : input.url;
    if (!url.endsWith("/svc.v1.VoiceService/Signal")) return realFetch.call(this, input, init);
    signalsOpened++;
    const ac = new AbortController();
    init?.signal?.addEventListener("abort", () => ac.abort());
    signals.add(ac);
    return realFetch.call(this, input, { ...init, signal: ac.signal });
  };
  const sections = (sdp) => (sdp || "").split(/\r?\nm=/).slice(1).map((s) => ({
    mid: (/a=mid:(\S+)/.exec(s) || [])[1],
    stream: (/a=msid:(\S+)/.exec(s) || [])[1],
  }));
  const drawn = document.createElement("canvas");
  window.__voice = {
    pcs, players,
    get signalsOpened() { return signalsOpened; },
    pc() { return pcs[pcs.length - 1]; },
    async inbound() {
      const pc = pcs[pcs.length - 1];
      if (!pc || pc.signalingState === "closed") return {};
      const byMid = {};
      for (const s of sections(pc.remoteDescription && pc.remoteDescription.sdp)) byMid[s.mid] = s.stream;
      const midOfTrack = {};
      for (const t of pc.getTransceivers()) if (t.receiver.track) midOfTrack[t.receiver.track.id] = t.mid;
      const out = {};
      (await pc.getStats()).forEach((r) => {
        if (r.type !== "inbound-rtp") return;
        const member = byMid[r.mid ?? midOfTrack[r.trackIdentifier]];
        if (!member) return;
        const got = (out[member] ??= { audio: 0, video: 0 });
        got[r.kind] += r.kind === "audio" ? r.packetsReceived : r.framesDecoded || 0;
      });
      return out;
    },
    micEnabled() {
      const s = pcs[pcs.length - 1]?.getSenders().find((s) => s.track && s.track.kind === "audio");
      return s ? s.track.enabled : null;
    },
    screen(text) {
      drawn.width = 1280;
      drawn.height = 720;
      const g = drawn.getContext("2d");
      let n = 0;
      const draw = () => {
        n++;
        g.fillStyle = "#fdf6ec"; g.fillRect(0, 0, 1280, 720);
        g.fillStyle = "#c2410c"; g.fillRect(0, 0, 1280, 96);
        g.fillStyle = "#fff"; g.font = "bold 48px sans-serif"; g.fillText(text, 48, 66);
        g.fillStyle = "#2b2925"; g.font = "36px sans-serif";
        ["Beds 1–4: tomatoes, peppers", "Beds 5–6: beans and squash", "Greenhouse: seedlings until May", "Compost: turn every Saturday"].forEach((l, i) => g.fillText("• " + l, 72, 200 + i * 72));
        g.fillStyle = "#16a34a"; g.fillRect(72 + (n * 6) % 1000, 560, 120, 24);
      };
      draw();
      setInterval(draw, 66);
      return drawn.captureStream(15);
    },
    dropSignal() { for (const ac of signals) ac.abort(); signals.clear(); },
    failIce() {
      const pc = pcs[pcs.length - 1];
      Object.defineProperty(pc, "iceConnectionState", { configurable: true, get: () => "failed" });
      pc.dispatchEvent(new Event("iceconnectionstatechange"));
      delete pc.iceConnectionState;
    },
  };
})()`

// drawnScreenHook makes the screen a page shares the canvas of voiceHook's screen() (for the
// screenshots: headless Chromium shares its own window, which would show the client again).
const drawnScreenHook = `navigator.mediaDevices.getDisplayMedia = async () => window.__voice.screen("Garden plan for spring")`

// voicePage opens a window for sub with the voice hook in it, signed in.
func voicePage(t *testing.T, browser context.Context, srv *webtest.Server, sub string, width, height int) *page {
	t.Helper()
	p := openPage(t, browser, sub, width, height)
	p.addScript(voiceHook)
	p.signIn(srv, sub)
	p.waitFor("the chat", `!!document.querySelector(".chat")`)
	return p
}

// addScript runs src in every document the page opens from now on, before its own scripts.
func (p *page) addScript(src string) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: src})
		return err
	})); err != nil {
		p.t.Fatalf("%s: add a script: %v", p.name, err)
	}
}

// received is what a page's call has received so far from each member: audio packets and
// video frames decoded.
type received map[string]struct{ Audio, Video int64 }

func (p *page) received() received {
	p.t.Helper()
	raw := evalAwait[string](p, `window.__voice.inbound().then(JSON.stringify)`)
	var r received
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		p.t.Fatalf("%s: the statistics %q: %v", p.name, raw, err)
	}
	return r
}

// hears waits until the page's audio packets from member grow by more than 20 (about half a
// second of speech).
func (p *page) hears(member *webtest.Client) {
	p.t.Helper()
	start := p.received()[member.Member.GetId()].Audio
	p.waitFor(fmt.Sprintf("audio from %s", member.Member.GetUsername()),
		fmt.Sprintf(`window.__voice.inbound().then(r => (r[%s]?.audio ?? 0) > %d)`, js(member.Member.GetId()), start+20))
}

// hearsNothingFrom checks that no audio packet from member arrives for two seconds.
func (p *page) hearsNothingFrom(member *webtest.Client) {
	p.t.Helper()
	before := p.received()[member.Member.GetId()].Audio
	time.Sleep(2 * time.Second)
	if after := p.received()[member.Member.GetId()].Audio; after != before {
		p.t.Errorf("%s still receives audio from %s: %d packets, then %d", p.name, member.Member.GetUsername(), before, after)
	}
}

// openVoice opens a voice channel from the sidebar.
func (p *page) openVoice(name string) {
	p.t.Helper()
	p.clickJS("voice channel "+name+" in the sidebar", fmt.Sprintf(`[...document.querySelectorAll(".side-link.voice-link")].find(a => a.querySelector(".side-name").textContent === %s)`, js(name)))
	p.waitFor("the voice channel "+name, fmt.Sprintf(`document.querySelector(".voice-room .channel-name")?.textContent === %s`, js(name)))
}

// joinVoice opens a voice channel and joins it, until the call is connected.
func (p *page) joinVoice(name string) {
	p.t.Helper()
	p.openVoice(name)
	p.click(".voice-room .voice-join")
	p.connected()
}

// connected waits until the page's call says it is connected.
func (p *page) connected() {
	p.t.Helper()
	p.waitFor("the call connected", `document.querySelector(".voice-room .voice-phase, .voice-bar .voice-phase")?.textContent.startsWith("Voice connected")`)
}

// tileJS finds member's card in the open voice channel.
func tileJS(member *webtest.Client) string {
	return fmt.Sprintf(`document.querySelector(".voice-room .voice-tile[data-member='%s']")`, member.Member.GetId())
}

// sidePersonJS finds member under a voice channel in the sidebar.
func sidePersonJS(member *webtest.Client) string {
	return fmt.Sprintf(`document.querySelector(".sidebar .voice-person[data-member='%s']")`, member.Member.GetId())
}

// createVoiceChannel has an admin make a voice channel with the API.
func createVoiceChannel(t *testing.T, admin *webtest.Client, name string) *svcv1.Channel {
	t.Helper()
	res, err := admin.Chat.CreateChannel(context.Background(), connect.NewRequest(&svcv1.CreateChannelRequest{Name: name, Kind: svcv1.ChannelKind_CHANNEL_KIND_VOICE}))
	if err != nil {
		t.Fatalf("create voice channel %s: %v", name, err)
	}
	return res.Msg.GetChannel()
}

// twoInVoice: ann (the owner) and bob, each in a browser window, in voice channel lounge,
// hearing each other.
func twoInVoice(t *testing.T, browser context.Context) (srv *webtest.Server, ann, bob *webtest.Client, a, b *page) {
	t.Helper()
	srv = webtest.StartVoice(t, nil)
	ann, bob = srv.Join("ann"), srv.Join("bob")
	createVoiceChannel(t, ann, "lounge")
	a = voicePage(t, browser, srv, "ann", 1280, 800)
	b = voicePage(t, browser, srv, "bob", 1280, 800)
	a.joinVoice("lounge")
	b.joinVoice("lounge")
	a.hears(bob)
	b.hears(ann)
	return srv, ann, bob, a, b
}
