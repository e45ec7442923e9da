package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"hearth/cmd/hearth/internal/adminsock"
)

// adminClient talks to the running server over <data>/admin.sock.
type adminClient struct {
	data, sock string
	hc         *http.Client
}

func newAdminClient(data string) *adminClient {
	sock := adminsock.Path(data)
	return &adminClient{data: data, sock: sock, hc: adminsock.Client(sock)}
}

// do sends one request; a server that is not there is said in one line.
func (a *adminClient) do(ctx context.Context, method, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://hearth"+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := a.hc.Do(req)
	if err == nil {
		return resp, nil
	}
	if u := adminsock.Unreachable(err, a.data, a.sock); u != nil {
		return nil, u
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
