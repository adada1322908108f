// Package doctor is `ouro doctor`: what a run would load from each configuration source
// (settings, model, permission rules, sandbox, hooks, agents, skills, instruction files,
// rules, memory), file by file — loaded, skipped and why — with every warning.
//
// A section never validates anything itself: it calls the loaders a run calls, with the
// warning writer a run gives them, and reports the files they read. Run captures what
// each section's loaders write and files every line under the file it names (the
// longest path it contains), so a warning appears in doctor exactly as a run prints it.
//
// Adding a mechanism (MCP servers, plugins): implement Source next to where a run loads
// it — Name, and Check, which loads through the same functions a run uses and lists the
// files in a Section — and add it to the list package doctor/checkup gives Run (which
// harness.Doctor calls).
package doctor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Status says what became of a file.
type Status string

const (
	// Loaded: the file is in force from the start.
	Loaded Status = "loaded"
	// OnDemand: the file is read at the start but applies later (a rule with paths:,
	// added when a matching file is read).
	OnDemand Status = "on demand"
	// Skipped: the file exists but is not used; its warnings say why.
	Skipped Status = "skipped"
)

// File is one configuration file a source looked at.
type File struct {
	Path   string `json:"path"`
	Status Status `json:"status"`
	// Detail says what it gave ("2 allow rules", "agent reviewer").
	Detail   string   `json:"detail,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Section is what one source loaded.
type Section struct {
	Name  string `json:"name"`
	Files []File `json:"files"`
	// Warnings are those that name none of the files.
	Warnings []string `json:"warnings,omitempty"`
	// Fatal is the error that stops a run from starting (a broken project settings
	// file); "" when a run would start.
	Fatal string `json:"fatal,omitempty"`
	// Info are facts that are no file (where model requests go, where the key comes
	// from), one a line.
	Info []string `json:"info,omitempty"`
}

// Source is one configuration mechanism. Check loads its configuration exactly as a run
// does and lists the files it read; the warnings the loaders write go to warn, the
// writer a run would give them ("ouro: ..." lines), and Run files them per file.
type Source interface {
	Name() string
	Check(warn io.Writer) Section
}

// Func makes a Source of a function.
type Func struct {
	Title string
	F     func(warn io.Writer) Section
}

// Name is the section's title.
func (f Func) Name() string { return f.Title }

// Check runs the function.
func (f Func) Check(warn io.Writer) Section { return f.F(warn) }

// Report is every section, in order.
type Report struct {
	Sections []Section `json:"sections"`
}

// Run checks each source in turn. A source that panics is reported as a fatal problem
// of its section, and the rest still run.
func Run(sources ...Source) Report {
	var r Report
	for _, s := range sources {
		r.Sections = append(r.Sections, check(s))
	}
	return r
}

func check(s Source) (sec Section) {
	var buf bytes.Buffer
	defer func() {
		if p := recover(); p != nil {
			sec = Section{Name: s.Name(), Files: []File{}, Fatal: fmt.Sprintf("loading failed: %v", p)}
		}
	}()
	sec = s.Check(&buf)
	if sec.Name == "" {
		sec.Name = s.Name()
	}
	sec.attribute(lines(buf.String()))
	if sec.Files == nil {
		sec.Files = []File{}
	}
	return sec
}

// lines splits captured output into warnings, without the "ouro: " (and "WARNING: ") a
// run prints first.
func lines(out string) []string {
	var ls []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		l = strings.TrimPrefix(strings.TrimPrefix(l, "ouro: "), "WARNING: ")
		if l != "" {
			ls = append(ls, l)
		}
	}
	return ls
}

// attribute files each warning under the file whose path it names (the longest such
// path), else under the section.
func (s *Section) attribute(warns []string) {
	idx := make([]int, len(s.Files))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return len(s.Files[idx[a]].Path) > len(s.Files[idx[b]].Path) })
	for _, w := range warns {
		placed := false
		for _, i := range idx {
			if p := s.Files[i].Path; p != "" && strings.Contains(w, p) {
				s.Files[i].Warnings = append(s.Files[i].Warnings, w)
				placed = true
				break
			}
		}
		if !placed {
			s.Warnings = append(s.Warnings, w)
		}
	}
}

// Fatal reports whether any section holds a problem that stops a run.
func (r Report) Fatal() bool {
	for _, s := range r.Sections {
		if s.Fatal != "" {
			return true
		}
	}
	return false
}

// Warnings counts every warning.
func (r Report) Warnings() int {
	n := 0
	for _, s := range r.Sections {
		n += len(s.Warnings)
		for _, f := range s.Files {
			n += len(f.Warnings)
		}
	}
	return n
}

// WriteJSON writes the report as one JSON object.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Report
		Fatal    bool `json:"fatal"`
		Warnings int  `json:"warnings"`
	}{r, r.Fatal(), r.Warnings()})
}

// WriteText writes the report for a person: a block per section, a line per file, its
// warnings indented under it.
func (r Report) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	for _, s := range r.Sections {
		fmt.Fprintf(b, "%s\n", s.Name)
		if s.Fatal != "" {
			fmt.Fprintf(b, "  FATAL: %s\n", s.Fatal)
		}
		for _, x := range s.Info {
			fmt.Fprintf(b, "  %s\n", x)
		}
		if len(s.Files) == 0 && s.Fatal == "" && len(s.Warnings) == 0 && len(s.Info) == 0 {
			fmt.Fprintf(b, "  (no files)\n")
		}
		for _, f := range s.Files {
			detail := ""
			if f.Detail != "" {
				detail = " — " + f.Detail
			}
			fmt.Fprintf(b, "  %-9s %s%s\n", f.Status, f.Path, detail)
			for _, x := range f.Warnings {
				fmt.Fprintf(b, "            warning: %s\n", x)
			}
		}
		for _, x := range s.Warnings {
			fmt.Fprintf(b, "  warning: %s\n", x)
		}
		b.WriteString("\n")
	}
	switch n := r.Warnings(); {
	case r.Fatal():
		fmt.Fprintf(b, "A run would not start: fix the FATAL problem above. %d warning(s).\n", n)
	case n > 0:
		fmt.Fprintf(b, "A run would start, with %d warning(s).\n", n)
	default:
		b.WriteString("A run would start; no warnings.\n")
	}
	return b.Flush()
}
