// s09: memory. Two kinds: instruction files the user writes (CLAUDE.md, AGENTS.md, with
// @imports) that ride in the system prompt, and a store of facts the agent saved in
// earlier sessions, of which only the relevant ones are recalled into a turn.
//
//	go run ./examples/s09_memory
//
// It plays scripted models: session 1 saves a fact; session 2 starts fresh, and the
// Recaller seam puts that fact into its first request (the scripted main model checks it
// is there with expect_contains).
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ouroagent/ouro/agent"
	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
	"github.com/ouroagent/ouro/memory"
	"github.com/ouroagent/ouro/tool"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run() error {
	tmp, err := os.MkdirTemp("", "s09-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	home, repo := filepath.Join(tmp, "home"), filepath.Join(tmp, "repo")
	must(os.MkdirAll(filepath.Join(home, ".claude"), 0o755))
	must(os.MkdirAll(filepath.Join(repo, "docs"), 0o755))
	must(os.WriteFile(filepath.Join(home, ".claude", "CLAUDE.md"), []byte("Answer tersely.\n"), 0o644))
	must(os.WriteFile(filepath.Join(repo, "CLAUDE.md"), []byte("# Project\nRun `make check` before committing.\nStyle: @docs/style.md\n<!-- notes for humans only -->\n"), 0o644))
	must(os.WriteFile(filepath.Join(repo, "docs", "style.md"), []byte("Errors are wrapped with %w.\n"), 0o644))

	// 1. Instruction files, for the system prompt.
	instr, sources, warnings := memory.LoadInstructions(repo, repo, home, nil)
	fmt.Println("== instruction files:", sources, warnings)
	fmt.Println(instr)

	// 2. Session 1 saves a fact (as /remember or end-of-session extraction would).
	dir := memory.ProjectMemoryDir(filepath.Join(home, ".ouro", "projects", "-repo"))
	s1 := memory.Open(dir, "project")
	err = s1.Save(memory.Record{
		Name: "db-engine", Type: memory.TypeProject, Source: "session s1 turn 3",
		Description: "The app database is Postgres 16, accessed with pgx",
		Body:        "The database is Postgres 16; queries go through pgx, not database/sql.",
	})
	if err != nil {
		return err
	}
	err = s1.Save(memory.Record{Name: "key", Description: "deploy key sk-ant-api03-abcdefghijklmnopqrstuv"})
	fmt.Println("\n== saving a secret:", err)
	idx, _ := s1.Index()
	fmt.Println("\n== MEMORY.md\n" + idx)

	// 3. Session 2: a fresh store over the same directory; recall on the first call.
	small := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: `["db-engine"]`}}})
	main := scripted.New(&scripted.Script{Turns: []scripted.Turn{
		{ExpectContains: "Postgres 16", Text: "I'll write the migration for Postgres 16 using pgx."},
	}})
	rc := &memory.Recaller{Provider: small, Model: "small", Stores: []*memory.Store{memory.Open(dir, "project")},
		OnRecall: func(rs []memory.Record) {
			for _, r := range rs {
				fmt.Printf("== recalled %s (%s)\n", r.Name, r.Source)
			}
		}}
	a, err := agent.New(agent.Config{Provider: main, Model: "claude-sonnet-5-5", System: instr,
		Tools: tool.NewRegistry(), BeforeModel: []agent.BeforeModel{rc}})
	if err != nil {
		return err
	}
	out := a.Run(context.Background(), &agent.Conversation{}, llm.TextBlock("add a created_at column to users"))
	if !out.OK() {
		return fmt.Errorf("run failed: %+v", out)
	}
	reqs := main.Requests()
	last := reqs[0].Messages[len(reqs[0].Messages)-1]
	fmt.Println("\n== session 2's first request ends with:\n" + last.Text())
	return nil
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
