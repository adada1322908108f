package main

import (
	"fmt"
	"io"

	"github.com/ouroagent/ouro/plugin"
)

// cliPlugins are the plugins a session in cwd with these --plugin-dir folders loads.
func cliPlugins(dirs []string, cwd string, warn io.Writer) []plugin.Plugin {
	ps, warns := plugin.Load(dirs)
	for _, w := range warns {
		fmt.Fprintf(warn, "ouro: %s\n", w)
	}
	return ps
}
