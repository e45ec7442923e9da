package app_test

import (
	"image"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"hearth/web/webtest"
)

// TestRichScreenshots writes the screenshots of rich messages (markdown with highlighted code,
// a spoiler, shortcodes), the composer's `:` completion and the picture viewer, desktop and
// phone, light and dark (docs/screenshots/rich-*.png), when HEARTH_SCREENSHOTS names the folder:
//
//	HEARTH_SCREENSHOTS=$PWD/docs/screenshots go test ./web/app -run TestRichScreenshots
func TestRichScreenshots(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("HEARTH_SCREENSHOTS")
	if dir == "" {
		t.Skip("HEARTH_SCREENSHOTS is not set")
	}
	browser := startBrowser(t)
	srv := webtest.Start(t)
	g, people := newGarden(t, srv, [2]string{"sam", "Sam Okafor"}, [2]string{"ines", "Inês Duarte"}, [2]string{"lee", "Lee Park"})
	owner, channel, say := g.owner, g.channel, g.say
	general := channel("general", "", "Everything about the garden, and then some")
	channel("announcements", "", "News from the committee")
	channel("tomatoes", "Growing", "Forty varieties and counting")
	sam, ines, lee := people["sam"], people["ines"], people["lee"]
	say(owner, general, "Planting plan for **Saturday**:\n\n1. Beans along the north fence\n2. Tomatoes in bed 3\n3. ~~Carrots~~ moved to April\n\n> Water in the morning, never at noon.\n> — the old almanac", "")
	say(lee, general, "The script for the watering timer, if anyone wants it:\n```python\nimport time\n\ndef water(bed: str, minutes: int = 10) -> None:\n    \"\"\"Open the valve of one bed.\"\"\"\n    print(f\"watering {bed} for {minutes} min\")\n    time.sleep(minutes * 60)  # then close it\n\nfor bed in [\"tomatoes\", \"beans\"]:\n    water(bed)\n```", "")
	say(ines, general, "Who won the pumpkin contest? ||Sam, with 212 kg!|| :tada: :jack_o_lantern:", "")
	say(sam, general, "- bring gloves\n- `seed-list.txt` is on the board\n- calendar: https://example.org/planting", "")

	maya := openPage(t, browser, "maya", 1280, 800)
	maya.signIn(srv, "maya")
	maya.openChannel("general")
	ready := `!!document.querySelector(".channel-view pre code .hl-keyword") && [...document.querySelectorAll(".channel-view .msg-text .emoji")].length >= 2`
	maya.waitFor("the code highlighted, the shortcodes as emoji", ready)
	both := func(p *page, name string) {
		t.Helper()
		shoot(t, p, filepath.Join(dir, name+".png"))
		dark(t, p, true)
		shoot(t, p, filepath.Join(dir, name+"-dark.png"))
		dark(t, p, false)
	}
	both(maya, "rich-markdown")
	phone := openTab(t, maya, "maya on a phone", 390, 844)
	phone.run(chromedp.Navigate(srv.URL + "/app/#/c/" + general))
	phone.waitFor("the code highlighted, the shortcodes as emoji", ready)
	both(phone, "rich-markdown-phone")

	t.Log("the : completion")
	maya.typeInto(".channel-view .composer .composer-input", "Look at the :sun")
	maya.waitFor("the names offered", `document.querySelectorAll(".channel-view .emoji-complete [role=option]").length >= 4`)
	both(maya, "rich-emoji-complete")
	phone.typeInto(".channel-view .composer .composer-input", "So proud :ta")
	phone.waitFor("the names offered", `document.querySelectorAll(".channel-view .emoji-complete [role=option]").length >= 4`)
	both(phone, "rich-emoji-complete-phone")
	for _, p := range []*page{maya, phone} {
		p.run(chromedp.KeyEvent("\b\b\b"))
		p.setText(`document.querySelector(".channel-view .composer .composer-input")`, "")
	}

	t.Log("the picture viewer")
	maya.run(chromedp.SetUploadFiles(chromedp.CSS(".channel-view input[type=file]"), []string{
		writeScene(t, "beans.png", color.RGBA{150, 200, 240, 255}, color.RGBA{70, 140, 60, 255}),
		writeScene(t, "pumpkin-patch.png", color.RGBA{250, 200, 150, 255}, color.RGBA{200, 110, 40, 255}),
		writeScene(t, "greenhouse.png", color.RGBA{200, 220, 235, 255}, color.RGBA{110, 160, 90, 255}),
	}))
	maya.waitFor("three uploads done", `[...document.querySelectorAll(".channel-view .upload .upload-status")].filter(s => s.textContent.endsWith("B")).length === 3`)
	maya.typeInto(".channel-view .composer .composer-input", "Photos from this morning 🌱")
	maya.run(enter())
	msg := messageJS(".channel-view", "Photos from this morning")
	maya.waitFor("the pictures", `[...`+msg+`?.querySelectorAll(".att-image img") ?? []].filter(i => i.complete && i.naturalWidth > 0).length === 3`)
	maya.clickJS("the second picture", msg+`.querySelectorAll(".att-image")[1]`)
	maya.waitFor("the viewer", `document.querySelector("dialog.lightbox[open] .lightbox-img")?.complete`)
	maya.eval0(`document.activeElement?.blur()`)
	both(maya, "rich-lightbox")
	phone.waitFor("the pictures", `[...`+msg+`?.querySelectorAll(".att-image img") ?? []].filter(i => i.complete && i.naturalWidth > 0).length === 3`)
	phone.clickJS("the second picture", msg+`.querySelectorAll(".att-image")[1]`)
	phone.waitFor("the viewer", `document.querySelector("dialog.lightbox[open] .lightbox-img")?.complete`)
	phone.eval0(`document.activeElement?.blur()`)
	both(phone, "rich-lightbox-phone")
}

// writeScene writes a 1200 x 800 picture of a sky over rows of a field, with a sun: something
// that looks like a photo of a garden.
func writeScene(t *testing.T, name string, sky, field color.RGBA) string {
	t.Helper()
	const w, h = 1200, 800
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	shade := func(c color.RGBA, f float64) color.RGBA {
		return color.RGBA{uint8(float64(c.R) * f), uint8(float64(c.G) * f), uint8(float64(c.B) * f), 255}
	}
	for y := range h {
		for x := range w {
			var c color.RGBA
			switch {
			case y < h*45/100:
				c = shade(sky, 0.8+0.2*float64(y)/float64(h))
				if dx, dy := x-w*3/4, y-h/6; dx*dx+dy*dy < 70*70 {
					c = color.RGBA{255, 236, 150, 255}
				}
			case (x+(y-h*45/100)*2)/60%2 == 0:
				c = shade(field, 0.75+0.25*float64(y)/float64(h))
			default:
				c = shade(field, 0.6+0.25*float64(y)/float64(h))
			}
			img.Set(x, y, c)
		}
	}
	return savePNG(t, name, img)
}
