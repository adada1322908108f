package sandbox

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The GOCACHEPROG serves what it finds in the sandbox's own cache, then in the user's,
// and stores what the go command puts only in its own.
func TestGoCacheProgLayers(t *testing.T) {
	user, own := t.TempDir(), t.TempDir()
	inUser := bytes.Repeat([]byte{1}, 32)
	if _, err := writeCacheEntry(user, inUser, bytes.Repeat([]byte{2}, 32), []byte("compiled by the user")); err != nil {
		t.Fatal(err)
	}
	put := bytes.Repeat([]byte{3}, 32)
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	enc.Encode(cacheRequest{ID: 1, Command: "get", ActionID: inUser})
	enc.Encode(cacheRequest{ID: 2, Command: "get", ActionID: put})
	enc.Encode(cacheRequest{ID: 3, Command: "put", ActionID: put, OutputID: bytes.Repeat([]byte{4}, 32), BodySize: 7})
	enc.Encode([]byte("sandbox"))
	enc.Encode(cacheRequest{ID: 4, Command: "get", ActionID: put})
	enc.Encode(cacheRequest{ID: 5, Command: "close"})
	var out bytes.Buffer
	if err := runGoCacheProg([]string{user, own}, &in, &out); err != nil {
		t.Fatal(err)
	}
	read := func(p string) string { b, _ := os.ReadFile(p); return string(b) }
	var resps []cacheResponse
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r cacheResponse
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		resps = append(resps, r)
	}
	if len(resps) != 6 || strings.Join(resps[0].KnownCommands, ",") != "get,put,close" {
		t.Fatalf("responses: %+v", resps)
	}
	if r := resps[1]; r.Miss || !strings.HasPrefix(r.DiskPath, user) || read(r.DiskPath) != "compiled by the user" {
		t.Errorf("get from the user's cache: %+v", r)
	}
	if !resps[2].Miss {
		t.Errorf("get before put: %+v", resps[2])
	}
	if r := resps[3]; r.Err != "" || !strings.HasPrefix(r.DiskPath, own) {
		t.Errorf("put: %+v", r)
	}
	if r := resps[4]; r.Miss || !strings.HasPrefix(r.DiskPath, own) || read(r.DiskPath) != "sandbox" || r.Size != 7 {
		t.Errorf("get after put: %+v", r)
	}
	entries, _ := filepath.Glob(filepath.Join(user, "*", "*"))
	if len(entries) != 2 {
		t.Errorf("the user's cache was written: %v", entries)
	}
	if _, err := os.Stat(cacheFile(user, put, "a")); err == nil {
		t.Error("put landed in the user's cache")
	}
}
