// Package atomicfile writes a file so that a reader, or a crash midway, sees the old
// content or the new one, never a part.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to a temporary file beside path, gives it mode, syncs it and renames
// it over path. A symbolic link at path is replaced, never followed; the folder must
// exist. On any failure the temporary file is removed and path is left as it was.
func Write(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		_ = os.Remove(name)
	}
	return err
}

// ModeOf is the permission bits of the file at path, or def when there is none (a file
// rewritten keeps the mode its owner gave it).
func ModeOf(path string, def fs.FileMode) fs.FileMode {
	if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() {
		return st.Mode().Perm()
	}
	return def
}
