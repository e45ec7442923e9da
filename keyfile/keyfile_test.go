package keyfile

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestWriteOnceKeepsTheFirstKey: the first key written stays; a later or racing write gets it
// back, the file is the owner's alone, and no temporary file is left.
func TestWriteOnceKeepsTheFirstKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "key")
	first := []byte("first key")
	got, err := WriteOnce(path, first)
	if err != nil || !bytes.Equal(got, first) {
		t.Fatalf("WriteOnce = %q, %v; want the key written", got, err)
	}
	if got, err := WriteOnce(path, []byte("second key")); err != nil || !bytes.Equal(got, first) {
		t.Fatalf("a second WriteOnce = %q, %v; want the first key", got, err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v, %v; want mode 0600", st, err)
	}

	racing := filepath.Join(dir, "raced")
	var wg sync.WaitGroup
	results := make([][]byte, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := WriteOnce(racing, []byte{byte('a' + i)})
			if err != nil {
				t.Error(err)
			}
			results[i] = k
		}()
	}
	wg.Wait()
	for _, r := range results {
		if !bytes.Equal(r, results[0]) {
			t.Fatalf("racing writers got different keys: %q", results)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 2 {
		t.Fatalf("the folder holds %v, %v; want the two keys and nothing else", entries, err)
	}
}

// TestWriteOnceSyncsTheFolder: the key's new name is synced into its folder: a power cut that
// lost it would have the next start make another key, and everything signed with the first
// stop working.
func TestWriteOnceSyncsTheFolder(t *testing.T) {
	dir := t.TempDir()
	var synced []string
	was := syncDir
	syncDir = func(d string) error {
		synced = append(synced, d)
		return was(d)
	}
	t.Cleanup(func() { syncDir = was })
	if _, err := WriteOnce(filepath.Join(dir, "key"), []byte("k")); err != nil {
		t.Fatal(err)
	}
	if len(synced) != 1 || synced[0] != dir {
		t.Fatalf("synced %q; want the key's folder %s", synced, dir)
	}
}
