// Package sandboxtest holds what tests of the sandbox and of the server share about it.
package sandboxtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// CacheDir returns the directory that keeps wazero's compiled guests for the tests. Compiling
// the guest takes about a second, and 15 to 30 s under the race detector (wazero's compiler is
// Go code the detector instruments), so the directory outlasts the run, in the user's cache
// directory as the go command's own caches are, and every test binary of a run shares it.
//
// wazero keys its entries by the module's hash but, in a test binary (which records no module
// versions), not by its own version: the directory is named after a hash of go.mod's wazero
// requirement and the guests, so code compiled by another wazero is never loaded. Directories
// of other hashes are removed once a day old. It fails when there is no user cache directory,
// or when the sandbox's files are not at the path this file was compiled from (a build with
// -trimpath, or a test binary run on another machine); callers then compile without it.
func CacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("sandboxtest: no source path")
	}
	sandboxDir := filepath.Dir(filepath.Dir(file))
	h := sha256.New()
	for _, name := range []string{"../../go.mod", "guest.wasm", "testdata/evil.wasm"} {
		b, err := os.ReadFile(filepath.Join(sandboxDir, name))
		if err != nil {
			return "", err
		}
		if name == "../../go.mod" {
			i := bytes.Index(b, []byte("github.com/tetratelabs/wazero "))
			if i < 0 {
				return "", errors.New("sandboxtest: go.mod does not require wazero")
			}
			b, _, _ = bytes.Cut(b[i:], []byte("\n"))
		}
		h.Write(b)
	}
	parent := filepath.Join(base, "hearth-sandbox-test")
	dir := filepath.Join(parent, hex.EncodeToString(h.Sum(nil))[:16])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	now := time.Now()
	_ = os.Chtimes(dir, now, now)
	if old, err := os.ReadDir(parent); err == nil {
		for _, e := range old {
			if info, err := e.Info(); err == nil && e.Name() != filepath.Base(dir) && now.Sub(info.ModTime()) > 24*time.Hour {
				_ = os.RemoveAll(filepath.Join(parent, e.Name()))
			}
		}
	}
	return dir, nil
}
