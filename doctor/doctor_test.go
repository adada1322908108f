package doctor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// Each captured line goes under the file it names, the longest path first; lines naming
// none stay with the section.
func TestRunAttributesWarnings(t *testing.T) {
	src := Func{Title: "rules", F: func(w io.Writer) Section {
		fmt.Fprintln(w, "ouro: rule /p/.claude/rules/a.md: bad glob")
		fmt.Fprintln(w, "ouro: /p/.claude/rules skipped something")
		fmt.Fprintln(w, "general trouble")
		return Section{Files: []File{{Path: "/p/.claude/rules", Status: Loaded}, {Path: "/p/.claude/rules/a.md", Status: Skipped}}}
	}}
	r := Run(src)
	s := r.Sections[0]
	if s.Name != "rules" || len(s.Files[1].Warnings) != 1 || !strings.Contains(s.Files[1].Warnings[0], "bad glob") ||
		len(s.Files[0].Warnings) != 1 || len(s.Warnings) != 1 || s.Warnings[0] != "general trouble" {
		t.Fatalf("%+v", s)
	}
	if r.Fatal() || r.Warnings() != 3 {
		t.Errorf("fatal %v, %d warnings", r.Fatal(), r.Warnings())
	}
}

// A source that panics is a fatal problem of its section; the others still run.
func TestRunSurvivesAPanic(t *testing.T) {
	r := Run(Func{Title: "bad", F: func(io.Writer) Section { panic("boom") }},
		Func{Title: "good", F: func(io.Writer) Section { return Section{Files: []File{{Path: "x", Status: Loaded}}} }})
	if !r.Fatal() || !strings.Contains(r.Sections[0].Fatal, "boom") || len(r.Sections[1].Files) != 1 {
		t.Fatalf("%+v", r)
	}
	var text, js bytes.Buffer
	if err := r.WriteText(&text); err != nil || !strings.Contains(text.String(), "FATAL: loading failed: boom") || !strings.Contains(text.String(), "would not start") {
		t.Errorf("text: %v\n%s", err, text.String())
	}
	var back struct {
		Fatal    bool `json:"fatal"`
		Sections []struct {
			Files []File `json:"files"`
		} `json:"sections"`
	}
	if err := r.WriteJSON(&js); err != nil || json.Unmarshal(js.Bytes(), &back) != nil || !back.Fatal || back.Sections[0].Files == nil {
		t.Errorf("json: %v\n%s", err, js.String())
	}
}
