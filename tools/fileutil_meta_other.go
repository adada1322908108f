//go:build !linux && !darwin

package tools

import (
	"io/fs"
	"os"
)

// openNoFollow: without O_NOFOLLOW the caller's Lstat is the only symlink check.
const openNoFollow = 0

// hardLinks returns 1: the link count is not read on this platform.
func hardLinks(fs.FileInfo) uint64 { return 1 }

// carryMetadata carries nothing over on this platform beyond the mode the caller sets.
func carryMetadata(*os.File, string, fs.FileInfo) bool { return true }
