//go:build !race

package wfserve

const raceEnabled = false
