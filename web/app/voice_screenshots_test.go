package app_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"hearth/engine/voice/voicetest"
	"hearth/web/webtest"
)

// TestVoiceScreenshots writes the screenshots of voice (docs/screenshots/voice-*.png) when
// HEARTH_SCREENSHOTS names the folder to write them to: Maya, in the garden club's voice
// channel, watches the plan Inês shares while Sam speaks and Lee is muted; on a desktop and on
// a phone, light and dark, and on the phone the cards before the screen is watched and the
// dock in a text channel.
//
//	HEARTH_SCREENSHOTS=$PWD/docs/screenshots go test ./web/app -run TestVoiceScreenshots
//
// Sam and Lee are voicetest's clients (Sam's microphone sends speech levels all along, so the
// ring shows); Inês's screen is voiceHook's canvas (drawnScreenHook): headless Chromium would
// share its own window.
func TestVoiceScreenshots(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("HEARTH_SCREENSHOTS")
	if dir == "" {
		t.Skip("HEARTH_SCREENSHOTS is not set")
	}
	browser := startBrowser(t, voiceFlags...)
	srv := webtest.StartVoice(t, nil)
	g, people := newGarden(t, srv, [2]string{"sam", "Sam Okafor"}, [2]string{"ines", "Inês Duarte"}, [2]string{"lee", "Lee Park"})
	general := g.channel("general", "", "Everything about the garden, and then some")
	g.channel("tomatoes", "Growing", "Forty varieties and counting")
	g.channel("seed-swap", "Growing", "Offer and ask for seeds")
	g.say(people["sam"], general, "Joining the garden chat in a minute, Inês is showing the spring plan", "")
	chat := createVoiceChannel(t, g.owner, "garden-chat").GetId()
	createVoiceChannel(t, g.owner, "workshop")
	sam, err := voicetest.Join(srv.Voice(people["sam"]), people["sam"].Member.GetId(), chat, voicetest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sam.Close)
	lee, err := voicetest.Join(srv.Voice(people["lee"]), people["lee"].Member.GetId(), chat, voicetest.Options{Muted: true, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lee.Close)

	ines := voicePage(t, browser, srv, "ines", 1280, 800)
	ines.addScript(drawnScreenHook)
	ines.run(chromedp.Reload())
	ines.joinVoice("garden-chat")
	ines.click(`.voice-room button[aria-label="Share your screen"]`)

	maya := voicePage(t, browser, srv, "maya", 1280, 800)
	maya.joinVoice("garden-chat")
	watch := func(p *page) {
		t.Helper()
		p.click(`.voice-room button[aria-label="Watch Inês Duarte's screen"]`)
		p.waitFor("the plan playing", `document.querySelector(".voice-stage video")?.videoWidth === 1280`)
		p.waitFor("Sam speaking", `!!`+tileJS(people["sam"])+`?.classList.contains("speaking") && !!`+sidePersonJS(people["sam"])+`?.classList.contains("speaking")`)
	}
	watch(maya)
	shoot(t, maya, filepath.Join(dir, "voice-desktop.png"))
	dark(t, maya, true)
	shoot(t, maya, filepath.Join(dir, "voice-desktop-dark.png"))
	dark(t, maya, false)

	// One seat a person: Maya's phone takes it over from her desktop.
	phone := openTab(t, maya, "maya on a phone", 390, 844)
	phone.addScript(voiceHook)
	phone.run(chromedp.Navigate(srv.URL + "/app/#/c/" + chat))
	phone.waitFor("the voice channel", `!!document.querySelector(".voice-room .voice-join")`)
	phone.click(".voice-room .voice-join")
	phone.connected()
	phone.waitFor("four cards, Sam speaking", `document.querySelectorAll(".voice-room .voice-tile").length === 4 && !!`+tileJS(people["sam"])+`?.classList.contains("speaking")`)
	shoot(t, phone, filepath.Join(dir, "voice-phone-people.png"))
	watch(phone)
	shoot(t, phone, filepath.Join(dir, "voice-phone.png"))
	dark(t, phone, true)
	shoot(t, phone, filepath.Join(dir, "voice-phone-dark.png"))
	dark(t, phone, false)
	phone.run(chromedp.Navigate(srv.URL + "/app/#/c/" + general))
	phone.waitFor("the dock", `!!document.querySelector(".voice-dock") && document.querySelectorAll(".channel-view article.msg").length === 1`)
	shoot(t, phone, filepath.Join(dir, "voice-phone-dock.png"))
}
