package sandbox

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The Go build cache holds compiled packages that `go build` links in without checking
// them again: one a sandboxed command wrote into the user's GOCACHE would run, compiled
// into the user's next program, outside the sandbox. A cache of the sandbox's own would
// make the first build of every workspace compile the standard library again. So
// sandboxed commands get GOCACHEPROG: the ouro binary in this mode, which answers the go
// command's cache requests from the sandbox's own cache first and then from the user's
// (read only), and stores what the go command puts only in the sandbox's own. Entries
// are kept in the go command's own layout (<2 hex>/<action id>-a, <output id>-d).

// goCacheArg is the hidden first argument that makes the ouro binary the GOCACHEPROG of
// a sandboxed go command (see MaybeRunLauncher); the user's cache folder and the
// sandbox's own follow.
const goCacheArg = "__ouro_gocache"

type cacheRequest struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

type cacheResponse struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// goCacheProg is the command line of GOCACHEPROG for the caches user (read) and own
// (read and write); "" when exe or a path cannot be quoted for the go command.
func goCacheProg(exe, user, own string) string {
	var fields []string
	for _, f := range []string{exe, goCacheArg, user, own} {
		switch {
		case !strings.ContainsAny(f, " \t\n'\""):
			fields = append(fields, f)
		case !strings.ContainsAny(f, "'\n"):
			fields = append(fields, "'"+f+"'")
		default:
			return ""
		}
	}
	return strings.Join(fields, " ")
}

// runGoCacheProg serves the go command's cache protocol on stdin and stdout.
func runGoCacheProg(args []string, in io.Reader, out io.Writer) error {
	if len(args) != 2 || !filepath.IsAbs(args[0]) || !filepath.IsAbs(args[1]) {
		return errors.New("usage: " + goCacheArg + " USER_GOCACHE OWN_GOCACHE")
	}
	user, own := args[0], args[1]
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	send := func(r cacheResponse) error {
		if err := enc.Encode(r); err != nil {
			return err
		}
		return w.Flush()
	}
	if err := send(cacheResponse{KnownCommands: []string{"get", "put", "close"}}); err != nil {
		return err
	}
	dec := json.NewDecoder(bufio.NewReader(in))
	for {
		var req cacheRequest
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		resp := cacheResponse{ID: req.ID}
		switch req.Command {
		case "get":
			found := false
			for _, dir := range []string{own, user} {
				if e, ok := readCacheEntry(dir, req.ActionID); ok {
					resp.OutputID, resp.Size, resp.Time, resp.DiskPath = e.output, e.size, &e.time, e.path
					found = true
					break
				}
			}
			resp.Miss = !found
		case "put":
			var body []byte
			if req.BodySize > 0 {
				if err := dec.Decode(&body); err != nil {
					return fmt.Errorf("read the body of put %d: %w", req.ID, err)
				}
			}
			path, err := writeCacheEntry(own, req.ActionID, req.OutputID, body)
			if err != nil {
				resp.Err = err.Error()
			} else {
				resp.DiskPath = path
			}
		case "close":
			return send(resp)
		default:
			resp.Err = "unknown command " + strconv.Quote(req.Command)
		}
		if err := send(resp); err != nil {
			return err
		}
	}
}

type cacheEntry struct {
	output []byte
	size   int64
	time   time.Time
	path   string
}

func cacheFile(dir string, id []byte, kind string) string {
	if len(id) == 0 {
		return ""
	}
	return filepath.Join(dir, fmt.Sprintf("%02x", id[0]), fmt.Sprintf("%x-%s", id, kind))
}

// readCacheEntry reads the go command's index entry for action in dir: "v1 <action>
// <output> <size> <time>", each number padded to 20 characters, and checks that the
// output file is there with that size.
func readCacheEntry(dir string, action []byte) (cacheEntry, bool) {
	name := cacheFile(dir, action, "a")
	if name == "" {
		return cacheEntry{}, false
	}
	data, err := os.ReadFile(name)
	if err != nil || len(data) > 256 {
		return cacheEntry{}, false
	}
	f := strings.Fields(string(data))
	if len(f) != 5 || f[0] != "v1" || f[1] != fmt.Sprintf("%x", action) {
		return cacheEntry{}, false
	}
	out, err := hex.DecodeString(f[2])
	size, err2 := strconv.ParseInt(f[3], 10, 64)
	nano, err3 := strconv.ParseInt(f[4], 10, 64)
	if err != nil || err2 != nil || err3 != nil || len(out) == 0 {
		return cacheEntry{}, false
	}
	path := cacheFile(dir, out, "d")
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() || st.Size() != size {
		return cacheEntry{}, false
	}
	return cacheEntry{output: out, size: size, time: time.Unix(0, nano), path: path}, true
}

// writeCacheEntry stores body and its index entry in dir, each written under another
// name and renamed into place.
func writeCacheEntry(dir string, action, output, body []byte) (string, error) {
	if len(action) == 0 || len(output) == 0 {
		return "", errors.New("put without an action or output ID")
	}
	path := cacheFile(dir, output, "d")
	if err := writeRenamed(path, body); err != nil {
		return "", err
	}
	entry := fmt.Sprintf("v1 %x %x %20d %20d\n", action, output, len(body), time.Now().UnixNano())
	if err := writeRenamed(cacheFile(dir, action, "a"), []byte(entry)); err != nil {
		return "", err
	}
	return path, nil
}

func writeRenamed(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
