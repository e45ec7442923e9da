// Package svcv1 is Hearth's API contract: the generated Go types of the .proto files next to
// this file, which are the API reference (every call is documented there). The Connect
// handlers and clients are in the svcv1connect subpackage.
//
// `go generate ./proto/...` regenerates both with buf and the two Go generators, all run with
// `go run` at pinned versions; the output is committed and CI checks it is current.
package svcv1

//go:generate go run github.com/bufbuild/buf/cmd/buf@v1.75.0 lint ../..
//go:generate go run github.com/bufbuild/buf/cmd/buf@v1.75.0 generate --template ../../buf.gen.yaml ../..
