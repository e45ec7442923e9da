package web

import (
	"testing"

	"hearth/engine"
)

// TestEveryEngineCodeHasAWireCode: a code added to engine without a row here would answer
// internal on the wire.
func TestEveryEngineCodeHasAWireCode(t *testing.T) {
	t.Parallel()
	for c := engine.CodeInternal; c <= engine.CodeTooSlow; c++ {
		if _, ok := wireCodes[c]; !ok {
			t.Errorf("engine code %d has no row in wireCodes", c)
		}
	}
}
