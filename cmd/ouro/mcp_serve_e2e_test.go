//go:build unix

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveClient connects the official SDK's client to `ouro mcp serve` run with args.
func serveClient(t *testing.T, e *env, args ...string) *mcp.ClientSession {
	t.Helper()
	c := e.cmd(append([]string{"mcp", "serve"}, args...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
	if err != nil {
		t.Fatalf("connect to ouro mcp serve: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String(), res.IsError
}

func TestMCPServeE2E(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.dir, "notes.txt"), []byte("SERVED-MARKER\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := serveClient(t, e)
	var names []string
	for tl, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tl.Name)
		if tl.Name == "Read" && (tl.Annotations == nil || !tl.Annotations.ReadOnlyHint) {
			t.Error("Read is not marked read-only")
		}
	}
	got := strings.Join(names, ",")
	for _, want := range []string{"Read", "Grep", "Glob", "Edit", "Write", "Bash"} {
		if !strings.Contains(","+got+",", ","+want+",") {
			t.Errorf("tool %s not served: %s", want, got)
		}
	}
	for _, not := range []string{"AskUserQuestion", "TodoWrite", "Task"} {
		if strings.Contains(","+got+",", ","+not+",") {
			t.Errorf("%s is served: %s", not, got)
		}
	}
	if text, isErr := callText(t, cs, "Read", map[string]any{"file_path": "notes.txt"}); isErr || !strings.Contains(text, "SERVED-MARKER") {
		t.Fatalf("Read: %v %s", isErr, text)
	}
	// What would ask is refused: nobody is there to approve.
	if text, isErr := callText(t, cs, "Write", map[string]any{"file_path": "new.txt", "content": "x"}); !isErr || !strings.Contains(text, "denied") {
		t.Fatalf("Write without a rule: %v %s", isErr, text)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "new.txt")); err == nil {
		t.Fatal("the refused Write wrote")
	}
	if text, isErr := callText(t, cs, "Read", map[string]any{"file_path": filepath.Join(e.home, "secret")}); !isErr {
		t.Fatalf("a read outside the workspace ran: %s", text)
	}
	if text, isErr := callText(t, cs, "Read", map[string]any{"nope": 1}); !isErr || !strings.Contains(text, "Invalid input") {
		t.Fatalf("bad input: %v %s", isErr, text)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "AskUserQuestion", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("an unserved tool: %v", err)
	}
}

func TestMCPServeRulesE2E(t *testing.T) {
	e := newEnv(t)
	cs := serveClient(t, e, "--allowedTools", "Write", "--disallowedTools", "Bash")
	if text, isErr := callText(t, cs, "Write", map[string]any{"file_path": "new.txt", "content": "hello"}); isErr {
		t.Fatalf("allowed Write: %s", text)
	}
	if data, _ := os.ReadFile(filepath.Join(e.dir, "new.txt")); string(data) != "hello" {
		t.Fatalf("file %q", data)
	}
	for tl, err := range cs.Tools(context.Background(), nil) {
		if err == nil && tl.Name == "Bash" {
			t.Fatal("a denied tool is served")
		}
	}
}
