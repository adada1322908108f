package outputstyle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFindOrderAndOverrides(t *testing.T) {
	user, proj := t.TempDir(), t.TempDir()
	write(t, filepath.Join(user, ".claude", "output-styles", "zeta.md"), "---\nname: Zeta\n---\nuser zeta\n")
	write(t, filepath.Join(user, ".claude", "output-styles", "shared.md"), "---\nname: Shared\n---\nfrom the user\n")
	write(t, filepath.Join(proj, ".claude", "output-styles", "shared.md"), "---\nname: shared\nkeep-coding-instructions: yes\n---\nfrom the project\n")
	write(t, filepath.Join(proj, ".claude", "output-styles", "plain.md"), "no front matter at all\n")
	write(t, filepath.Join(proj, ".ouro", "output-styles", "explanatory.md"), "---\nname: Explanatory\n---\nmy own explanatory\n")
	write(t, filepath.Join(proj, ".claude", "output-styles", "notes.txt"), "not a style")
	styles, warns := Find(Dirs(user, proj))
	if len(warns) != 0 {
		t.Fatalf("warnings %v", warns)
	}
	var names []string
	for _, s := range styles {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "Explanatory,Learning,plain,shared,Zeta" {
		t.Fatalf("names %s", got)
	}
	if styles[0].Prompt != "my own explanatory" || styles[0].KeepCoding || styles[0].Path == "" {
		t.Errorf("the project's Explanatory should replace the built-in: %+v", styles[0])
	}
	sh, ok := Lookup(styles, "SHARED")
	if !ok || sh.Prompt != "from the project" || !sh.KeepCoding {
		t.Errorf("shared = %+v, %v", sh, ok)
	}
	if p, _ := Lookup(styles, "plain"); p.Prompt != "no front matter at all" || p.KeepCoding {
		t.Errorf("plain = %+v", p)
	}
	if d, ok := Lookup(styles, "Default"); !ok || d.Name != "" {
		t.Errorf("default = %+v, %v", d, ok)
	}
	if _, ok := Lookup(styles, "missing"); ok {
		t.Error("a missing style was found")
	}
	if got := strings.Join(Names(styles), ","); got != "default,Explanatory,Learning,plain,shared,Zeta" {
		t.Errorf("Names = %s", got)
	}
}

func TestReadLenientAndBroken(t *testing.T) {
	dir := t.TempDir()
	// An unquoted colon in the description breaks strict YAML; Claude Code reads it.
	p := filepath.Join(dir, "colon.md")
	write(t, p, "---\nname: Colon\ndescription: Use it: when you want\nkeep-coding-instructions: true\n---\n\nBody.\n")
	s, err := Read(p)
	if err != nil || s.Description != "Use it: when you want" || !s.KeepCoding || s.Prompt != "Body." {
		t.Fatalf("%+v, %v", s, err)
	}
	// No closing line: the whole file is text.
	p = filepath.Join(dir, "open.md")
	write(t, p, "---\nname: Open\nstill text\n")
	if s, err := Read(p); err != nil || s.Name != "open" || !strings.HasPrefix(s.Prompt, "---") {
		t.Fatalf("%+v, %v", s, err)
	}
	write(t, filepath.Join(dir, "big.md"), strings.Repeat("x", maxFile+1))
	if _, warns := Find([]string{dir}); len(warns) != 1 || !strings.Contains(warns[0], "big.md") {
		t.Errorf("warnings %v", warns)
	}
}

func TestSaveKeepsOtherKeys(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".ouro", "settings.local.json")
	if err := Save(p, "Learning"); err != nil {
		t.Fatal(err)
	}
	write(t, p, `{"permissions":{"allow":["Read"]},"outputStyle":"x"}`)
	if err := Save(p, "Explanatory"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if !strings.Contains(string(data), `"outputStyle": "Explanatory"`) || !strings.Contains(string(data), `"allow"`) {
		t.Errorf("%s", data)
	}
	if err := Save(p, "default"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); strings.Contains(string(data), "outputStyle") {
		t.Errorf("default should remove the key: %s", data)
	}
	write(t, p, "[1]")
	if err := Save(p, "Learning"); err == nil {
		t.Error("a file that is not an object was overwritten")
	}
}
