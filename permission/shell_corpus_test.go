package permission

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/shell"
)

// corpusPath is the shell corpus, kept with the shell analyser whose fuzzing it seeds.
var corpusPath = filepath.Join("..", "shell", "testdata", "shell_corpus.txt")

// shellCorpus is shell/testdata/shell_corpus.txt: the rule set its header fixes and its cases.
type shellCorpus struct {
	mode      string
	workspace string // as written in the file; the test maps it to a temporary folder
	home      string
	allow     []string
	ask       []string
	deny      []string
	cases     []corpusCase
}

type corpusCase struct {
	line     int
	decision string // allow, ask or deny
	command  string
}

// corpusNewline stands for a newline inside a corpus command.
const corpusNewline = "↵"

func loadShellCorpus(path string) (*shellCorpus, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := &shellCorpus{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "#"); ok {
			key, val, ok := strings.Cut(strings.TrimSpace(rest), ":")
			if !ok {
				continue
			}
			val = strings.TrimSpace(val)
			switch key {
			case "mode":
				c.mode = val
			case "workspace":
				c.workspace = val
			case "home":
				c.home = val
			case "allow":
				c.allow = append(c.allow, val)
			case "ask":
				c.ask = append(c.ask, val)
			case "deny":
				c.deny = append(c.deny, val)
			}
			continue
		}
		decision, command, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want DECISION<TAB>COMMAND, got %q", path, n, line)
		}
		switch decision {
		case "allow", "ask", "deny":
		default:
			return nil, fmt.Errorf("%s:%d: unknown decision %q", path, n, decision)
		}
		if command == "" {
			return nil, fmt.Errorf("%s:%d: empty command", path, n)
		}
		c.cases = append(c.cases, corpusCase{line: n, decision: decision,
			command: strings.ReplaceAll(command, corpusNewline, "\n")})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if c.workspace == "" || c.home == "" {
		return nil, fmt.Errorf("%s: the header must name the workspace and the home", path)
	}
	return c, nil
}

func TestShellCorpusLoads(t *testing.T) {
	c, err := loadShellCorpus(corpusPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.cases) < 300 {
		t.Errorf("the corpus has %d cases, want at least 300", len(c.cases))
	}
	count := map[string]int{}
	seen := map[string]int{}
	for _, k := range c.cases {
		count[k.decision]++
		if prev, dup := seen[k.command]; dup {
			t.Errorf("line %d repeats the command of line %d: %q", k.line, prev, k.command)
		}
		seen[k.command] = k.line
		// Every case must at least go through the analyser without a panic.
		shell.Analyze(k.command)
	}
	for _, d := range []string{"allow", "ask", "deny"} {
		if count[d] < 30 {
			t.Errorf("only %d %s cases", count[d], d)
		}
	}
	if c.mode != "default" || len(c.allow) == 0 || len(c.deny) == 0 || len(c.ask) == 0 {
		t.Errorf("header: mode %q, %d allow, %d ask, %d deny rules", c.mode, len(c.allow), len(c.ask), len(c.deny))
	}
}
