package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/internal/textcut"
	"github.com/ouroagent/ouro/workspace"
)

// Helpers shared by Read, Write and Edit.

const (
	// maxLineChars is where Read and the snippets of Edit cut a long line, as Claude
	// Code does.
	maxLineChars = 2000
	// newFileMode is the mode of files Write and Edit create.
	newFileMode fs.FileMode = 0o644
	// newDirMode is the mode of parent directories Write and Edit create.
	newDirMode fs.FileMode = 0o755
)

// requireFilePath checks the file_path field every file tool takes and resolves it
// through the workspace; the tool then works on the resolved path only.
func requireFilePath(ws *workspace.Workspace, toolName string, given *string) (string, error) {
	return requirePath(ws, toolName, "file_path", given)
}

// requirePath is requireFilePath for a tool whose path field has another name.
func requirePath(ws *workspace.Workspace, toolName, field string, given *string) (string, error) {
	if given == nil {
		return "", fmt.Errorf("invalid %s input: %s is required", toolName, field)
	}
	if strings.TrimSpace(*given) == "" {
		return "", fmt.Errorf("invalid %s input: %s must not be empty", toolName, field)
	}
	real, err := ws.Resolve(*given)
	if err != nil {
		return "", fmt.Errorf("%s: %w", toolName, err)
	}
	return real, nil
}

// wholeNumber checks an optional numeric field that must hold a whole number of at
// least lowest; JSON numbers arrive as float64 so that 10.0 is accepted and 10.5 is
// named as the mistake it is.
func wholeNumber(toolName, field string, v *float64, lowest int) (n int, set bool, err error) {
	if v == nil {
		return 0, false, nil
	}
	f := *v
	if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false, fmt.Errorf("invalid %s input: %s must be a whole number, got %v", toolName, field, f)
	}
	if f < float64(lowest) {
		return 0, false, fmt.Errorf("invalid %s input: %s must be at least %d, got %v", toolName, field, lowest, f)
	}
	// Far beyond any file's line count; clamping keeps the conversion defined.
	return int(min(f, 1<<40)), true, nil
}

// notRegularError explains why path (already stat'ed) cannot be read or written as a
// file: directories get a pointer to the tools that list them.
func notRegularError(toolName, path string, mode fs.FileMode) error {
	if mode.IsDir() {
		return fmt.Errorf("%s: %s is a directory, not a file. To see what it contains use LS or Glob, or ls with Bash", toolName, path)
	}
	return fmt.Errorf("%s: %s is not a regular file (%s); only regular files can be used here", toolName, path, regfile.Describe(mode))
}

// keptMode is the part of an existing file's mode a rewrite carries over.
func keptMode(m fs.FileMode) fs.FileMode {
	return m & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

// ensureWritable refuses to replace an existing file the process could not write in
// place. The atomic rename only needs the directory to be writable, so without this a
// read-only file, or another user's, would be replaced where writing it would fail.
func ensureWritable(toolName, path string, mode fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0) // no O_TRUNC: opening changes nothing
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%s: %s is not writable (mode %v); it may be read-only on purpose. Ask the user before changing its permissions", toolName, path, mode.Perm())
	}
	if err != nil {
		return fmt.Errorf("%s: %w", toolName, err)
	}
	return f.Close()
}

// writeFileAtomic replaces path with data: it writes a temporary file in the same
// directory, gives it mode, syncs it and renames it over path, so a reader or a crash
// sees the old content or the new, never a mix, and a failure leaves no temporary file
// behind. Missing parent directories are created. It returns the new file's info, which
// the rename keeps (same inode, same modification time).
//
// path must be the real path (workspace.Resolve's answer): a symbolic link there is
// refused rather than followed, since it appeared after the path was checked.
//
// A rename gives the file a new inode, so what belongs to the inode rather than the
// content is carried over by hand: mode (the caller passes the old one, keptMode),
// owner, group and extended attributes (ACLs and security labels live there on Linux).
// Where that cannot be done the file is written in place instead (writeFileInPlace),
// trading atomicity for keeping the file as it was, as vim does with backupcopy=auto:
//   - a file with more than one hard link, since a rename would split it from its
//     other names, which would keep the old content;
//   - a file whose owner or group this process cannot give the new file (another
//     user's group-writable file, when not running as root), or whose extended
//     attributes cannot be copied.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) (fs.FileInfo, error) {
	old, err := os.Lstat(path)
	switch {
	case err == nil && old.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%s has become a symbolic link; not writing through it", path)
	case err == nil && !old.Mode().IsRegular():
		old = nil // the rename below fails with the reason
	case err == nil && hardLinks(old) > 1:
		return writeFileInPlace(path, data)
	case err != nil:
		old = nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, newDirMode); err != nil {
		return nil, fmt.Errorf("create directory %s: %w", dir, err)
	}
	base := filepath.Base(path)
	base = textcut.Bytes(base, 100, "") // keep the temporary name within NAME_MAX
	f, err := os.CreateTemp(dir, "."+base+".ouro-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("create temporary file in %s: %w", dir, err)
	}
	tmp := f.Name()
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return nil, fmt.Errorf("write %s: %w", tmp, err)
	}
	// Before the chmod: an unprivileged chown clears the set-ID bits.
	if old != nil && !carryMetadata(f, path, old) {
		f.Close()
		os.Remove(tmp)
		done = true
		return writeFileInPlace(path, data)
	}
	// Chmod on the descriptor: CreateTemp made it 0600, and the umask does not apply here.
	if err := f.Chmod(mode); err != nil {
		return nil, fmt.Errorf("set mode %v on %s: %w", mode, tmp, err)
	}
	if err := f.Sync(); err != nil {
		return nil, fmt.Errorf("sync %s: %w", tmp, err)
	}
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("close %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("rename %s to %s: %w", tmp, path, err)
	}
	done = true
	syncDir(dir)
	return info, nil
}

// writeFileInPlace overwrites the existing file at path with data (truncate, write,
// fsync) on its own inode, so its hard links, owner, group, mode and extended
// attributes all stay. It is not atomic: a crash or a concurrent reader can see the
// file empty or half written. writeFileAtomic uses it only where a rename would lose
// something; see there.
func writeFileInPlace(path string, data []byte) (fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC|openNoFollow, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s to write in place: %w", path, err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return nil, fmt.Errorf("write %s in place (it may now be incomplete): %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return nil, fmt.Errorf("sync %s: %w", path, err)
	}
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("close %s: %w", path, err)
	}
	return info, nil
}

// syncDir makes a rename in dir durable. It is best effort on purpose: the new content
// is already in place, and some filesystems refuse to sync a directory, which only
// weakens crash durability and is no reason to report a successful write as failed.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// countLines counts lines as an editor shows them: a final line without a newline
// counts, an empty file has none.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if s[len(s)-1] != '\n' {
		n++
	}
	return n
}

// appendNumbered appends one line in `cat -n` form: the number right-aligned in six
// columns, a tab, the line (cut at maxLineChars with a marker), a newline. It reports
// whether the line was cut.
func appendNumbered(sb *strings.Builder, n int, line string) bool {
	writeLineNumber(sb, n)
	line = strings.TrimSuffix(line, "\r")
	keep := prefixChars([]byte(line), maxLineChars)
	sb.WriteString(strings.ToValidUTF8(line[:keep], "\uFFFD"))
	cut := countChars([]byte(line[keep:]))
	if cut > 0 {
		writeCutMarker(sb, cut)
	}
	sb.WriteByte('\n')
	return cut > 0
}

// writeLineNumber writes the `cat -n` prefix: the number right-aligned in six columns
// and a tab.
func writeLineNumber(sb *strings.Builder, n int) {
	var num [20]byte
	digits := strconv.AppendInt(num[:0], int64(n), 10)
	for i := len(digits); i < 6; i++ {
		sb.WriteByte(' ')
	}
	sb.Write(digits)
	sb.WriteByte('\t')
}

func writeCutMarker(sb *strings.Builder, cut int) {
	fmt.Fprintf(sb, " [… %s more characters cut from this line]", groupDigits(int64(cut)))
}

// ctxReader stops a long read when ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// isNotExist reports whether err says the file is not there.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
