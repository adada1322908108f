package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ouroagent/ouro/harness"
	"github.com/ouroagent/ouro/memory"
	"github.com/ouroagent/ouro/session"
)

// memoryStores opens the project's and the user's memory stores, as a session does.
func memoryStores() ([]*memory.Store, error) {
	home, err := session.Home()
	if err != nil {
		return nil, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return []*memory.Store{
		memory.Open(memory.ProjectMemoryDir(harness.ProjectDirFor(home, cwd)), "project"),
		memory.Open(memory.UserMemoryDir(home), "user"),
	}, nil
}

// findRecord looks name up in the project store, then the user store.
func findRecord(stores []*memory.Store, name string) (*memory.Store, memory.Record, error) {
	for _, s := range stores {
		if r, err := s.Get(name); err == nil {
			return s, r, nil
		} else if !errors.Is(err, memory.ErrNotFound) {
			return nil, memory.Record{}, err
		}
	}
	return nil, memory.Record{}, fmt.Errorf("no memory named %q (ouro memory list shows them)", name)
}

// storeOf returns the store (project first, then user) that holds the memory called name.
func storeOf(name string) (*memory.Store, error) {
	stores, err := memoryStores()
	if err != nil {
		return nil, err
	}
	s, _, err := findRecord(stores, name)
	return s, err
}

func newMemoryCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "memory",
		Short: "List, show, forget or edit what ouro remembers across sessions",
		Long: `Memories are Markdown files with a frontmatter (name, description, type, source,
scope, updated), kept per project under <OURO_HOME or ~/.ouro>/projects/<dir>/memory/
and for the user under <OURO_HOME or ~/.ouro>/memory/, each folder with a MEMORY.md
index. /remember in a session adds to them; relevant ones are recalled at each prompt.`,
	}
	c.AddCommand(&cobra.Command{
		Use: "list", Short: "List the memories of this project and the user", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stores, err := memoryStores()
			if err != nil {
				return err
			}
			w, n := cmd.OutOrStdout(), 0
			for _, s := range stores {
				rs, err := s.List()
				if err != nil {
					return err
				}
				for _, r := range rs {
					n++
					fmt.Fprintf(w, "%-24s %-9s %-8s %s\n", r.Name, r.Type, s.Scope, r.Description)
				}
			}
			if n == 0 {
				fmt.Fprintf(w, "No memories yet (looked in %s and %s).\n", stores[0].Dir, stores[1].Dir)
			}
			return nil
		},
	})
	c.AddCommand(&cobra.Command{
		Use: "show NAME", Short: "Print one memory", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := storeOf(args[0])
			if err != nil {
				return err
			}
			data, err := os.ReadFile(s.Path(args[0]))
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(data)
			return err
		},
	})
	c.AddCommand(&cobra.Command{
		Use: "forget NAME", Short: "Delete one memory", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := storeOf(args[0])
			if err != nil {
				return err
			}
			if err := s.Forget(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "forgot %s (%s)\n", args[0], s.Scope)
			return nil
		},
	})
	c.AddCommand(&cobra.Command{
		Use: "edit NAME", Short: "Open one memory in $VISUAL or $EDITOR, then reindex", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := storeOf(args[0])
			if err != nil {
				return err
			}
			editor := os.Getenv("VISUAL")
			if editor == "" {
				editor = os.Getenv("EDITOR")
			}
			if editor == "" {
				return fmt.Errorf("set $VISUAL or $EDITOR to edit; the file is %s", s.Path(args[0]))
			}
			fields := strings.Fields(editor)
			e := exec.Command(fields[0], append(fields[1:], s.Path(args[0]))...)
			e.Stdin, e.Stdout, e.Stderr = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			if err := e.Run(); err != nil {
				return fmt.Errorf("%s: %w", filepath.Base(fields[0]), err)
			}
			if _, err := s.Get(args[0]); err != nil {
				return fmt.Errorf("after editing, %s no longer reads as a memory: %w", s.Path(args[0]), err)
			}
			return s.Reindex()
		},
	})
	return c
}
