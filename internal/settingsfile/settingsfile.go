// Package settingsfile changes some top-level keys of a JSON settings file and keeps
// every other key, the file's mode and, through a crash, its old content or the new.
package settingsfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ouroagent/ouro/internal/atomicfile"
	"github.com/ouroagent/ouro/internal/regfile"
)

// Edit lets edit change the top-level keys of the settings file at path (what is saved
// is named by what, for the error when the file is no JSON object) and, when it says it
// changed them, writes the file back atomically (its permissions kept, its folder made)
// with every other key kept. A missing or empty file is an empty object.
func Edit(path, what string, edit func(doc map[string]json.RawMessage) (bool, error)) error {
	doc := map[string]json.RawMessage{}
	data, err := regfile.Read(path, regfile.MaxConfig)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read %s: %w", path, err)
	case len(bytes.TrimSpace(data)) > 0:
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s is not a JSON object (%v); fix it before saving %s there", path, err, what)
		}
	}
	changed, err := edit(doc)
	if err != nil || !changed {
		return err
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return Write(path, append(out, '\n'))
}

// Write writes data over the file at path atomically, keeping the mode the file had
// (0644 for a new one) and making its folder.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := atomicfile.Write(path, data, atomicfile.ModeOf(path, 0o644)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
