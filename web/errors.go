package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"connectrpc.com/connect"

	"hearth/engine"
)

// connectCodes maps each engine code to its Connect code: the one place this happens.
var connectCodes = map[engine.Code]connect.Code{
	engine.CodeInternal:           connect.CodeInternal,
	engine.CodeInvalidArgument:    connect.CodeInvalidArgument,
	engine.CodeNotFound:           connect.CodeNotFound,
	engine.CodeAlreadyExists:      connect.CodeAlreadyExists,
	engine.CodePermissionDenied:   connect.CodePermissionDenied,
	engine.CodeFailedPrecondition: connect.CodeFailedPrecondition,
	engine.CodeResourceExhausted:  connect.CodeResourceExhausted,
	engine.CodeUnauthenticated:    connect.CodeUnauthenticated,
	engine.CodeUnavailable:        connect.CodeUnavailable,
	engine.CodeUnimplemented:      connect.CodeUnimplemented,
	engine.CodeTooLarge:           connect.CodeInvalidArgument,
}

// toConnect turns an engine error into a Connect error; anything unexpected becomes a plain
// internal error, so no internals reach the client.
func toConnect(err error) error {
	if err == nil {
		return nil
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		return ce
	}
	var ee *engine.Error
	if errors.As(err, &ee) {
		out := connect.NewError(connectCodes[ee.Code], errors.New(ee.Msg))
		if ee.RetryAfter > 0 {
			out.Meta().Set("Retry-After", retryAfter(ee))
		}
		return out
	}
	switch {
	case errors.Is(err, context.Canceled):
		return connect.NewError(connect.CodeCanceled, errors.New("the call was canceled"))
	case errors.Is(err, context.DeadlineExceeded):
		return connect.NewError(connect.CodeDeadlineExceeded, errors.New("the call ran out of time"))
	}
	return connect.NewError(connect.CodeInternal, errors.New("internal error"))
}

// retryAfter is the Retry-After header value: whole seconds, at least 1.
func retryAfter(ee *engine.Error) string {
	s := int((ee.RetryAfter + 999_999_999) / 1_000_000_000)
	return strconv.Itoa(max(s, 1))
}

// httpStatus maps an engine error to the status of a plain HTTP endpoint.
func httpStatus(err error) int {
	switch {
	case errors.Is(err, context.Canceled):
		return http.StatusBadRequest // the client went away: nobody reads this
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable
	}
	switch engine.CodeOf(err) {
	case engine.CodeInvalidArgument, engine.CodeFailedPrecondition:
		return http.StatusBadRequest
	case engine.CodeUnauthenticated:
		return http.StatusUnauthorized
	case engine.CodePermissionDenied:
		return http.StatusForbidden
	case engine.CodeNotFound:
		return http.StatusNotFound
	case engine.CodeAlreadyExists:
		return http.StatusConflict
	case engine.CodeResourceExhausted:
		return http.StatusTooManyRequests
	case engine.CodeUnavailable:
		return http.StatusServiceUnavailable
	case engine.CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusInternalServerError
}

// writeError answers a plain endpoint's failure as API.md says: `{"error": "<text>"}` with the
// status of the engine's code (and Retry-After on a rate limit). Anything that is not an
// engine error is an internal error, whose details stay in the server.
func writeError(w http.ResponseWriter, err error) {
	msg := "internal error"
	var ee *engine.Error
	switch {
	case errors.Is(err, context.Canceled):
		msg = "the request was canceled"
	case errors.Is(err, context.DeadlineExceeded):
		msg = "the request ran out of time"
	case errors.As(err, &ee):
		msg = ee.Msg
		if ee.RetryAfter > 0 {
			w.Header().Set("Retry-After", retryAfter(ee))
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(httpStatus(err))
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
