package sandbox

import _ "embed"

// The guest and the test guests are built by wasmbuild, which fixes everything that
// shapes their bytes, so that these steps are reproducible and CI can check the committed
// files are current.
//go:generate go run ./internal/wasmbuild -o guest.wasm ./guest
//go:generate go run ./internal/wasmbuild -o testdata/evil.wasm ./testdata/evil

// guestWasm is the guest module (package ./guest) that every operation runs in.
//
//go:embed guest.wasm
var guestWasm []byte
