// Package trust keeps the user's answer to Claude Code's first question in a new folder:
// "Do you trust the files in this folder?". A repository can carry settings whose hooks
// run commands the moment a session starts; an interactive session therefore starts only
// in a folder the user has trusted, once. (Claude Code skips the question for -p runs,
// and so does ouro: whoever scripts a headless run has chosen the folder.)
//
// The answer is kept where Claude Code keeps it, in the same shape: projects[<folder>]
// .hasTrustDialogAccepted in the user's ~/.ouro.json, and Claude Code's own answers in
// ~/.claude.json are honoured, so a folder trusted there is trusted here. Trusting a
// folder trusts the folders inside it, except for the home folder and the file system's
// root: a yes given there would otherwise cover every repository the user ever clones.
package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/mcpconf"
)

// key is Claude Code's name for the answer.
const key = "hasTrustDialogAccepted"

// maxDoc bounds ~/.claude.json, which Claude Code fills with per-project history.
const maxDoc = 64 << 20

// Trusted reports whether dir (absolute, symbolic links resolved) is trusted, and by which
// file and folder's answer. home is the user's home folder. A file that cannot be read is
// reported in err and trusts nothing.
func Trusted(home, dir string) (ok bool, by string, err error) {
	dir = filepath.Clean(dir)
	var errs []error
	for _, file := range []string{mcpconf.UserFile(home), filepath.Join(home, ".claude.json")} {
		folders, err := accepted(file)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for d := dir; ; d = filepath.Dir(d) {
			if folders[d] && (d == dir || !blanket(d, home)) {
				return true, fmt.Sprintf("%s (%s)", d, file), errors.Join(errs...)
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return false, "", errors.Join(errs...)
}

// blanket reports whether a yes given in folder d must not extend to the folders inside.
// dir is resolved and home may not be (HOME=/home/u with /home a link to /data/home): the
// home folder is matched under either name, or a yes given in it would cover every clone.
func blanket(d, home string) bool {
	if filepath.Dir(d) == d || d == filepath.Clean(home) {
		return true
	}
	real, err := filepath.EvalSymlinks(home)
	return err == nil && d == filepath.Clean(real)
}

// Accept records that the user trusts dir, in ~/.ouro.json.
func Accept(home, dir string) error {
	return mcpconf.EditUserProject(home, filepath.Clean(dir), func(p map[string]json.RawMessage) error {
		p[key] = json.RawMessage("true")
		return nil
	})
}

// accepted reads the folders a user file marks as trusted.
func accepted(file string) (map[string]bool, error) {
	data, err := regfile.Read(file, maxDoc)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var doc struct {
		Projects map[string]json.RawMessage `json:"projects"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s is not JSON of the expected shape (%v), so the folders it trusts are not known", file, err)
	}
	out := map[string]bool{}
	for dir, raw := range doc.Projects {
		var p struct {
			Accepted *bool `json:"hasTrustDialogAccepted"`
		}
		// A project entry of another shape says nothing about trust.
		if json.Unmarshal(raw, &p) == nil && p.Accepted != nil && *p.Accepted && filepath.IsAbs(dir) {
			out[filepath.Clean(dir)] = true
		}
	}
	return out, nil
}
