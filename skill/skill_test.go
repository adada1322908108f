package skill

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

func load(t *testing.T, folder string) (Skill, []Warning, bool) {
	t.Helper()
	return Load(filepath.Join("testdata", "varied", folder))
}

func hasWarning(ws []Warning, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w.Message, sub) {
			return true
		}
	}
	return false
}

func TestLoadVaried(t *testing.T) {
	cases := []struct {
		folder    string
		ok        bool
		name      string
		desc      string
		tools     []string
		warn      string // a warning containing this, or "" for no warnings
		checkMore func(t *testing.T, s Skill)
	}{
		{folder: "folded", ok: true, name: "folded", desc: "Folds a long description over several lines into one.",
			checkMore: func(t *testing.T, s Skill) {
				if s.License != "MIT" || s.Compatibility != "Needs git and network access" {
					t.Errorf("license/compatibility = %q / %q", s.License, s.Compatibility)
				}
				if !reflect.DeepEqual(s.Metadata, map[string]string{"author": "example-org", "version": "1.0"}) {
					t.Errorf("metadata = %v", s.Metadata)
				}
			}},
		{folder: "literal", ok: true, name: "literal", desc: "First line of a literal description.\nSecond line kept apart."},
		{folder: "list-tools", ok: true, name: "list-tools", desc: "Declares allowed-tools as a YAML list.",
			tools: []string{"Read", "Grep", "Bash(git diff:*)"}},
		{folder: "string-tools", ok: true, name: "string-tools", desc: "Declares allowed-tools as one string.",
			tools: []string{"Bash(git add:*)", "Bash(git status:*)", "Read"}},
		{folder: "no-description", ok: false, warn: "no description"},
		// What Claude Code loads without a word loads here without a warning too.
		{folder: "no-name", ok: true, name: "no-name", desc: "Has no name; the folder name is used."},
		{folder: "other-folder", ok: true, name: "other-folder", desc: "Its name differs from its folder."},
		{folder: "bad-yaml", ok: false, warn: "bad YAML"},
		{folder: "colon-desc", ok: true, name: "colon-desc", desc: "Use this when: the user asks about colons"},
		{folder: "no-frontmatter", ok: false, warn: "no YAML frontmatter"},
		{folder: "unclosed", ok: false, warn: "no closing ---"},
		{folder: "Bad_Name", ok: true, name: "Bad_Name", desc: "An invalid name, kept under its folder name with a warning."},
		{folder: "with-files", ok: true, name: "with-files", desc: "Bundles references, scripts and assets.",
			tools: []string{"Read", "Bash(python3:*)"}},
	}
	for _, c := range cases {
		t.Run(c.folder, func(t *testing.T) {
			s, warns, ok := load(t, c.folder)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v (warnings %v)", ok, c.ok, warns)
			}
			if c.warn == "" && len(warns) > 0 {
				t.Errorf("unexpected warnings %v", warns)
			}
			if c.warn != "" && !hasWarning(warns, c.warn) {
				t.Errorf("warnings %v lack %q", warns, c.warn)
			}
			for _, w := range warns {
				if !strings.HasSuffix(w.Path, FileName) {
					t.Errorf("warning path %q does not name the SKILL.md", w.Path)
				}
			}
			if !ok {
				return
			}
			if s.Name != c.name || s.Description != c.desc {
				t.Errorf("name, description = %q, %q; want %q, %q", s.Name, s.Description, c.name, c.desc)
			}
			if !reflect.DeepEqual(s.AllowedTools, c.tools) {
				t.Errorf("allowed tools = %q, want %q", s.AllowedTools, c.tools)
			}
			if !filepath.IsAbs(s.Dir) || filepath.Base(s.Dir) != c.folder || s.Path != filepath.Join(s.Dir, FileName) {
				t.Errorf("dir, path = %q, %q", s.Dir, s.Path)
			}
			if c.checkMore != nil {
				c.checkMore(t, s)
			}
		})
	}
}

// Long fields load quietly, as in Claude Code.
func TestLongFieldsLoadQuietly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "long")
	write(t, filepath.Join(dir, FileName), fmt.Sprintf("---\nname: Long Title\ndescription: %s\ncompatibility: %s\n---\nbody\n",
		strings.Repeat("d", MaxDescriptionLen+1), strings.Repeat("c", MaxCompatibilityLen+1)))
	s, warns, ok := Load(dir)
	if !ok || len(warns) != 0 || s.Name != "long" {
		t.Fatalf("ok=%v name=%q warnings=%v", ok, s.Name, warns)
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "pdf-forms": true, "x1-2y": true, strings.Repeat("a", 64): true,
		"": false, "-a": false, "a-": false, "a--b": false, "A": false, "a_b": false, strings.Repeat("a", 65): false,
	} {
		if ValidName(name) != want {
			t.Errorf("ValidName(%q) = %v", name, !want)
		}
	}
}

func TestSplitTools(t *testing.T) {
	got := SplitTools(" Read,Grep  Bash(git log --oneline:*),\nWebFetch(domain:example.com) ")
	want := []string{"Read", "Grep", "Bash(git log --oneline:*)", "WebFetch(domain:example.com)"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SplitTools = %q, want %q", got, want)
	}
}

func TestBodyIsLazyAndStripsFrontmatter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lazy")
	write(t, filepath.Join(dir, FileName), "---\nname: lazy\ndescription: d\n---\nfirst body\n")
	s, _, ok := Load(dir)
	if !ok {
		t.Fatal("not loaded")
	}
	// The body is read when asked for, not at discovery.
	write(t, filepath.Join(dir, FileName), "---\nname: lazy\ndescription: d\n---\n\nsecond body\n---\nnot frontmatter\n")
	body, err := s.Body()
	if err != nil || body != "second body\n---\nnot frontmatter" {
		t.Fatalf("Body = %q, %v", body, err)
	}
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeSkill(t testing.TB, root, folder, name, desc string) string {
	t.Helper()
	dir := filepath.Join(root, folder)
	write(t, filepath.Join(dir, FileName), fmt.Sprintf("---\nname: %s\ndescription: %s\n---\nBody of %s in %s.\n", name, desc, name, root))
	return dir
}

// layout: home/.claude/skills, repo/.git, repo/.agents/skills, repo/sub/proj with .ouro
// and .claude skills; outside/ above the repository is never looked at.
func TestDiscoverPrecedence(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	outside := filepath.Join(base, "outside")
	repo := filepath.Join(outside, "repo")
	proj := filepath.Join(repo, "sub", "proj")
	for _, d := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(repo, ".git", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}

	writeSkill(t, filepath.Join(home, ".claude/skills"), "shared", "shared", "user version")
	writeSkill(t, filepath.Join(home, ".ouro/skills"), "user-only", "user-only", "only in home")
	writeSkill(t, filepath.Join(proj, ".claude/skills"), "shared", "shared", "project claude version")
	writeSkill(t, filepath.Join(proj, ".ouro/skills"), "shared", "shared", "project ouro version")
	writeSkill(t, filepath.Join(proj, ".claude/skills"), "claude-vs-agents", "claude-vs-agents", "claude")
	writeSkill(t, filepath.Join(proj, ".agents/skills"), "claude-vs-agents", "claude-vs-agents", "agents")
	writeSkill(t, filepath.Join(repo, ".ouro/skills"), "near-far", "near-far", "repo root (farther)")
	writeSkill(t, filepath.Join(proj, ".agents/skills"), "near-far", "near-far", "project (nearer)")
	writeSkill(t, filepath.Join(repo, ".agents/skills"), "root-only", "root-only", "at the repository root")
	writeSkill(t, filepath.Join(outside, ".ouro/skills"), "outside", "outside", "above the repository")
	write(t, filepath.Join(proj, ".ouro/skills/broken/SKILL.md"), "---\nname: broken\n---\n")
	write(t, filepath.Join(proj, ".ouro/skills/not-a-skill/README.md"), "no SKILL.md here")

	cat, warns := Discover(Options{Dir: proj, Home: home})
	want := map[string]string{
		"shared":           "project ouro version",
		"claude-vs-agents": "claude",
		"near-far":         "project (nearer)",
		"root-only":        "at the repository root",
		"user-only":        "only in home",
	}
	if got := cat.Names(); !reflect.DeepEqual(got, []string{"claude-vs-agents", "near-far", "root-only", "shared", "user-only"}) {
		t.Fatalf("names = %v", got)
	}
	for name, desc := range want {
		s, ok := cat.Get(name)
		if !ok || s.Description != desc {
			t.Errorf("%s: %q (found %v), want %q", name, s.Description, ok, desc)
		}
	}
	if s, _ := cat.Get("user-only"); s.Scope != ScopeUser {
		t.Errorf("user-only scope = %q", s.Scope)
	}
	if s, _ := cat.Get("/shared"); s.Scope != ScopeProject {
		t.Errorf("shared scope = %q", s.Scope)
	}
	if len(warns) != 1 || !strings.Contains(warns[0].Message, "no description") {
		t.Errorf("warnings = %v", warns)
	}

	// Without a repository only the project directory itself is searched.
	if err := os.RemoveAll(filepath.Join(repo, ".git")); err != nil {
		t.Fatal(err)
	}
	cat, _ = Discover(Options{Dir: proj, Home: home, NoUser: true})
	if got := cat.Names(); !reflect.DeepEqual(got, []string{"claude-vs-agents", "near-far", "shared"}) {
		t.Fatalf("names without a repository = %v", got)
	}
	if s, _ := cat.Get("near-far"); s.Description != "project (nearer)" {
		t.Errorf("near-far = %q", s.Description)
	}
}

func TestPromptWithinBudget(t *testing.T) {
	var skills []Skill
	for i := range 40 {
		skills = append(skills, Skill{
			Name:        fmt.Sprintf("skill-%02d", i),
			Description: fmt.Sprintf("Description %d <with & markup>. ", i) + strings.Repeat("words ", 60),
			Path:        fmt.Sprintf("/skills/skill-%02d/SKILL.md", i),
		})
	}
	cat := NewCatalog(skills...)

	full := cat.Prompt(-1)
	if !strings.Contains(full, "<available_skills>") || !strings.Contains(full, "Skill tool") ||
		!strings.Contains(full, "<name>skill-07</name>") || !strings.Contains(full, "<location>/skills/skill-07/SKILL.md</location>") ||
		!strings.Contains(full, "&lt;with &amp; markup&gt;") {
		t.Fatalf("full catalog lacks parts:\n%s", full[:600])
	}
	if len(full) <= DefaultBudget {
		t.Fatalf("test set too small: %d", len(full))
	}

	// Over budget: one line per skill, every description cut alike but not below
	// minDescription, every skill still listed.
	p := cat.Prompt(0)
	if len(p) > DefaultBudget || strings.Count(p, "\n- skill-") != 40 || !strings.Contains(p, "- skill-39: Description") || strings.Contains(p, "by name alone") {
		t.Fatalf("default budget: %d chars\n%s", len(p), p)
	}
	for _, line := range strings.Split(p, "\n- ")[1:] {
		if _, d, _ := strings.Cut(line, ": "); utf8.RuneCountInString(d) < minDescription {
			t.Fatalf("a description cut below %d: %q", minDescription, line)
		}
	}

	// Far over budget: descriptions of minDescription for as many as fit, the rest by
	// name alone, every name kept.
	l := cat.Listing(2500)
	p = l.Text
	if len(p) > 2500 || strings.Contains(p, "<skill>") || strings.Count(p, "\n- skill-") != 40 || !strings.Contains(p, "- skill-00: Description 0") ||
		!strings.Contains(p, "\n- skill-39\n") || !strings.Contains(p, "by name alone") || len(l.Short) != 40 || l.Short[0].Kept != minDescription || l.Short[39] != (Cut{Name: "skill-39", Full: utf8.RuneCountInString(skills[39].Description)}) {
		t.Fatalf("small budget: %d chars %+v\n%s", len(p), l.Short, p)
	}
	// Names alone: still every one.
	p = cat.Prompt(900)
	if len(p) > 900 || strings.Count(p, "\n- skill-") != 40 || strings.Contains(p, "Description") {
		t.Fatalf("tiny budget: %d chars\n%s", len(p), p)
	}

	if NewCatalog().Prompt(0) != "" {
		t.Error("empty catalog renders text")
	}
	// A short catalog is rendered whole.
	small := NewCatalog(skills[0])
	if p := small.Prompt(0); strings.Contains(p, "…") || !strings.Contains(p, "words words </description>") {
		t.Errorf("small catalog shortened: %s", p)
	}
}

func TestTool(t *testing.T) {
	project := t.TempDir()
	dst := filepath.Join(t.TempDir(), "skills")
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", "varied"))); err != nil {
		t.Fatal(err)
	}
	var cat []Skill
	for _, f := range []string{"with-files", "folded", "literal"} {
		s, _, ok := Load(filepath.Join(dst, f))
		if !ok {
			t.Fatal(f)
		}
		cat = append(cat, s)
	}
	c := NewCatalog(cat...)
	ws, err := workspace.New(project)
	if err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(dst, "with-files", "references", "guide.md")
	if _, err := ws.Resolve(ref); err == nil {
		t.Fatal("reference readable before the skill was invoked")
	}

	var invoked []Skill
	tl := NewTool(c, ws, func(_ context.Context, inv Invocation) string { invoked = append(invoked, inv.Skill); return inv.Text })
	if tl.Spec().Name != "Skill" || !tl.ReadOnly() {
		t.Fatalf("spec %+v", tl.Spec())
	}
	res, err := tl.Run(context.Background(), tool.ExecInput(json.RawMessage(`{"skill":"with-files","args":"report.pdf"}`)))
	if err != nil || res.IsError {
		t.Fatalf("run: %v %v", err, res.Text())
	}
	out := res.Text()
	dir := filepath.Join(dst, "with-files")
	for _, want := range []string{
		`Skill "with-files" loaded from ` + dir,
		"- " + ref,
		"- " + filepath.Join(dir, "scripts", "run.py"),
		"- " + filepath.Join(dir, "assets", "template.txt"),
		"Work on: report.pdf",
		"Read " + dir + "/references/guide.md first",
		"python3 " + dir + "/scripts/run.py",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("result lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "$ARGUMENTS") || strings.Contains(out, "${") || strings.Contains(out, "description:") {
		t.Errorf("result keeps variables or frontmatter:\n%s", out)
	}
	if !res.ChangedState {
		t.Error("ChangedState not set")
	}
	if len(invoked) != 1 || invoked[0].Name != "with-files" || !reflect.DeepEqual(invoked[0].AllowedTools, []string{"Read", "Bash(python3:*)"}) {
		t.Errorf("onInvoke got %+v", invoked)
	}
	if got, err := ws.Resolve(ref); err != nil || filepath.Base(got) != "guide.md" {
		t.Errorf("reference not readable after invoking: %q %v", got, err)
	}

	// Arguments without $ARGUMENTS in the body are appended.
	res, err = tl.Run(context.Background(), tool.ExecInput(json.RawMessage(`{"skill":"/folded","args":"x y"}`)))
	if err != nil || !strings.HasSuffix(res.Text(), "Body of folded.\n\nARGUMENTS: x y") {
		t.Errorf("folded: %v %q", err, res.Text())
	}

	// Unknown name: an error listing what exists; onInvoke not called.
	_, err = tl.Run(context.Background(), tool.ExecInput(json.RawMessage(`{"skill":"nope"}`)))
	if err == nil || !strings.Contains(err.Error(), `unknown skill "nope"`) || !strings.Contains(err.Error(), "folded, literal, with-files") {
		t.Errorf("unknown: %v", err)
	}
	if len(invoked) != 2 {
		t.Errorf("onInvoke called %d times", len(invoked))
	}
	if _, err := NewCatalog().Invoke(nil, "x", ""); err == nil || !strings.Contains(err.Error(), "no skills") {
		t.Errorf("empty catalog: %v", err)
	}
}

func BenchmarkCatalog100(b *testing.B) {
	project := b.TempDir()
	if err := os.Mkdir(filepath.Join(project, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	root := filepath.Join(project, ".ouro", "skills")
	for i := range 100 {
		name := fmt.Sprintf("generated-skill-%03d", i)
		writeSkill(b, root, name, name, fmt.Sprintf("Skill %d does this. ", i)+strings.Repeat("does a particular thing well when asked; ", 4))
	}
	b.ResetTimer()
	for b.Loop() {
		cat, warns := Discover(Options{Dir: project, NoUser: true})
		if cat.Len() != 100 || len(warns) != 0 {
			b.Fatalf("%d skills, %v", cat.Len(), warns)
		}
		p := cat.Prompt(0)
		if len(p) > Budget(100) {
			b.Fatalf("catalog %d chars, over %d", len(p), Budget(100))
		}
	}
}

// A large skill collection (181 skills, as real setups have) keeps every name within the
// default budget; skills only the user may invoke are not offered to the model at all.
func TestCatalogKeepsEveryNameAndHonoursInvocationFlags(t *testing.T) {
	var skills []Skill
	for i := range 181 {
		skills = append(skills, Skill{Name: fmt.Sprintf("collection-skill-%03d", i), UserInvocable: true,
			Description: "Use when the user asks about topic " + fmt.Sprint(i) + ": " + strings.Repeat("detail ", 30),
			Path:        fmt.Sprintf("/home/u/.claude/skills/collection-skill-%03d/SKILL.md", i)})
	}
	skills[7].DisableModelInvocation = true
	p := NewCatalog(skills...).Prompt(0)
	if len(p) > Budget(180) {
		t.Fatalf("catalog is %d bytes, over %d", len(p), Budget(180))
	}
	for i, s := range skills {
		if in := strings.Contains(p, s.Name); in == (i == 7) {
			t.Errorf("%s listed = %v", s.Name, in)
		}
	}

	dir := t.TempDir()
	write(t, filepath.Join(dir, "deploy", FileName), "---\nname: deploy\ndescription: Deploys: only when asked\ndisable-model-invocation: true\nargument-hint: [environment]\n---\nDeploy to $ARGUMENTS.\n")
	write(t, filepath.Join(dir, "style", FileName), "---\ndescription: House style\nuser-invocable: false\n---\nUse tabs.\n")
	deploy, warns, ok := Load(filepath.Join(dir, "deploy"))
	if !ok || len(warns) != 0 || !deploy.DisableModelInvocation || !deploy.UserInvocable || deploy.ArgumentHint != "[environment]" {
		t.Fatalf("deploy = %+v, warnings %v", deploy, warns)
	}
	style, _, _ := Load(filepath.Join(dir, "style"))
	if style.UserInvocable || style.DisableModelInvocation {
		t.Fatalf("style = %+v", style)
	}
	cat := NewCatalog(deploy, style)
	if p := cat.Prompt(0); strings.Contains(p, "deploy") || !strings.Contains(p, "style") {
		t.Errorf("catalog:\n%s", p)
	}
	tl := NewTool(cat, nil, nil)
	res, err := tl.Run(context.Background(), tool.ExecInput(json.RawMessage(`{"skill":"deploy"}`)))
	if err == nil && !res.IsError {
		t.Fatalf("the model loaded a user-only skill: %s", res.Text())
	}
	if _, err := cat.InvokeForUser(nil, "style", ""); err == nil || !strings.Contains(err.Error(), "user-invocable: false") {
		t.Errorf("the user invoked a model-only skill: %v", err)
	}
	inv, err := cat.InvokeForUser(nil, "deploy", "staging")
	if err != nil || !strings.Contains(inv.Text, "Deploy to staging.") {
		t.Errorf("user invocation: %v %q", err, inv.Text)
	}
}

// A skill's hooks: block is read; a command file is a skill named after the file, its
// first line describing it when its frontmatter does not.
func TestSkillHooksAndCommands(t *testing.T) {
	dir := t.TempDir()
	sk := filepath.Join(dir, "secure")
	if err := os.MkdirAll(sk, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sk, FileName), []byte("---\ndescription: checks\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./check.sh\n---\nbody"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, warns, ok := Load(sk)
	if !ok || len(warns) != 0 || len(s.Hooks["PreToolUse"]) != 1 || s.Hooks["PreToolUse"][0].Hooks[0].Command != "./check.sh" {
		t.Fatalf("skill %+v warns %v", s, warns)
	}
	cmd := filepath.Join(dir, "deploy.md")
	if err := os.WriteFile(cmd, []byte("# Deploy the app to staging\nRun make deploy.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, warns, ok = LoadCommand(cmd)
	if !ok || s.Name != "deploy" || s.Description != "Deploy the app to staging" || s.Path != cmd {
		t.Fatalf("command %+v warns %v", s, warns)
	}
	if body, _ := s.Body(); !strings.Contains(body, "Run make deploy.") {
		t.Errorf("body %q", body)
	}
}
