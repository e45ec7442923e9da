package main

import "testing"

func TestByteSizeFlag(t *testing.T) {
	for in, want := range map[string]uint64{
		"": 0, "0": 0, "1048576": 1 << 20, "64MiB": 64 << 20, "8 MiB": 8 << 20, "2GiB": 2 << 30,
		"1TiB": 1 << 40, "512KiB": 512 << 10, "500MB": 500e6, "2GB": 2e9, "10B": 10,
	} {
		var b byteSize
		if err := b.Set(in); err != nil || uint64(b) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, b, err, want)
		}
	}
	for _, in := range []string{"-1", "1.5GiB", "MiB", "64 mebibytes", "99999999999TiB"} {
		var b byteSize
		if err := b.Set(in); err == nil {
			t.Errorf("Set(%q) = %d, want an error", in, b)
		}
	}
	for n, want := range map[uint64]string{0: "", 64 << 20: "64MiB", 1536 << 20: "1536MiB", 1 << 40: "1TiB", 1000: "1000", 3 << 10: "3KiB"} {
		b := byteSize(n)
		if got := b.String(); got != want {
			t.Errorf("String(%d) = %q, want %q", n, got, want)
		}
	}
}
