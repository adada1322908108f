//go:build !unix

package checkpoint

// noFollow is not available here; Lstat checks stand in for it.
const noFollow = 0
