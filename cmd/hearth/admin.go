package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"

	"hearth/web"
)

// adminClient talks to the running server over <data>/admin.sock.
type adminClient struct {
	data, sock string
	hc         *http.Client
}

func newAdminClient(data string) *adminClient {
	sock := filepath.Join(data, web.AdminSocketName)
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
	}
	return &adminClient{data: data, sock: sock, hc: &http.Client{Transport: tr}}
}

// do sends one request; a server that is not there is said in one line.
func (a *adminClient) do(ctx context.Context, method, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://hearth"+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := a.hc.Do(req)
	switch {
	case err == nil:
		return resp, nil
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ECONNREFUSED):
		return nil, errServerDown{fmt.Sprintf("no Hearth server runs on %s (%s is missing or nobody answers): start it, or check -data", a.data, a.sock)}
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("%s: permission denied: run this as the user the server runs as", a.sock)
	}
	return nil, err
}

// call fetches one JSON answer into v.
func (a *adminClient) call(ctx context.Context, method, path string, v any) error {
	resp, err := a.do(ctx, method, path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New(readError(resp))
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// readError is the one line a failed admin request answers.
func readError(resp *http.Response) string {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if msg := strings.TrimSpace(string(b)); msg != "" {
		return msg
	}
	return resp.Status
}
