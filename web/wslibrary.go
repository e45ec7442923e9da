//go:build !ws_coder

package web

// wsLibraryInUse speaks the WebSocket protocol of GET /events (docs/decisions.md, "Events over
// a WebSocket"); build with -tags ws_coder for the other candidate measured.
var wsLibraryInUse wsLibrary = gwsLibrary{}
