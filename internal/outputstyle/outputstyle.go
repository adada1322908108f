// Package outputstyle reads output styles (the system prompt chapter: how the agent
// talks), as Claude Code does: Markdown files in a project's .claude/output-styles (or
// .ouro/output-styles) and the user's ~/.claude/output-styles, each with a front matter
// of name, description and keep-coding-instructions, plus ouro's built-in Explanatory and
// Learning. The style the outputStyle setting names goes into the system prompt when a
// session starts, so the prompt's prefix stays the same for the whole session.
package outputstyle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/internal/frontmatter"
	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/internal/settingsfile"
)

// Default is the name of no style: ouro's own prompt as it is.
const Default = "default"

// maxFile bounds a style file: a style is a page of text, not a book.
const maxFile = 256 << 10

// Style is one output style.
type Style struct {
	Name        string
	Description string
	// Prompt is the text added to the system prompt (the file's body).
	Prompt string
	// KeepCoding keeps ouro's coding instructions in the prompt (keep-coding-instructions);
	// a custom style drops them unless it says true, as in Claude Code.
	KeepCoding bool
	// Path is the file it came from; empty for a built-in.
	Path string
}

// Builtins are ouro's own styles (its own words, Claude Code's names); both keep the
// coding instructions.
func Builtins() []Style {
	return []Style{
		{Name: "Explanatory", KeepCoding: true,
			Description: "Does the work and explains the choices it makes and the codebase's patterns as it goes",
			Prompt: `While you work, teach. Before or after a step that involves a real choice, add a short
"Insight" (two or three bullets, set off from the rest) saying why this way and not
another, or what pattern of this codebase the change follows. Keep insights specific to
this code, not general programming advice, and keep doing the task itself as usual.`},
		{Name: "Learning", KeepCoding: true,
			Description: "Works with you: explains as it goes and leaves small, meaningful pieces for you to write",
			Prompt: `Work with the user so they learn by doing. Explain your choices briefly as you go. When
a piece of the task is small and worth learning (a function body of 2 to 10 lines, a
condition, a test case), do not write it: prepare everything around it, mark the place
with a TODO(human) comment, say exactly what it should do and what to consider, then stop
and wait for the user to write it. Do at most one such request at a time; do the routine
parts yourself.`},
	}
}

// Dirs are the folders styles are read from, least specific first: the user's, then the
// project's (.claude, then .ouro); a later folder's style replaces an earlier one of the
// same name.
func Dirs(userHome, project string) []string {
	var ds []string
	if userHome != "" {
		ds = append(ds, filepath.Join(userHome, ".claude", "output-styles"))
	}
	if project != "" {
		ds = append(ds, filepath.Join(project, ".claude", "output-styles"), filepath.Join(project, ".ouro", "output-styles"))
	}
	return ds
}

// Find returns the built-in styles and those in dirs (see Dirs), sorted by name after the
// built-ins; warnings say which files could not be read and why.
func Find(dirs []string) (styles []Style, warnings []string) {
	byName := map[string]Style{}
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "*.md"))
		sort.Strings(files)
		for _, f := range files {
			s, err := Read(f)
			if err != nil {
				warnings = append(warnings, err.Error())
				continue
			}
			byName[strings.ToLower(s.Name)] = s
		}
	}
	styles = Builtins()
	for i, b := range styles {
		if s, ok := byName[strings.ToLower(b.Name)]; ok {
			styles[i] = s
			delete(byName, strings.ToLower(b.Name))
		}
	}
	var custom []Style
	for _, s := range byName {
		custom = append(custom, s)
	}
	slices.SortFunc(custom, func(a, b Style) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	return append(styles, custom...), warnings
}

// Lookup finds name among styles, ignoring case (Claude Code's /output-style explanatory
// picks Explanatory). Default and "" are no style: ok is true and s is empty.
func Lookup(styles []Style, name string) (s Style, ok bool) {
	name = strings.TrimSpace(name)
	if name == "" || strings.EqualFold(name, Default) {
		return Style{}, true
	}
	for _, st := range styles {
		if strings.EqualFold(st.Name, name) {
			return st, true
		}
	}
	return Style{}, false
}

// Names are the styles' names, Default first (the SDK's available_output_styles).
func Names(styles []Style) []string {
	out := []string{Default}
	for _, s := range styles {
		out = append(out, s.Name)
	}
	return out
}

// Read reads one style file: its front matter read leniently (as Claude Code does), the
// name the file's base name when the front matter gives none.
func Read(path string) (Style, error) {
	data, err := regfile.Read(path, maxFile)
	if err != nil {
		return Style{}, fmt.Errorf("output style %s: %w", path, err)
	}
	head, body := split(data)
	var fm struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		// A string so that "true", true and "yes" all read; anything else is false.
		KeepCoding string `yaml:"keep-coding-instructions"`
	}
	if head != nil {
		if _, _, err := frontmatter.Decode(head, &fm); err != nil {
			return Style{}, fmt.Errorf("output style %s: %w", path, err)
		}
	}
	s := Style{Name: strings.TrimSpace(fm.Name), Description: strings.TrimSpace(fm.Description),
		Prompt: strings.TrimSpace(string(body)), Path: path}
	switch strings.ToLower(strings.TrimSpace(fm.KeepCoding)) {
	case "true", "yes", "on":
		s.KeepCoding = true
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return s, nil
}

// split cuts a Markdown file into its front matter (nil when there is none) and body.
func split(data []byte) (head, body []byte) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || strings.TrimSpace(string(first)) != "---" {
		return nil, data
	}
	for off := 0; off <= len(rest); {
		line, next, more := bytes.Cut(rest[off:], []byte("\n"))
		if strings.TrimSpace(string(line)) == "---" {
			return rest[:off], next
		}
		if !more {
			break
		}
		off += len(line) + 1
	}
	return nil, data // no closing line: all of it is text
}

// Save sets outputStyle in the settings file at path (a project's
// .ouro/settings.local.json), keeping every other key, written atomically; Default
// removes the key.
func Save(path, name string) error {
	return settingsfile.Edit(path, "the output style", func(doc map[string]json.RawMessage) (bool, error) {
		if strings.EqualFold(name, Default) {
			delete(doc, "outputStyle")
		} else {
			raw, _ := json.Marshal(name)
			doc["outputStyle"] = raw
		}
		return true, nil
	})
}
