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

// wireCode is what one engine code becomes on the wire: a Connect code for the calls, an HTTP
// status for the plain endpoints.
type wireCode struct {
	connect connect.Code
	status  int
}

// wireCodes maps every engine code to the wire, for calls and plain endpoints alike: the one
// place this happens. A body over its size limit is a bad argument to a call (the field and its
// limit are in the message) and 413 on a plain endpoint, where the body is the request.
var wireCodes = map[engine.Code]wireCode{
	engine.CodeInternal:           {connect.CodeInternal, http.StatusInternalServerError},
	engine.CodeInvalidArgument:    {connect.CodeInvalidArgument, http.StatusBadRequest},
	engine.CodeNotFound:           {connect.CodeNotFound, http.StatusNotFound},
	engine.CodeAlreadyExists:      {connect.CodeAlreadyExists, http.StatusConflict},
	engine.CodePermissionDenied:   {connect.CodePermissionDenied, http.StatusForbidden},
	engine.CodeFailedPrecondition: {connect.CodeFailedPrecondition, http.StatusBadRequest},
	engine.CodeResourceExhausted:  {connect.CodeResourceExhausted, http.StatusTooManyRequests},
	engine.CodeUnauthenticated:    {connect.CodeUnauthenticated, http.StatusUnauthorized},
	engine.CodeUnavailable:        {connect.CodeUnavailable, http.StatusServiceUnavailable},
	engine.CodeUnimplemented:      {connect.CodeUnimplemented, http.StatusNotImplemented},
	engine.CodeTooLarge:           {connect.CodeInvalidArgument, http.StatusRequestEntityTooLarge},
	engine.CodeTooSlow:            {connect.CodeDeadlineExceeded, http.StatusRequestTimeout},
}

// wireCodeOf is the wire form of an engine code; an unknown code is internal.
func wireCodeOf(c engine.Code) wireCode {
	if w, ok := wireCodes[c]; ok {
		return w
	}
	return wireCodes[engine.CodeInternal]
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
		out := connect.NewError(wireCodeOf(ee.Code).connect, errors.New(ee.Msg))
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
	case errors.Is(err, engine.ErrDiskFull):
		// resource_exhausted on a call, but no rate limit to wait out.
		return http.StatusInsufficientStorage
	}
	return wireCodeOf(engine.CodeOf(err)).status
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
