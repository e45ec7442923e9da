package web

import (
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"hearth/engine"
)

// inviteCodeMax bounds what the redirect passes on: real codes are 10 characters, and the web
// client explains a wrong one better than this endpoint could.
const inviteCodeMax = 64

// inviteRedirect sends a browser that opened an invite link to the web client's join page:
// {web}/#/join?url={base}&invite={code}, both values URL-encoded. It needs no token and looks
// nothing up, so it tells nobody whether a code exists.
func inviteRedirect(webURL, baseURL string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		code := r.PathValue("code")
		if !utf8.ValidString(code) || strings.TrimSpace(code) == "" || utf8.RuneCountInString(code) > inviteCodeMax {
			writeError(w, &engine.Error{Code: engine.CodeInvalidArgument, Msg: "the invite code must be 1 to 64 characters"})
			return
		}
		target := webURL + "/#/join?url=" + url.QueryEscape(baseURL) + "&invite=" + url.QueryEscape(code)
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, target, http.StatusFound)
	}
}
