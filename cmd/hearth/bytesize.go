package main

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag of a size in bytes: a number with an optional unit, KiB, MiB, GiB, TiB
// (powers of 1024) or KB, MB, GB, TB (powers of 1000); "" or 0 is zero.
type byteSize uint64

var sizeUnits = []struct {
	suffix string
	factor uint64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
}

func (b *byteSize) String() string {
	if b == nil || *b == 0 {
		return ""
	}
	// The largest binary unit that says it exactly.
	n := uint64(*b)
	for i := 3; i >= 0; i-- {
		if u := sizeUnits[i]; n%u.factor == 0 {
			return strconv.FormatUint(n/u.factor, 10) + u.suffix
		}
	}
	return strconv.FormatUint(n, 10)
}

func (b *byteSize) Set(s string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		*b = 0
		return nil
	}
	factor := uint64(1)
	num := s
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			factor, num = u.factor, strings.TrimSpace(rest)
			break
		}
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || (factor > 1 && n > ^uint64(0)/factor) {
		return fmt.Errorf("%q is not a size: use a whole number of bytes or one with a unit, e.g. 512MiB or 2GB", s)
	}
	*b = byteSize(n * factor)
	return nil
}
