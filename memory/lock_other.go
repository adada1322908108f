//go:build !unix

package memory

import "os"

// Elsewhere the store is locked within one process only.
func flock(*os.File, bool) error { return nil }

func funlock(*os.File) error { return nil }
