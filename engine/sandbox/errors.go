package sandbox

import (
	"errors"
	"fmt"
)

// ErrUnreadable is the error of every call whose input made the guest fail: it crashed,
// trapped, panicked, ran out of memory or time, or answered with garbage or too much.
// Returned errors wrap it with what happened, for the server's log; its own message is the
// one to show a user.
var ErrUnreadable = errors.New("could not read this file")

// ErrClosed is returned by calls on a Sandbox that is closed or closing.
var ErrClosed = errors.New("sandbox: closed")

// Causes with which the host stops an instance, told apart after it has ended.
var (
	errTimeout        = errors.New("deadline")
	errOutputTooLarge = errors.New("output over limit")
)

func unreadable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnreadable, fmt.Sprintf(format, args...))
}
