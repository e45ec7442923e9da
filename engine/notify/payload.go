package notify

import (
	"encoding/json"
	"net/url"
)

// payload is what a push carries, before encryption (EXTENSIONS.md 7). The service worker
// shows title and body, replaces an earlier notification of the same tag, and opens url on a
// click.
type payload struct {
	Type         string `json:"type"`
	ChannelID    string `json:"channel_id"`
	MessageID    string `json:"message_id"`
	ThreadRootID string `json:"thread_root_id"`
	ReportID     string `json:"report_id,omitempty"`
	Title        string `json:"title"`
	Body         string `json:"body"`
	URL          string `json:"url"`
	Tag          string `json:"tag"`
}

func (p payload) encode() ([]byte, error) { return json.Marshal(p) }

// messageURL is the web client's link to a message: the message in its channel, or for a
// thread reply its thread beside the channel.
func (s *Service) messageURL(channelID, messageID, rootID string) string {
	u := s.webURL + "/#/c/" + url.PathEscape(channelID)
	if rootID != "" {
		return u + "/t/" + url.PathEscape(rootID)
	}
	return u + "/m/" + url.PathEscape(messageID)
}
