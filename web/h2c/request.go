package h2c

import (
	"context"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/http2"
)

// connectionHeaders are HTTP/1 connection-specific headers, malformed in an HTTP/2 request
// (RFC 9113, section 8.2.2).
var connectionHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Transfer-Encoding", "Upgrade"}

// newRequest makes the request of a HEADERS frame opening st, as net/http's HTTP/2 server
// would give it to the handler; a malformed one is a stream error (RFC 9113, section 8.1.1).
func (c *conn) newRequest(st *stream, f *http2.MetaHeadersFrame) (*http.Request, error) {
	malformed := http2.StreamError{StreamID: st.id, Code: http2.ErrCodeProtocol}
	var method, scheme, authority, path string
	for _, hf := range f.PseudoFields() {
		switch hf.Name {
		case ":method":
			method = hf.Value
		case ":scheme":
			scheme = hf.Value
		case ":authority":
			authority = hf.Value
		case ":path":
			path = hf.Value
		default:
			// :protocol (extended CONNECT is not offered) or a response's :status.
			return nil, malformed
		}
	}
	isConnect := method == "CONNECT"
	if isConnect {
		if path != "" || scheme != "" || authority == "" {
			return nil, malformed
		}
	} else if method == "" || path == "" || (scheme != "http" && scheme != "https") {
		return nil, malformed
	}
	if !httpguts.ValidHeaderFieldName(method) {
		return nil, malformed
	}

	regular := f.RegularFields()
	header := make(http.Header, len(regular))
	for _, hf := range regular {
		key := textproto.CanonicalMIMEHeaderKey(hf.Name)
		header[key] = append(header[key], hf.Value)
	}
	for _, k := range connectionHeaders {
		if _, ok := header[k]; ok {
			return nil, malformed
		}
	}
	if te := header["Te"]; len(te) > 1 || len(te) == 1 && te[0] != "trailers" && te[0] != "" {
		return nil, malformed
	}
	if cookies := header["Cookie"]; len(cookies) > 1 {
		header["Cookie"] = []string{strings.Join(cookies, "; ")}
	}
	var trailer http.Header
	for _, v := range header["Trailer"] {
		for key := range strings.SplitSeq(v, ",") {
			key = textproto.CanonicalMIMEHeaderKey(textproto.TrimString(key))
			switch key {
			case "Transfer-Encoding", "Trailer", "Content-Length", "":
			default:
				if trailer == nil {
					trailer = make(http.Header)
				}
				trailer[key] = nil
			}
		}
	}
	delete(header, "Trailer")
	if host := header["Host"]; len(host) == 1 {
		if authority == "" {
			authority = host[0]
		} else if host[0] != authority {
			return nil, malformed
		}
		delete(header, "Host")
	} else if len(host) > 1 {
		return nil, malformed
	}
	if strings.IndexByte(authority, '@') >= 0 && !isConnect {
		return nil, malformed
	}
	if authority != "" && !httpguts.ValidHostHeader(authority) {
		return nil, malformed
	}

	var u *url.URL
	requestURI := path
	if isConnect {
		u, requestURI = &url.URL{Host: authority}, authority
	} else {
		if path[0] != '/' && path != "*" {
			return nil, malformed
		}
		var err error
		if u, err = url.ParseRequestURI(path); err != nil {
			return nil, malformed
		}
	}

	contentLength := int64(0)
	if !f.StreamEnded() {
		contentLength = -1
	}
	if vv, ok := header["Content-Length"]; ok {
		cl, err := strconv.ParseUint(vv[0], 10, 63)
		if err != nil || len(vv) > 1 || f.StreamEnded() && cl != 0 {
			return nil, malformed
		}
		if !f.StreamEnded() {
			contentLength = int64(cl)
			st.declared = int64(cl)
		}
	}

	var ctx context.Context
	ctx, st.cancel = context.WithCancelCause(c.base)
	st.ctx = ctx
	req := &http.Request{
		Method:        method,
		URL:           u,
		Proto:         "HTTP/2.0",
		ProtoMajor:    2,
		Header:        header,
		ContentLength: contentLength,
		Body:          http.NoBody,
		Host:          authority,
		RemoteAddr:    c.remoteAddr,
		RequestURI:    requestURI,
		Trailer:       trailer,
	}
	if !f.StreamEnded() {
		st.body = newBody(st)
		st.body.trailer = trailer
		req.Body = st.body
	}
	return req.WithContext(ctx), nil
}
