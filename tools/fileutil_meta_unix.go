//go:build linux || darwin

package tools

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// openNoFollow makes an open fail on a symbolic link instead of following it.
const openNoFollow = syscall.O_NOFOLLOW

// hardLinks returns how many names the file info describes has (1 when unknown).
func hardLinks(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// carryMetadata gives f, the temporary file that is about to replace the file at path
// (described by old), that file's owner, group and extended attributes (which on Linux
// hold its ACLs and security labels too). It reports whether everything was carried
// over; when it was not, the caller writes the original in place instead, which keeps
// all of it.
//
// Run it before setting the mode: a chown by an unprivileged process clears the
// set-user-ID and set-group-ID bits.
func carryMetadata(f *os.File, path string, old fs.FileInfo) bool {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	return carryOwner(f, int(st.Uid), int(st.Gid)) && carryXattrs(f, path)
}

// carryOwner gives f the owner uid and group gid. Only root can give a file away; an
// unprivileged process can still set the group to one it belongs to, so that is tried
// on its own when the full chown is refused. It reports whether f ends up with both.
func carryOwner(f *os.File, uid, gid int) bool {
	same := func() bool {
		info, err := f.Stat()
		if err != nil {
			return false
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		return ok && int(st.Uid) == uid && int(st.Gid) == gid
	}
	if same() {
		return true
	}
	if f.Chown(uid, gid) != nil { // EPERM unless root: not an error, just not possible
		_ = f.Chown(-1, gid)
	}
	return same()
}

// carryXattrs copies the extended attributes of the file at path onto f. A filesystem
// without extended attributes has none to copy.
func carryXattrs(f *os.File, path string) bool {
	names, err := xattrNames(path)
	if err != nil {
		return isXattrUnsupported(err)
	}
	fd := int(f.Fd())
	// The new file may have got attributes of its own (a default ACL of the directory,
	// say) that the original does not have: those go.
	if have, err := readXattr(func(b []byte) (int, error) { return unix.Flistxattr(fd, b) }); err == nil {
		for _, name := range splitNames(have) {
			if !slices.Contains(names, name) && unix.Fremovexattr(fd, name) != nil {
				return false
			}
		}
	} else if !isXattrUnsupported(err) {
		return false
	}
	for _, name := range names {
		val, err := readXattr(func(b []byte) (int, error) { return unix.Lgetxattr(path, name, b) })
		if err != nil { // removed since the listing, or unreadable: write in place
			return false
		}
		// A value the new file already has (a default security label, say) is left
		// alone: setting it may need a privilege that copying does not.
		if cur, err := readXattr(func(b []byte) (int, error) { return unix.Fgetxattr(fd, name, b) }); err == nil && bytes.Equal(cur, val) {
			continue
		}
		if err := unix.Fsetxattr(fd, name, val, 0); err != nil {
			return false
		}
	}
	return true
}

// xattrNames lists the extended attributes of the file at path (not following a link).
func xattrNames(path string) ([]string, error) {
	buf, err := readXattr(func(b []byte) (int, error) { return unix.Llistxattr(path, b) })
	if err != nil {
		return nil, err
	}
	return splitNames(buf), nil
}

// splitNames splits a listxattr answer: names each ended by a NUL.
func splitNames(buf []byte) []string {
	var names []string
	for _, n := range strings.Split(string(buf), "\x00") {
		if n != "" {
			names = append(names, n)
		}
	}
	return names
}

// readXattr runs get, an xattr call that returns its result's size when given no
// buffer, with a buffer of the right size, again if the value grew in between.
func readXattr(get func([]byte) (int, error)) ([]byte, error) {
	for range 8 {
		n, err := get(nil)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return []byte{}, nil
		}
		buf := make([]byte, n)
		n, err = get(buf)
		if errors.Is(err, unix.ERANGE) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
	return nil, unix.ERANGE
}

// isXattrUnsupported reports whether err says the filesystem has no extended attributes.
func isXattrUnsupported(err error) bool {
	return errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP)
}
