package ui

import (
	"context"
	"fmt"
	"strings"
)

// showMCP prints each MCP server's status, tools, prompts and errors (/mcp).
func (r *REPL) showMCP() {
	m := r.sess.MCP()
	if m == nil {
		fmt.Fprintln(r.Out, "No MCP servers configured. `ouro mcp add` adds one; .mcp.json and --mcp-config work too.")
		return
	}
	for _, st := range m.Status() {
		fmt.Fprintf(r.Out, "%s (%s, %s): %s\n", st.Name, orText(st.Type, "?"), orText(st.Scope, "?"), st.State)
		if st.Error != "" {
			fmt.Fprintf(r.Out, "  error: %s\n", st.Error)
		}
		if len(st.Tools) > 0 {
			fmt.Fprintf(r.Out, "  tools: %s\n", strings.Join(st.Tools, ", "))
		}
		for _, x := range st.Refused {
			fmt.Fprintf(r.Out, "  left out: %s\n", x)
		}
		if len(st.Prompts) > 0 {
			fmt.Fprintf(r.Out, "  prompts: /%s\n", strings.Join(st.Prompts, ", /"))
		}
		if st.Log != "" {
			fmt.Fprintf(r.Out, "  log: %s\n", st.Log)
		}
	}
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// approveMCP asks whether a server of the project's .mcp.json may run.
func (a *replApprover) approveMCP(name, what string) bool {
	r := a.r
	r.inMu.Lock()
	defer r.inMu.Unlock()
	r.endLine()
	fmt.Fprintf(r.Out, "\nThis project's .mcp.json defines the MCP server %q, which runs: %s\n  Servers run with your rights. Use it in this project from now on? [y] yes  [n] no\n? ", name, what)
	line, err := r.readLine(context.Background())
	if err != nil {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}
