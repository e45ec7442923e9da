// Package adminsock is the client side of the running server's admin socket
// (<data>/admin.sock): the HTTP client that dials it, and the one line that says why it could
// not be reached. `hearth backup`, `hearth healthcheck` and `hearth import` use it.
package adminsock

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"syscall"

	"hearth/web"
)

// Path is the socket of the data directory data.
func Path(data string) string { return filepath.Join(data, web.AdminSocketName) }

// Client is an HTTP client whose every connection goes to the socket.
func Client(sock string) *http.Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
	}
	return &http.Client{Transport: tr}
}

// Unreachable is the error of a request that found no server at the socket or may not open
// it, in one line; nil for any other error.
func Unreachable(err error, data, sock string) error {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("no Hearth server runs on %s (%s is missing or nobody answers): start it, or check -data", data, sock)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied: run this as the user the server runs as", sock)
	}
	return nil
}
