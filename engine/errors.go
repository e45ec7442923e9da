package engine

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Code says what kind of failure an Error is; the web layer maps each to one Connect code.
type Code int

const (
	CodeInternal Code = iota
	CodeInvalidArgument
	CodeNotFound
	CodeAlreadyExists
	CodePermissionDenied
	CodeFailedPrecondition
	CodeResourceExhausted
	CodeUnauthenticated
	CodeUnavailable
	CodeUnimplemented
	// CodeTooLarge: a body over its size limit (HTTP 413 on plain endpoints).
	CodeTooLarge
	// CodeTooSlow: a request body that did not arrive in time (HTTP 408 on plain endpoints,
	// deadline_exceeded on calls). Keep it last, or move web's table test to the new last code.
	CodeTooSlow
)

// Error is the engine's error: a code and a message for the person who made the call. Messages
// say what was wrong with the input, never internals.
type Error struct {
	Code Code
	Msg  string
	// RetryAfter is set on rate limit errors: how long until the call may succeed.
	RetryAfter time.Duration
}

func (e *Error) Error() string { return e.Msg }

func newError(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: cutMessage(fmt.Sprintf(format, args...))}
}

// errorMessageMax bounds an error's message. Messages quote the caller's own values (an id
// that names nothing, a name refused), and a request may carry megabytes of them: the answer
// and the log line of a failed call stay small whatever was sent.
const errorMessageMax = 1024

// cutMessage cuts msg to errorMessageMax bytes on a character boundary, marking the cut.
func cutMessage(msg string) string {
	if len(msg) <= errorMessageMax {
		return msg
	}
	const mark = "… (cut)"
	n := errorMessageMax - len(mark)
	for n > 0 && !utf8.RuneStart(msg[n]) {
		n--
	}
	return msg[:n] + mark
}

func invalid(format string, args ...any) *Error {
	return newError(CodeInvalidArgument, format, args...)
}
func notFound(format string, args ...any) *Error {
	return newError(CodeNotFound, format, args...)
}
func denied(format string, args ...any) *Error {
	return newError(CodePermissionDenied, format, args...)
}
func precondition(format string, args ...any) *Error {
	return newError(CodeFailedPrecondition, format, args...)
}
func exists(format string, args ...any) *Error { return newError(CodeAlreadyExists, format, args...) }

// rateLimited is a resource_exhausted error that says when to retry.
func rateLimited(what string, wait time.Duration) *Error {
	wait = wait.Round(time.Millisecond)
	if wait < time.Millisecond {
		wait = time.Millisecond
	}
	return &Error{
		Code:       CodeResourceExhausted,
		Msg:        fmt.Sprintf("%s: rate limit reached; retry in %s", what, wait),
		RetryAfter: wait,
	}
}

// ErrClosed is returned by calls made while the server shuts down.
var ErrClosed = &Error{Code: CodeUnavailable, Msg: "the server is shutting down"}

// CodeOf returns the code of an engine error, CodeInternal for anything else.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}
