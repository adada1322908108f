package skill

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// ToolName is the Skill tool's name.
const ToolName = "Skill"

// BundleDirs are the folders of a skill whose files Invoke lists.
var BundleDirs = []string{"references", "scripts", "assets"}

// maxListed bounds the bundled files listed.
const maxListed = 200

const toolDescription = `Loads a skill: its instructions and the list of files bundled with it. Call it when the task matches a skill in <available_skills> in the system prompt, before you start the task, and follow the instructions it returns.
- skill is the skill's name exactly as listed (e.g. "pdf-forms").
- args is optional text passed to the skill (what to work on, options).
- The skill's files (references/, scripts/, assets/) become readable: open them with Read only when the instructions call for them.
- Do not call it again for a skill already loaded in this conversation.`

const toolSchema = `{"type":"object","properties":{"skill":{"type":"string","description":"The name of the skill to load"},"args":{"type":"string","description":"Optional arguments for the skill"}},"required":["skill"],"additionalProperties":false}`

// Invocation is a loaded skill: its expanded text and bundled files.
type Invocation struct {
	Skill Skill
	// Text is what the model receives: a header naming the skill and its folder, the
	// bundled files, then the body with $ARGUMENTS and the folder variables substituted.
	Text  string
	Files []string // absolute paths of the files under references/, scripts/, assets/
}

// Invoke loads the skill called name with args: it reads the body, substitutes
// $ARGUMENTS, $ARGUMENTS[N] and $N (see substituteArgs), ${CLAUDE_SKILL_DIR} and ${OURO_SKILL_DIR}, lists the bundled files and, when
// ws is not nil, adds the skill's folder to ws so they can be read. An unknown name is an
// error listing the skills that exist. The REPL's /<name> args uses it as the tool does.
func (c *Catalog) Invoke(ws *workspace.Workspace, name, args string) (Invocation, error) {
	s, ok := c.Get(name)
	if !ok {
		if c.Len() == 0 {
			return Invocation{}, fmt.Errorf("unknown skill %q: no skills are installed", name)
		}
		return Invocation{}, fmt.Errorf("unknown skill %q. The skills that exist are: %s", name, strings.Join(c.Names(), ", "))
	}
	body, err := s.Body()
	if err != nil {
		return Invocation{}, err
	}
	if ws != nil {
		if err := ws.AddRoot(s.Dir); err != nil {
			return Invocation{}, fmt.Errorf("skill %s: its folder cannot be made readable: %w", s.Name, err)
		}
	}
	args = strings.TrimSpace(args)
	body = strings.NewReplacer("${CLAUDE_SKILL_DIR}", s.Dir, "${OURO_SKILL_DIR}", s.Dir).Replace(body)
	body = substituteArgs(body, args)
	var files []string
	var more int
	if !s.Command { // a command's folder holds other commands, not its files
		files, more = bundled(s.Dir)
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "Skill %q loaded from %s\n", s.Name, s.Dir)
	if len(files) > 0 {
		sb.WriteString("Files bundled with this skill (open them with Read when the instructions call for them):\n")
		for _, f := range files {
			sb.WriteString("- " + f + "\n")
		}
		if more > 0 {
			fmt.Fprintf(&sb, "- … and %d more (list the folder to see them)\n", more)
		}
	}
	sb.WriteString("\n")
	sb.WriteString(body)
	return Invocation{Skill: s, Text: sb.String(), Files: files}, nil
}

// InvokeForUser is Invoke for the user's /name: a skill marked user-invocable: false is
// the model's alone.
func (c *Catalog) InvokeForUser(ws *workspace.Workspace, name, args string) (Invocation, error) {
	if s, ok := c.Get(name); ok && !s.UserInvocable {
		return Invocation{}, fmt.Errorf("skill %q is loaded by the model when it needs it, not by a command (user-invocable: false)", name)
	}
	return c.Invoke(ws, name, args)
}

func names(skills []Skill) []string {
	out := make([]string, len(skills))
	for i, s := range skills {
		out[i] = s.Name
	}
	return out
}

// bundled lists the files under the skill's bundle folders, at most maxListed; more is
// how many were left out.
func bundled(dir string) (files []string, more int) {
	for _, sub := range BundleDirs {
		root := filepath.Join(dir, sub)
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != root && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if len(files) >= maxListed {
				more++
				return nil
			}
			files = append(files, p)
			return nil
		})
	}
	return files, more
}

// skillTool is the Skill tool.
type skillTool struct {
	cat      *Catalog
	ws       *workspace.Workspace
	onInvoke func(context.Context, Invocation) string
}

// NewTool returns the Skill tool over cat. Each successful call adds the skill's folder
// to ws (when not nil) and then calls onInvoke (when not nil) with the invocation, whose
// answer is the text the model receives: the harness grants the skill's AllowedTools for
// the rest of the turn, runs its !`command`s (ExpandDynamic) and keeps its text, to put
// it back after the conversation is summarized.
func NewTool(cat *Catalog, ws *workspace.Workspace, onInvoke func(context.Context, Invocation) string) tool.Tool {
	return &skillTool{cat: cat, ws: ws, onInvoke: onInvoke}
}

func (t *skillTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: ToolName, Description: toolDescription, InputSchema: json.RawMessage(toolSchema)}
}

// ReadOnly: loading a skill writes nothing; it only widens what Read may open.
func (t *skillTool) ReadOnly() bool { return true }

// Describe implements tool.Describer: loading a skill changes only the session; rules
// name the skill.
func (t *skillTool) Describe(input json.RawMessage) ([]tool.Action, error) {
	return describeSkill(input)
}

var describeSkill = tool.DescribeNamed("skill")

func (t *skillTool) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	input := x.Input
	var in struct {
		Skill string `json:"skill"`
		Args  string `json:"args"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return tool.Result{}, fmt.Errorf("invalid input: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	if s, ok := t.cat.Get(in.Skill); ok && s.DisableModelInvocation {
		return tool.Result{}, fmt.Errorf("skill %q can only be invoked by the user (disable-model-invocation: true); the skills you may load are: %s", in.Skill, strings.Join(names(t.cat.ForModel()), ", "))
	}
	inv, err := t.cat.Invoke(t.ws, in.Skill, in.Args)
	if err != nil {
		return tool.Result{}, err
	}
	text := inv.Text
	if t.onInvoke != nil {
		text = t.onInvoke(ctx, inv)
	}
	res := tool.Text(text)
	res.ChangedState = true // Read may now open the skill's files
	return res, nil
}
