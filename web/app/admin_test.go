package app_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/chromedp/chromedp"

	svcv1 "hearth/proto/svc/v1"
	"hearth/web/webtest"
)

// The administration screens in a real browser: the setup wizard, the community's settings,
// channels, roles, members and invites, each offered only to the ranks that may use it.

// adminShot writes a screenshot of the page to docs/screenshots when HEARTH_SCREENSHOTS names
// that folder (see TestScreenshots), and does nothing otherwise.
func adminShot(t *testing.T, p *page, name string) {
	t.Helper()
	if dir := os.Getenv("HEARTH_SCREENSHOTS"); dir != "" {
		shoot(t, p, filepath.Join(dir, name))
	}
}

// button finds a button in scope by its accessible name (aria-label) or its text.
func button(scope, name string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(%s)].find(b => b.getAttribute("aria-label") === %s || b.textContent.trim() === %s)`, js(scope+" button"), js(name), js(name))
}

// tab opens a tab of the community's pages by its name.
func (p *page) tab(name string) {
	p.t.Helper()
	p.clickJS("the "+name+" tab", fmt.Sprintf(`[...document.querySelectorAll(".community-tab")].find(a => a.textContent === %s)`, js(name)))
	p.waitFor("the "+name+" tab open", fmt.Sprintf(`document.querySelector(".community-tab.current")?.textContent === %s`, js(name)))
}

// tabs are the names of the community's tabs the page offers.
func (p *page) tabs() string {
	p.t.Helper()
	return eval[string](p, `[...document.querySelectorAll(".community-tab")].map(a => a.textContent).join(",")`)
}

// TestAdminSetupWizard: the first person on a new server joins as the owner and is taken
// through the setup wizard: name, description, invite only, the channel mode and the first
// channels; finishing completes the setup and opens the first channel.
func TestAdminSetupWizard(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv := webtest.Start(t)
	olivia := openPage(t, browser, "olivia", 1280, 800)
	olivia.signIn(srv, "olivia")
	olivia.join("Olivia")

	t.Log("the wizard opens by itself; nothing else is offered before it is done")
	olivia.waitFor("the wizard", `document.querySelector(".wizard form")?.getAttribute("aria-label") === "Step 1 of 3: About"`)
	olivia.allNamed("the setup wizard")
	olivia.setText(field("Community name"), "Hearth Garden Club")
	olivia.setText(field("Description"), "Gardeners of the **north side**: seeds, tools and advice.")
	adminShot(t, olivia, "admin-setup.png")
	olivia.clickJS("Next", button(".wizard", "Next"))

	olivia.waitFor("step 2", `document.querySelector(".wizard form")?.getAttribute("aria-label") === "Step 2 of 3: Joining"`)
	olivia.clickJS("Invite only", `[...document.querySelectorAll(".wizard label.check")].find(l => l.textContent.startsWith("Invite only")).querySelector("input")`)
	olivia.clickJS("People choose their channels", `[...document.querySelectorAll(".wizard label.check")].find(l => l.textContent.startsWith("People choose")).querySelector("input")`)
	olivia.clickJS("Next", button(".wizard", "Next"))

	olivia.waitFor("step 3 with two channels suggested", `document.querySelectorAll(".wizard input[aria-label^='Channel ']").length === 2`)
	olivia.clickJS("Remove channel 2", button(".wizard", "Remove channel 2"))
	olivia.clickJS("Add a channel", button(".wizard", "Add a channel"))
	olivia.setText(`document.querySelector(".wizard input[aria-label='Channel 2']")`, "Seed Swap")
	olivia.clickJS("Finish setup", button(".wizard", "Finish setup"))

	t.Log("finished: the first channel is open and the community is set up")
	olivia.waitFor("#general open", `document.querySelector(".channel-title")?.textContent.endsWith("general")`)
	olivia.waitFor("the sidebar with the name and both channels", `document.querySelector(".server-name")?.textContent === "Hearth Garden Club" && !!document.querySelector('.side-link[aria-label="#seed-swap"]') && !document.querySelector(".setup-note")`)
	if srv.Engine.NeedsSetup() {
		t.Fatal("the community still needs setup")
	}
	info, err := srv.Client("").Server.GetServerInfo(context.Background(), connect.NewRequest(&svcv1.GetServerInfoRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Msg; got.GetName() != "Hearth Garden Club" || !got.GetInviteOnly() || got.GetDescription() != "Gardeners of the **north side**: seeds, tools and advice." {
		t.Errorf("the card after the wizard: %v", got)
	}
	st := olivia.state(srv, "olivia")
	if st.GetChannelMode() != svcv1.ChannelMode_CHANNEL_MODE_OPT_IN {
		t.Errorf("channel mode %v, want OPT_IN", st.GetChannelMode())
	}
	var names []string
	for _, c := range st.GetChannels() {
		names = append(names, fmt.Sprintf("%s default=%v", c.GetName(), c.GetIsDefault()))
	}
	if fmt.Sprint(names) != "[general default=true seed-swap default=false]" {
		t.Errorf("channels after the wizard: %v", names)
	}
	olivia.noErrors(srv.URL)
}

// eventually waits until get returns want: the page shows a move at once, and its calls reach
// the server one after another.
func eventually(t *testing.T, what, want string, get func() string) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	got := get()
	for got != want && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		got = get()
	}
	if got != want {
		t.Errorf("%s: %s, want %s", what, got, want)
	}
}

// state is GetState as sub sees it.
func (p *page) state(srv *webtest.Server, sub string) *svcv1.GetStateResponse {
	p.t.Helper()
	res, err := srv.Client(srv.Token(sub)).Chat.GetState(context.Background(), connect.NewRequest(&svcv1.GetStateRequest{}))
	if err != nil {
		p.t.Fatal(err)
	}
	return res.Msg
}

// TestAdminRoleLimitedChannel: an admin creates a role and a channel limited to it; a member
// does not see the channel until the admin gives them the role from their card, and then sees
// it live. Deleting the role while it limits the channel is refused with the server's words.
// The member is offered only the members page, and no rank or role controls.
func TestAdminRoleLimitedChannel(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, owner, _ := community(t)
	ctx := context.Background()
	adam := srv.Join("adam")
	rename(t, adam, "Adam Admin", "", "")
	if _, err := owner.Server.SetMemberRole(ctx, connect.NewRequest(&svcv1.SetMemberRoleRequest{MemberId: adam.Member.GetId(), Role: svcv1.MemberRole_MEMBER_ROLE_ADMIN})); err != nil {
		t.Fatal(err)
	}
	mia := srv.Join("mia")
	rename(t, mia, "Mia Member", "", "")

	admin := openPage(t, browser, "adam", 1280, 800)
	admin.signIn(srv, "adam")
	member := openPage(t, browser, "mia", 1280, 800)
	member.signIn(srv, "mia")
	member.waitFor("mia's chat", `!!document.querySelector(".side-link")`)

	t.Log("the admin creates a role")
	admin.click(`a.community-link[aria-label="Community settings"]`)
	admin.waitFor("the settings", `document.querySelector(".community-tab.current")?.textContent === "Settings"`)
	if got := admin.tabs(); got != "Settings,Channels,Roles,Members,Invites,Status" {
		t.Errorf("an admin's tabs: %s", got)
	}
	admin.tab("Roles")
	admin.setText(field("Role name"), "Gardeners")
	admin.clickJS("the green swatch", `document.querySelector('.admin-section input[aria-label="green"]')`)
	admin.clickJS("Create role", button(".admin-section", "Create role"))
	admin.waitFor("the role in the list", `[...document.querySelectorAll(".role-row .role-chip")].some(c => c.textContent === "Gardeners")`)

	t.Log("a second role, renamed, moved first from the keyboard, and deleted")
	roleOrder := `[...document.querySelectorAll(".role-row .role-chip")].map(c => c.textContent).join(",")`
	admin.setText(field("Role name"), "Helpers")
	admin.clickJS("Create role", button(".admin-section", "Create role"))
	admin.waitFor("two roles", roleOrder+` === "Gardeners,Helpers"`)
	admin.clickJS("Edit Helpers", button(".role-row", "Edit Helpers"))
	admin.setText(`document.querySelector('form[aria-label="Edit Helpers"] input.input')`, "Volunteers")
	admin.clickJS("the violet swatch", `document.querySelector('form[aria-label="Edit Helpers"] input[aria-label="violet"]')`)
	admin.clickJS("Save", button(`form[aria-label="Edit Helpers"]`, "Save"))
	admin.waitFor("renamed", roleOrder+` === "Gardeners,Volunteers"`)
	admin.waitFor("the focus on Volunteers' handle", `(document.querySelector('[aria-label="Move Volunteers"]').focus(), document.activeElement === document.querySelector('[aria-label="Move Volunteers"]'))`)
	admin.run(press("ArrowUp", 38, "", 0))
	admin.waitFor("moved first", roleOrder+` === "Volunteers,Gardeners"`)
	eventually(t, "the roles on the server", "[Volunteers:#7c3aed Gardeners:#15803d]", func() string {
		var out []string
		for _, r := range admin.state(srv, "adam").GetRoles() {
			out = append(out, r.GetName()+":"+r.GetColor())
		}
		return fmt.Sprint(out)
	})
	admin.clickJS("Delete Volunteers", button(".role-row", "Delete Volunteers"))
	admin.clickJS("Delete role", button(".confirm-box", "Delete role"))
	admin.waitFor("deleted", roleOrder+` === "Gardeners"`)

	t.Log("a channel limited to the role")
	admin.tab("Channels")
	admin.setText(field("Name"), "Greenhouse")
	admin.setText(field("Topic"), "For the greenhouse crew")
	admin.clickJS("Create channel", button(".admin-section", "Create channel"))
	admin.waitFor("its settings", `document.querySelector("dialog[open] .dialog-head h2")?.textContent === "#greenhouse"`)
	admin.clickJS("limit to roles", `[...document.querySelectorAll("dialog[open] label.check")].find(l => l.textContent.startsWith("Only members with")).querySelector("input")`)
	admin.clickJS("Gardeners", `[...document.querySelectorAll("dialog[open] .role-checks label")].find(l => l.textContent === "Gardeners").querySelector("input")`)
	admin.clickJS("Save access", button("dialog[open]", "Save access"))
	admin.waitFor("saved", `[...document.querySelectorAll("dialog[open] .ok-row")].some(p => p.textContent === "Saved.")`)
	admin.allNamed("a channel's settings")
	adminShot(t, admin, "admin-channel-settings.png")
	admin.closeDialog()
	admin.waitFor("the row says who sees it", `[...document.querySelectorAll(".channel-row")].some(r => r.textContent.includes("greenhouse") && r.textContent.includes("Only Gardeners"))`)
	adminShot(t, admin, "admin-channels.png")

	if member.sideLabel("greenhouse") != "" {
		t.Fatal("mia sees #greenhouse before she has the role")
	}

	t.Log("the refusal to delete a role that limits a channel, in the server's words")
	admin.tab("Roles")
	admin.clickJS("Delete Gardeners", button(".role-row", "Delete Gardeners"))
	admin.clickJS("Delete role", button(".confirm-box", "Delete role"))
	admin.waitFor("the refusal", `/greenhouse/.test(document.querySelector(".confirm-box [role=alert]")?.textContent ?? "")`)
	adminShot(t, admin, "admin-roles.png")
	admin.clickJS("Keep it", button(".confirm-box", "Keep it"))

	t.Log("the admin gives mia the role from her card; she sees the channel live")
	admin.tab("Members")
	admin.setText(`document.querySelector('.admin-section input[type="search"]')`, "mia")
	admin.waitFor("one match", `document.querySelectorAll(".member-list .member-row").length === 1`)
	admin.clickJS("Mia's row", `document.querySelector(".member-list .member-row")`)
	admin.waitFor("her card with the controls", `document.querySelector("dialog[open] .member-admin select") !== null`)
	if got := eval[string](admin, `[...document.querySelectorAll("dialog[open] .member-admin select option")].map(o => o.textContent).join(",")`); got != "Member,Moderator" {
		t.Errorf("ranks an admin may give: %s", got)
	}
	admin.clickJS("Gardeners", `[...document.querySelectorAll("dialog[open] .role-control label")].find(l => l.textContent === "Gardeners").querySelector("input")`)
	admin.waitFor("saved", `[...document.querySelectorAll("dialog[open] .ok-row")].some(p => p.textContent === "Saved.")`)
	adminShot(t, admin, "admin-member-card.png")
	member.waitFor("#greenhouse in mia's sidebar", `!!document.querySelector('.side-link[aria-label="#greenhouse"]')`)
	admin.closeDialog()

	t.Log("a member is offered the members page only, and no controls on a card")
	member.click(`a.community-link[aria-label="Members of the community"]`)
	member.waitFor("the members page", `document.querySelector(".community-tab.current")?.textContent === "Members"`)
	if got := member.tabs(); got != "Members" {
		t.Errorf("a member's tabs: %s", got)
	}
	member.run(chromedp.Navigate(srv.URL + "/app/#/community/settings"))
	member.waitFor("the members page instead of the settings", `document.querySelector(".community-tab.current")?.textContent === "Members" && !document.querySelector(".image-field")`)
	member.clickJS("Adam's row", `[...document.querySelectorAll(".member-list .member-row")].find(r => r.textContent.includes("Adam Admin"))`)
	member.waitFor("adam's card", `!!document.querySelector("dialog[open] .member-card")`)
	if eval[bool](member, `!!document.querySelector("dialog[open] .member-admin select, dialog[open] .member-admin input")`) {
		t.Error("a member is offered rank or role controls")
	}
	member.closeDialog()
	adminShot(t, member, "admin-members.png")
	member.allNamed("the members page")

	t.Log("made a moderator, mia is offered the invites too, live")
	admin.clickJS("Mia's row", `document.querySelector(".member-list .member-row")`)
	admin.waitFor("her card", `document.querySelector("dialog[open] .member-admin select") !== null`)
	admin.eval0(`(() => { const s = document.querySelector("dialog[open] .member-admin select"); s.value = "2"; s.dispatchEvent(new Event("change", {bubbles: true})); })()`)
	admin.waitFor("the new rank said", `document.querySelector("dialog[open] .rank-control .ok-row")?.textContent === "Mia Member is now a moderator."`)
	member.waitFor("the invites tab", `[...document.querySelectorAll(".community-tab")].map(a => a.textContent).join(",") === "Members,Invites"`)
	admin.noErrors(srv.URL)
	member.noErrors(srv.URL)
}

// TestAdminInviteOneUse: the owner makes the community invite only in the settings, creates an
// invite with one use and copies its link; the first person who follows it joins, the second is
// refused with the server's words, and the list shows the invite used up. Revoking an invite
// takes it off the list.
func TestAdminInviteOneUse(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, _ := community(t)
	olivia := openPage(t, browser, "olivia", 1280, 800)
	olivia.signIn(srv, "olivia")

	t.Log("the settings: invite only, a join question, retention, the accent colour, the description's preview")
	olivia.click(`a.community-link[aria-label="Community settings"]`)
	olivia.waitFor("the settings", `!!document.querySelector('form[aria-label="Community settings"]')`)
	olivia.clickJS("Invite only", `[...document.querySelectorAll(".admin-section label.check")].find(l => l.textContent.startsWith("Invite only")).querySelector("input")`)
	olivia.clickJS("the blue swatch", `document.querySelector('.admin-section input[aria-label="blue"]')`)
	olivia.setText(`document.querySelector("#community-description")`, "A *friendly* place.")
	olivia.clickJS("Add a question", button(".admin-section", "Add a question"))
	olivia.setText(`document.querySelector('input[aria-label="Question 1"]')`, "Who told you about us?")
	olivia.clickJS("Delete messages older than", `[...document.querySelectorAll('input[name="retention"]')][1]`)
	olivia.setText(`document.querySelector('input[aria-label="Days to keep messages"]')`, "30")
	olivia.clickJS("Preview", button(".admin-section", "Preview"))
	olivia.waitFor("the preview", `document.querySelector(".markdown-preview em")?.textContent === "friendly"`)
	olivia.allNamed("the community settings")
	olivia.clickJS("Save settings", button("form", "Save settings"))
	olivia.waitFor("saved", `[...document.querySelectorAll(".ok-row")].some(p => p.textContent === "Saved.")`)
	olivia.waitFor("the accent colour applied", `getComputedStyle(document.documentElement).getPropertyValue("--accent").trim() === "#1d4ed8"`)
	adminShot(t, olivia, "admin-settings.png")
	info, err := srv.Client("").Server.GetServerInfo(context.Background(), connect.NewRequest(&svcv1.GetServerInfoRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if m := info.Msg; !m.GetInviteOnly() || m.GetAccentColor() != "#1d4ed8" || m.GetDescription() != "A *friendly* place." ||
		fmt.Sprint(m.GetJoinQuestions()) != "[Who told you about us?]" || m.GetRetentionDays() != 30 {
		t.Fatalf("the settings saved: %v", info.Msg)
	}

	t.Log("an invite with one use")
	olivia.tab("Invites")
	olivia.waitFor("no invites yet", `document.querySelector("#invites-title")?.parentElement.textContent.includes("There are no invites.")`)
	olivia.eval0(`(() => { const s = [...document.querySelectorAll("label.field")].find(l => l.firstElementChild?.textContent === "Uses").querySelector("select"); s.value = "1"; s.dispatchEvent(new Event("change", {bubbles: true})); })()`)
	olivia.clickJS("Create invite", button(".admin-section", "Create invite"))
	olivia.waitFor("the invite listed", `document.querySelectorAll(".invite-row").length === 1`)
	code := eval[string](olivia, `document.querySelector(".invite-row").dataset.code`)
	link := eval[string](olivia, `document.querySelector(".invite-row input.invite-link").value`)
	if link != srv.URL+"/invite/"+code {
		t.Errorf("the invite's link is %q", link)
	}
	olivia.clickJS("Copy link", button(".invite-row", "Copy the link of invite "+code))
	olivia.waitFor("copied", `document.querySelector(".invite-row .invite-link-row button")?.textContent === "Copied" || document.activeElement === document.querySelector(".invite-row input.invite-link")`)
	olivia.allNamed("the invites")

	// followInvite opens the invite link as sub, signs in, and answers the join question.
	followInvite := func(sub, answer string) *page {
		p := openPage(t, browser, sub, 1280, 800)
		p.run(chromedp.Navigate(link))
		p.waitFor("the sign-in page", `!!document.querySelector("#signin-title")`)
		p.signIn(srv, sub)
		p.waitFor("the join page with the code", fmt.Sprintf(`%s?.value === %s`, field("Invite code"), js(code)))
		p.setText(field("Who told you about us?"), answer)
		return p
	}

	t.Log("the first person joins with it")
	nina := followInvite("nina", "A neighbour")
	nina.join("Nina")

	t.Log("the second is refused, in the server's words")
	omar := followInvite("omar", "A poster")
	omar.click(`.welcome-box button[type="submit"]`)
	omar.waitFor("the refusal", `/invite/i.test(document.querySelector(".welcome-box [role=alert]")?.textContent ?? "")`)
	_, err = srv.Client(srv.Token("omar")).Server.Join(context.Background(), connect.NewRequest(&svcv1.JoinRequest{InviteCode: code, Answers: []string{"A poster"}}))
	if connect.CodeOf(err) != connect.CodePermissionDenied {
		t.Fatalf("a second join with the invite: %v", err)
	}
	var ce *connect.Error
	if errors.As(err, &ce) && eval[string](omar, `document.querySelector(".welcome-box [role=alert]").textContent`) != ce.Message() {
		t.Errorf("the page does not show the server's words %q", ce.Message())
	}

	t.Log("the list shows it used up; a second invite is revoked")
	olivia.waitFor("used up", `document.querySelector(".invite-row .invite-state")?.textContent === "Used up" && document.querySelector(".invite-row").textContent.includes("1 of 1 uses")`)
	olivia.clickJS("Create invite", button(".admin-section", "Create invite"))
	olivia.waitFor("two invites", `document.querySelectorAll(".invite-row").length === 2`)
	adminShot(t, olivia, "admin-invites.png")
	second := eval[string](olivia, `document.querySelector(".invite-row.invite-fresh").dataset.code`)
	olivia.clickJS("Revoke", button(".invite-fresh", "Revoke invite "+second))
	olivia.clickJS("Revoke invite", button(".invite-fresh .confirm-box", "Revoke invite"))
	olivia.waitFor("one invite left", `document.querySelectorAll(".invite-row").length === 1 && document.querySelector(".invite-row").dataset.code === `+js(code))

	if os.Getenv("HEARTH_SCREENSHOTS") != "" {
		dark(t, olivia, true)
		olivia.tab("Settings")
		adminShot(t, olivia, "admin-settings-dark.png")
		dark(t, olivia, false)
		phone := openTab(t, olivia, "olivia on a phone", 390, 844)
		phone.run(chromedp.Navigate(srv.URL + "/app/#/community/channels"))
		phone.waitFor("the channels", `document.querySelectorAll(".reorder-row").length === 2`)
		adminShot(t, phone, "admin-phone.png")
	}
	olivia.noErrors(srv.URL)
	nina.noErrors(srv.URL)
}

// TestAdminChannels: the owner orders channels from the keyboard and by dragging, gives a
// channel a header image that a member sees, makes a private channel and adds and removes a
// member, who then leaves it from the channel's own settings.
func TestAdminChannels(t *testing.T) {
	t.Parallel()
	browser := startBrowser(t)
	srv, _, ids := community(t)
	mia := srv.Join("mia")
	rename(t, mia, "Mia Member", "", "")
	owner := openPage(t, browser, "olivia", 1280, 800)
	owner.signIn(srv, "olivia")
	member := openPage(t, browser, "mia", 1280, 800)
	member.signIn(srv, "mia")
	member.openChannel("general")
	sideOrder := `[...document.querySelectorAll(".sidebar .side-section:first-child .side-name")].map(e => e.textContent).join(",")`

	t.Log("the keyboard moves #random above #general, here, in the sidebar and on the server")
	owner.run(chromedp.Navigate(srv.URL + "/app/#/community/channels"))
	owner.waitFor("the channels", `document.querySelectorAll(".reorder-row").length === 2`)
	owner.waitFor("the focus on #random's handle", `(document.querySelector('[aria-label="Move #random"]').focus(), document.activeElement === document.querySelector('[aria-label="Move #random"]'))`)
	owner.run(press("ArrowUp", 38, "", 0))
	owner.waitFor("the move said", `[...document.querySelectorAll(".reorder [aria-live]")].some(e => e.textContent === "#random moved to position 1 of 2 in Channels.")`)
	owner.waitFor("the focus kept on the handle", `document.activeElement?.getAttribute("aria-label") === "Move #random"`)
	member.waitFor("mia's sidebar in the new order", sideOrder+` === "random,general"`)
	positions := func() string {
		var out []string
		for _, c := range owner.state(srv, "olivia").GetChannels() {
			out = append(out, fmt.Sprintf("%s:%d", c.GetName(), c.GetPosition()))
		}
		return fmt.Sprint(out)
	}
	eventually(t, "positions after the keyboard move", "[random:0 general:1]", positions)

	t.Log("dragging #general back above #random")
	drag := func(event, id string, y string) {
		owner.eval0(fmt.Sprintf(`(() => { const row = document.querySelector('.reorder-row[data-id=%s]'); const box = row.getBoundingClientRect(); row.dispatchEvent(new DragEvent(%s, {bubbles: true, cancelable: true, dataTransfer: new DataTransfer(), clientX: box.left + 40, clientY: %s})); })()`, js(id), js(event), y))
	}
	drag("dragstart", ids["general"], "box.top + 5")
	owner.waitFor("the row dragged", `!!document.querySelector(".reorder-row.is-dragged")`)
	drag("dragover", ids["random"], "box.top + 5")
	owner.waitFor("the drop place shown", `!!document.querySelector(".reorder-row.drop-before")`)
	drag("drop", ids["random"], "box.top + 5")
	member.waitFor("mia's sidebar in the first order", sideOrder+` === "general,random"`)
	owner.waitFor("the list in the first order", `[...document.querySelectorAll(".reorder-row")].map(r => r.dataset.id).join(",") === `+js(ids["general"]+","+ids["random"]))
	eventually(t, "positions after the drag", "[general:0 random:1]", positions)

	t.Log("a header image for #general, which mia sees")
	owner.clickJS("Settings of #general", button(".channel-row", "Settings of #general"))
	owner.waitFor("its settings", `document.querySelector("dialog[open] .dialog-head h2")?.textContent === "#general"`)
	picture := writePNG(t, "header.png", 900, 200)
	owner.run(chromedp.SetUploadFiles(chromedp.CSS(`dialog[open] input[type=file][aria-label="Upload the header image"]`), []string{picture}))
	owner.waitFor("the picture shown", `document.querySelector('dialog[open] img[alt="The header image"]')?.complete`)
	owner.closeDialog()
	member.waitFor("the header image in mia's #general", `document.querySelector(".channel-view .channel-header-image")?.complete`)

	t.Log("a private channel: mia added, removed, added again; she leaves it herself")
	owner.setText(field("Name"), "committee")
	owner.clickJS("Private", `[...document.querySelectorAll(".admin-section label.check")].find(l => l.textContent.startsWith("Private")).querySelector("input")`)
	owner.clickJS("Create channel", button(".admin-section", "Create channel"))
	owner.waitFor("its settings", `document.querySelector("dialog[open] .dialog-head h2")?.textContent === "#committee"`)
	add := func() {
		owner.setText(field("Add people"), "mia")
		owner.clickJS("Add Mia", button("dialog[open]", "Add Mia Member to #committee"))
		member.waitFor("#committee in mia's sidebar", `!!document.querySelector('.side-link[aria-label="#committee"]')`)
	}
	add()
	owner.waitFor("two people in it", `document.querySelector("#private-members-title")?.textContent === "People in this private channel (2)"`)
	adminShot(t, owner, "admin-private-channel.png")
	owner.allNamed("a private channel's settings")
	owner.clickJS("Remove Mia", button("dialog[open]", "Remove Mia Member from #committee"))
	member.waitFor("#committee gone from mia's sidebar", `!document.querySelector('.side-link[aria-label="#committee"]')`)
	add()
	owner.closeDialog()
	member.openChannel("committee")
	member.click(`.channel-head button[aria-label="Settings of #committee"]`)
	member.waitFor("only what a member may do", `!!document.querySelector("#private-members-title") && !document.querySelector("dialog[open] .image-field") && !document.querySelector('dialog[open] button[aria-label^="Remove "]')`)
	member.clickJS("Leave", button("dialog[open]", "Leave #committee"))
	member.clickJS("Leave, confirmed", button("dialog[open] .confirm-box", "Leave"))
	member.waitFor("#committee gone, the dialog closed", `!document.querySelector('.side-link[aria-label="#committee"]') && !document.querySelector("dialog[open]")`)
	owner.waitFor("one person left in it", `[...document.querySelectorAll(".channel-row")].some(r => r.textContent.includes("committee") && r.textContent.includes("Private · 1 member"))`)
	owner.noErrors(srv.URL)
	member.noErrors(srv.URL)
}
