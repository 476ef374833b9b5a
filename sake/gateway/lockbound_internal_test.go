package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A lock file is read up to maxLockBytes: a longer one is refused with
// an error naming it, not read whole into memory.
func TestLockFileIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.lock.json")
	big := `{"servers":{}}` + strings.Repeat(" ", maxLockBytes)
	if err := os.WriteFile(path, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readLock(path); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("readLock of a %d-byte file = %v, want a refusal", len(big), err)
	}
	if err := os.WriteFile(path, []byte(`{"servers":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if d, err := readLock(path); err != nil || d.Servers == nil {
		t.Fatalf("readLock of a small file = %+v, %v", d, err)
	}
	if d, err := readLock(filepath.Join(dir, "missing.json")); err != nil || len(d.Servers) != 0 {
		t.Fatalf("readLock of a missing file = %+v, %v, want an empty lock", d, err)
	}
}
