package main

import (
	"testing"

	"hearth/engine/store"
)

func TestMemoryLimitOfTheProfiles(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	if got := memoryLimit(store.ProfileSmall, env(nil)); got != smallMemoryLimit {
		t.Fatalf("small: limit %d, want %d", got, smallMemoryLimit)
	}
	if got := memoryLimit(store.ProfileSmall, env(map[string]string{"GOMEMLIMIT": "1GiB"})); got != 0 {
		t.Fatalf("small with GOMEMLIMIT set: limit %d, want none", got)
	}
	if got := memoryLimit(store.ProfileDefault, env(nil)); got != 0 {
		t.Fatalf("default: limit %d, want none", got)
	}
}
