package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ouroagent/ouro/tool"
	"github.com/ouroagent/ouro/workspace"
)

// The benchmark tree: 20,000 files, about 200 MB, in 20×50 directories, with
// deterministic content, generated once and kept under os.TempDir() for later runs.
const (
	benchTreeName  = "ouro-bench-tree-v1"
	benchDirs      = 20
	benchSubdirs   = 50
	benchFilesEach = 20
	benchFileBytes = 10_000 // average
)

// benchQueries are the searches BenchmarkGrep and BenchmarkRipgrep both run: a rare
// literal, a regexp with a required literal that is common on lines that do not
// match, and a case-insensitive literal.
var benchQueries = []struct {
	name    string
	pattern string
	fold    bool
}{
	{"literal", "ProcessRequestTimeout", false},
	{"regex", `func \(\w+ \*\w+\) \w+Handler\(`, false},
	{"ignorecase", "processrequesttimeout", true},
}

// benchTree returns the root of the benchmark tree, generating it the first time.
func benchTree(b *testing.B) string {
	b.Helper()
	if testing.Short() {
		b.Skip("the benchmark tree is 200 MB; not under -short")
	}
	base := filepath.Join(os.TempDir(), benchTreeName)
	root := filepath.Join(base, "tree")
	if _, err := os.Stat(filepath.Join(base, "complete")); err == nil {
		return root
	}
	tmp := fmt.Sprintf("%s.tmp-%d", base, os.Getpid())
	if err := generateBenchTree(filepath.Join(tmp, "tree")); err != nil {
		os.RemoveAll(tmp)
		b.Fatalf("generate the benchmark tree: %v", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "complete"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	os.RemoveAll(base) // a partial tree left by an interrupted run
	if err := os.Rename(tmp, base); err != nil {
		os.RemoveAll(tmp)
		if _, statErr := os.Stat(filepath.Join(base, "complete")); statErr != nil {
			b.Fatal(err)
		}
	}
	return root
}

// generateBenchTree writes the tree with one goroutine per top directory, each with
// its own seeded generator, so the content is the same on every machine.
func generateBenchTree(root string) error {
	words := []string{"ctx", "err", "return", "if", "nil", "request", "response", "handler", "Handler",
		"config", "value", "index", "buffer", "string", "int", "for", "range", "func", "type", "struct",
		"client", "server", "timeout", "Process", "Request", "data", "result", "count", "name", "path"}
	exts := []string{".go", ".py", ".ts", ".md", ".txt"}
	var wg sync.WaitGroup
	errs := make(chan error, benchDirs)
	for d := range benchDirs {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(d), 42))
			var sb strings.Builder
			for s := range benchSubdirs {
				dir := filepath.Join(root, fmt.Sprintf("pkg%02d", d), fmt.Sprintf("mod%02d", s))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					errs <- err
					return
				}
				for f := range benchFilesEach {
					sb.Reset()
					size := benchFileBytes/5 + rng.IntN(benchFileBytes*8/5)
					n := 0
					for sb.Len() < size {
						n++
						switch r := rng.IntN(1000); {
						case r < 2:
							fmt.Fprintf(&sb, "\tif err := s.ProcessRequestTimeout(ctx, %d); err != nil {\n", n)
						case r < 6:
							fmt.Fprintf(&sb, "func (s *Server) get%dHandler(ctx context.Context) error {\n", n)
						case r < 40:
							fmt.Fprintf(&sb, "\t// Handler %d handles the request\n", n)
						default:
							sb.WriteByte('\t')
							for w := range 4 + rng.IntN(8) {
								if w > 0 {
									sb.WriteByte(' ')
								}
								sb.WriteString(words[rng.IntN(len(words))])
							}
							sb.WriteByte('\n')
						}
					}
					name := filepath.Join(dir, fmt.Sprintf("file%02d%s", f, exts[(s+f)%len(exts)]))
					if err := os.WriteFile(name, []byte(sb.String()), 0o644); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func benchGrepInput(pattern string, fold bool, mode string) json.RawMessage {
	raw, _ := json.Marshal(map[string]any{"pattern": pattern, "-i": fold, "output_mode": mode})
	return raw
}

// BenchmarkGrep runs the Grep tool over the benchmark tree in the files_with_matches
// and content modes.
func BenchmarkGrep(b *testing.B) {
	root := benchTree(b)
	ws, err := workspace.New(root)
	if err != nil {
		b.Fatal(err)
	}
	g := NewGrep(ws)
	for _, q := range benchQueries {
		for _, mode := range []string{"files_with_matches", "content"} {
			b.Run(q.name+"/"+mode, func(b *testing.B) {
				in := benchGrepInput(q.pattern, q.fold, mode)
				for b.Loop() {
					res, err := g.Run(context.Background(), tool.ExecInput(in))
					if err != nil || res.IsError || strings.HasPrefix(res.Text(), "No ") {
						b.Fatalf("Grep %s: %v %s", in, err, res.Text())
					}
				}
			})
		}
	}
}

// BenchmarkRipgrep runs rg with the same queries on the same tree, for comparison.
func BenchmarkRipgrep(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg is not on PATH")
	}
	root := benchTree(b)
	for _, q := range benchQueries {
		for _, mode := range []string{"files_with_matches", "content"} {
			b.Run(q.name+"/"+mode, func(b *testing.B) {
				args := []string{"--no-config"}
				if mode == "content" {
					args = append(args, "-n")
				} else {
					args = append(args, "-l")
				}
				if q.fold {
					args = append(args, "-i")
				}
				args = append(args, "--", q.pattern, ".")
				for b.Loop() {
					cmd := exec.Command(rg, args...)
					cmd.Dir, cmd.Stdout = root, io.Discard
					if err := cmd.Run(); err != nil {
						b.Fatalf("rg %v: %v", args, err)
					}
				}
			})
		}
	}
}

// BenchmarkGlob finds every Go file in the benchmark tree.
func BenchmarkGlob(b *testing.B) {
	root := benchTree(b)
	ws, err := workspace.New(root)
	if err != nil {
		b.Fatal(err)
	}
	g := NewGlob(ws)
	in := json.RawMessage(`{"pattern": "**/*.go"}`)
	for b.Loop() {
		res, err := g.Run(context.Background(), tool.ExecInput(in))
		if err != nil || !strings.Contains(res.Text(), "4000 matching files") {
			b.Fatalf("Glob: %v %.200s", err, res.Text())
		}
	}
}
