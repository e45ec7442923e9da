package main

import (
	"fmt"
	"log/slog"
)

// exitEngineStopped is the exit code of a server whose database failed to store a change
// (a commit of unknown outcome, engine/commitfail.go). The engine then takes no change until
// a restart, which settles what the disk holds; a process that stayed up would refuse every
// change and fail its health check until someone noticed. It exits instead, with a code of its
// own (1 is any other failure, 2 bad flags), for its supervisor (systemd's Restart=on-failure,
// a container's restart policy) to start it again.
const exitEngineStopped = 3

// exitError ends the process with its code; run prints err.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// engineStopped is how serve ends when the engine stopped taking changes: it logs why, and
// serve shuts down as on SIGTERM (streams, requests in progress, then the database) and
// returns this error, which exits with exitEngineStopped.
func engineStopped(cause error, log *slog.Logger) error {
	log.Error("the database failed to store a change; shutting down to be restarted", "err", cause, "exit_code", exitEngineStopped)
	return exitError{code: exitEngineStopped, err: fmt.Errorf("shut down to be restarted: %w", cause)}
}
