// Package version holds ouro's version and answers `ouro --version` before anything else
// starts.
//
// Go initialises packages in dependency order, choosing among the ready ones by import
// path (the Go spec, "Package initialization", since Go 1.21). This package imports only
// os, so its init runs before the model SDKs', whose package initialisation costs more
// than the whole of a plain --version. Answering here keeps `ouro --version` within its
// startup budget (see BenchmarkStartupVersion) without touching the rest of the program.
package version

import "os"

// Version is set at build time with -ldflags "-X github.com/ouroagent/ouro/internal/version.Version=...".
var Version = "0.1.0-dev"

func init() {
	if len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "-v") {
		os.Stdout.WriteString("ouro " + Version + "\n")
		os.Exit(0)
	}
}
