//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm/scripted"
)

// statusRow is the last row of the screen that is not blank: where the status line is.
func statusRow(rows []string) (int, string) {
	for y := len(rows) - 1; y >= 0; y-- {
		if rows[y] != "" {
			return y, rows[y]
		}
	}
	return -1, ""
}

// A real public status line script (testdata/statusline, from ansonhoyt/dotfiles) set up
// as Claude Code's documentation does, ~/.claude/statusline.sh named by statusLine in
// ~/.claude/settings.json: the terminal interface shows what it prints under the footer,
// the folder's name in its green, and keeps showing it after an answer.
func TestTUIStatusLineRealScript(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("the script reads its input with jq")
	}
	e := newRewindEnv(t)
	e.fake(scripted.Turn{Text: "hello there"})
	script, err := os.ReadFile(filepath.Join("testdata", "statusline", "statusline.sh"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.home, ".claude", "statusline.sh"), string(script))
	if err := os.Chmod(filepath.Join(e.home, ".claude", "statusline.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	set, err := os.ReadFile(filepath.Join("testdata", "statusline", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), string(set))

	r := e.startPTY("--model", "claude-sonnet-4-5")
	// The folder's name, its git branch if the temp dir is in a repository, the model.
	want := func(row string) bool {
		return strings.HasPrefix(row, filepath.Base(e.dir)) && strings.HasSuffix(row, " | Sonnet 4.5")
	}
	r.waitScreen("the status line <folder> | Sonnet 4.5", func(rows []string) bool {
		y, row := statusRow(rows)
		return want(row) && y > 0 && strings.Contains(rows[y-1], "shift+tab")
	})
	r.mu.Lock()
	y, _ := statusRow(r.screen0())
	green := r.term.CellAt(0, y).Style.Fg != nil
	r.mu.Unlock()
	if !green {
		t.Error("the folder's name lost its colour")
	}
	m := r.mark()
	r.typeLine("hi")
	r.waitFor(m, "hello there")
	r.waitScreen("the status line after the answer", func(rows []string) bool { _, row := statusRow(rows); return want(row) })
	r.exit()
}

// screen0 is screen without taking the lock (the caller holds it).
func (r *tuiPTY) screen0() []string {
	rows := make([]string, r.term.Height())
	for y := range rows {
		var b strings.Builder
		for x := 0; x < r.term.Width(); x++ {
			if c := r.term.CellAt(x, y); c != nil && c.Content != "" {
				b.WriteString(c.Content)
			} else if c == nil || c.Width != 0 {
				b.WriteByte(' ')
			}
		}
		rows[y] = strings.TrimRight(b.String(), " ")
	}
	return rows
}

// statusInput is what a status line command read, as Claude Code names it.
type statusInput struct {
	HookEventName  string `json:"hook_event_name"`
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	Model          struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
	Version     string `json:"version"`
	OutputStyle struct {
		Name string `json:"name"`
	} `json:"output_style"`
	Cost struct {
		TotalCostUSD      *float64 `json:"total_cost_usd"`
		TotalDurationMS   *int64   `json:"total_duration_ms"`
		TotalAPIDuration  *int64   `json:"total_api_duration_ms"`
		TotalLinesAdded   int      `json:"total_lines_added"`
		TotalLinesRemoved int      `json:"total_lines_removed"`
	} `json:"cost"`
	ContextWindow struct {
		TotalOutputTokens int             `json:"total_output_tokens"`
		Size              int             `json:"context_window_size"`
		CurrentUsage      json.RawMessage `json:"current_usage"`
		UsedPercentage    *float64        `json:"used_percentage"`
	} `json:"context_window"`
}

func readStatusInputs(t *testing.T, path string) []statusInput {
	t.Helper()
	data, _ := os.ReadFile(path)
	var out []statusInput
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var in statusInput
		if err := json.Unmarshal([]byte(l), &in); err != nil {
			t.Fatalf("a status line input is not JSON: %v\n%s", err, l)
		}
		out = append(out, in)
	}
	return out
}

// A project's status line (the folder trusted at the start): the command reads Claude
// Code's JSON on stdin, runs without ouro's key, and what it prints is shown made safe:
// its clipboard write and screen clear read as text and do nothing, only its first line
// shows. After an edit and an answer it runs again and reads the lines changed and the
// answer's usage.
func TestTUIStatusLineInputAndSanitising(t *testing.T) {
	e := newRewindEnv(t)
	if err := os.WriteFile(filepath.Join(e.dir, "hello.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.fake(
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwRead("hello.txt")}},
		scripted.Turn{ToolCalls: []scripted.ToolCall{rwEdit("hello.txt", "two", "TWO")}},
		scripted.Turn{Text: "edited"},
	)
	log := filepath.Join(e.home, "sl-inputs.jsonl")
	writeFile(t, filepath.Join(e.dir, ".claude", "sl.sh"), `#!/bin/sh
cat >> "$HOME/sl-inputs.jsonl"; echo >> "$HOME/sl-inputs.jsonl"
echo "key=[$ANTHROPIC_API_KEY]" > "$HOME/sl-env"
n=$(grep -c . "$HOME/sl-inputs.jsonl")
printf '\n\033]52;c;aGk=\007\033[2J\033[31mSL-%s\033[0m\nsecond line\n' "$n"
`)
	if err := os.Chmod(filepath.Join(e.dir, ".claude", "sl.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.settings(".claude/settings.json", `{"statusLine": {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/sl.sh", "padding": 1}}`)

	r := e.startPTY("--permission-mode", "acceptEdits", "--model", "claude-sonnet-4-5")
	r.waitScreen("the first status line", func(rows []string) bool {
		_, row := statusRow(rows)
		return row == ` \x1b]52;c;aGk=\x07\x1b[2JSL-1`
	})
	if strings.Contains(strings.Join(r.screen(), "\n"), "second line") {
		t.Fatal("more than the first line is shown")
	}
	ins := readStatusInputs(t, log)
	in := ins[0]
	real, _ := filepath.EvalSymlinks(e.dir)
	if in.HookEventName != "Status" || in.SessionID == "" || !strings.HasSuffix(in.TranscriptPath, in.SessionID+".jsonl") ||
		in.CWD != real || in.Workspace.CurrentDir != real || in.Workspace.ProjectDir != real ||
		in.Model.ID != "claude-sonnet-4-5" || in.Model.DisplayName != "Sonnet 4.5" || in.Version == "" ||
		in.OutputStyle.Name != "default" || in.ContextWindow.Size != 200000 || in.Cost.TotalCostUSD == nil || in.Cost.TotalDurationMS == nil ||
		string(in.ContextWindow.CurrentUsage) != "null" {
		t.Fatalf("the first input: %+v", in)
	}
	if got, _ := os.ReadFile(filepath.Join(e.home, "sl-env")); strings.TrimSpace(string(got)) != "key=[]" {
		t.Fatalf("the command saw ouro's key: %s", got)
	}

	m := r.mark()
	r.typeLine("change it")
	r.waitFor(m, "edited")
	deadline := time.Now().Add(15 * time.Second)
	for {
		ins = readStatusInputs(t, log)
		last := ins[len(ins)-1]
		if last.Cost.TotalLinesAdded == 1 && last.Cost.TotalLinesRemoved == 1 && string(last.ContextWindow.CurrentUsage) != "null" &&
			last.ContextWindow.UsedPercentage != nil && last.ContextWindow.TotalOutputTokens > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no run after the edit read it; the last input: %+v", last)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Several changes came in a burst: the runs are debounced, not one per event.
	if len(ins) > 6 {
		t.Errorf("%d runs for one prompt", len(ins))
	}
	r.waitScreen("a later status line", func(rows []string) bool {
		_, row := statusRow(rows)
		n, err := strconv.Atoi(strings.TrimPrefix(row, ` \x1b]52;c;aGk=\x07\x1b[2JSL-`))
		return err == nil && n >= 2
	})
	r.exit()
}

// A status line command that hangs shows nothing and holds nothing up: a prompt is
// answered while it runs, and it is killed with what it started (at its timeout, or
// sooner when a newer run replaces it; the timeout alone is tested in package hook).
func TestTUIStatusLineSlowCommandShowsNothing(t *testing.T) {
	e := newRewindEnv(t)
	e.fake(scripted.Turn{Text: "answered"})
	pidFile := filepath.Join(e.home, "sl-child.pid")
	writeFile(t, filepath.Join(e.home, ".claude", "slow.sh"), `#!/bin/sh
sleep 1008 &
echo $! > "$HOME/sl-child.pid"
wait
echo never
`)
	if err := os.Chmod(filepath.Join(e.home, ".claude", "slow.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.home, ".claude", "settings.json"), `{"statusLine": {"type": "command", "command": "~/.claude/slow.sh"}}`)
	r := e.startPTY()
	r.waitFor(0, "shift+tab")
	m := r.mark()
	start := time.Now()
	r.typeLine("hi")
	r.waitFor(m, "answered")
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("the answer took %v while the status line command hung", d)
	}
	var pid int
	for deadline := time.Now().Add(5 * time.Second); pid == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if pid == 0 {
		t.Fatal("the status line command never ran")
	}
	deadline := time.Now().Add(12 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatal("the status line command's child outlived its timeout")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, row := statusRow(r.screen()); !strings.Contains(row, "shift+tab") || strings.Contains(strings.Join(r.screen(), "\n"), "never") {
		t.Fatalf("the slow command showed something:\n%s", strings.Join(r.screen(), "\n"))
	}
	r.exit()
}
