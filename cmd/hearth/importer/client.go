// Package importer reads the exports of other chat services (DiscordChatExporter's JSON,
// Slack's workspace export) and hands their people, channels, files and messages to a running
// Hearth over its admin socket (<data>/admin.sock), as `hearth import` does. What the server
// does with them is in engine/imports.go; this side reads the export as a stream, never whole,
// puts each channel's messages in time order, and sends them in batches.
package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"hearth/cmd/hearth/internal/adminsock"
	"hearth/web"
)

// Client talks to the running server over <data>/admin.sock.
type Client struct {
	data, sock string
	hc         *http.Client
}

// NewClient is a client of the server whose data directory is data.
func NewClient(data string) *Client {
	sock := adminsock.Path(data)
	return &Client{data: data, sock: sock, hc: adminsock.Client(sock)}
}

// post sends a request to the admin socket and decodes its JSON answer into out.
func (c *Client) post(ctx context.Context, path string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://hearth"+path, body)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if u := adminsock.Unreachable(err, c.data, c.sock); u != nil {
			return u
		}
		if ctx.Err() != nil {
			return errors.New("interrupted")
		}
		return fmt.Errorf("the server stopped answering on %s (%v)", c.sock, errors.Unwrap(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &ServerError{Status: resp.StatusCode, Msg: readError(resp)}
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// postJSON sends v as JSON.
func (c *Client) postJSON(ctx context.Context, path string, v, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.post(ctx, path, bytes.NewReader(b), out)
}

// ServerError is a refusal of the server: its HTTP status and what it said.
type ServerError struct {
	Status int
	Msg    string
}

func (e *ServerError) Error() string { return e.Msg }

// readError is the one line a failed request answers: the "error" of a JSON answer, or the text.
func readError(resp *http.Response) string {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var je struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(b, &je) == nil && je.Error != "" {
		return je.Error
	}
	if msg := strings.TrimSpace(string(b)); msg != "" {
		return msg
	}
	return resp.Status
}

// file sends one file for owner under a source key and returns its upload id.
func (c *Client) file(ctx context.Context, key, owner, name string, body io.Reader, avatar bool) (string, error) {
	q := url.Values{"key": {key}, "owner": {owner}, "name": {name}}
	if avatar {
		q.Set("avatar", "1")
	}
	var out web.ImportFileResponse
	err := c.post(ctx, web.AdminImportFilePath+"?"+q.Encode(), body, &out)
	return out.ID, err
}

// emoji sends a custom emoji's image and returns the name it goes by ("" when refused, with why).
func (c *Client) emoji(ctx context.Context, name string, data []byte) (string, string, error) {
	var out web.ImportEmojiResponse
	err := c.post(ctx, web.AdminImportEmojiPath+"?"+url.Values{"name": {name + ".png"}}.Encode(), bytes.NewReader(data), &out)
	return out.Name, out.Error, err
}
