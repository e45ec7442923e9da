package web

import (
	"context"

	"connectrpc.com/connect"

	svcv1 "hearth/proto/svc/v1"
)

// Search finds messages the caller can see (engine/searching.go).
func (s *chatService) Search(ctx context.Context, r *connect.Request[svcv1.SearchRequest]) (*connect.Response[svcv1.SearchResponse], error) {
	return call(ctx, r, s.eng.Search)
}
