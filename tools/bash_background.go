package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"github.com/ouroagent/ouro/internal/bgtask"
	"github.com/ouroagent/ouro/sandbox"
	"github.com/ouroagent/ouro/tool"
)

// CommandStarter runs a shell command as a background task: spawn starts the command's
// process, writing to out (the task's output file), and the starter keeps the task, tells
// the session when it ends and answers the call at once. A *background.Manager is one;
// the interface lives here so that the shell tool does not import the manager.
type CommandStarter interface {
	StartCommand(x *tool.Exec, description, command string, spawn func(out io.Writer) (bgtask.Proc, error)) tool.Result
}

// runBackground starts in.Command as a background task (run_in_background): the same
// shell, sandbox and launcher as a foreground command, in its own process group, with
// stdout and stderr going to the task's output file. It returns at once. The command
// starts in the current directory; a cd inside it does not carry over.
func (b *Bash) runBackground(ctx context.Context, x *tool.Exec, in bashInput) (tool.Result, error) {
	if err := ctx.Err(); err != nil {
		return tool.Result{}, fmt.Errorf("bash: not started: %w", err)
	}
	dir, note, err := b.startDir()
	if err != nil {
		return tool.Result{}, err
	}
	res := b.cfg.Background.StartCommand(x, in.Description, in.Command, func(out io.Writer) (bgtask.Proc, error) {
		return b.spawn(ctx, b.policyFor(in), in.Command, dir, out)
	})
	if note != "" && !res.IsError {
		res = tool.Text(note + "\n" + res.Text())
	}
	return res, nil
}

// bgProc is a background command's process group.
type bgProc struct {
	tree       procTree
	supervised bool
	b          *Bash
	done       chan struct{}
	exit       bgtask.Exit
}

func (b *Bash) spawn(ctx context.Context, pol *sandbox.Policy, command, dir string, out io.Writer) (*bgProc, error) {
	tmpDir := ""
	if sb := b.sandboxPolicy(); sb != nil {
		tmpDir = sb.TempDir
	}
	// The wrapper's EXIT trap writes the final directory here; a background command's is
	// not kept, but the file must be one the sandboxed shell may write.
	cwdFile, err := os.CreateTemp(tmpDir, "ouro-bash-cwd-*")
	if err != nil {
		return nil, fmt.Errorf("create cwd file: %w", err)
	}
	cwdPath := cwdFile.Name()
	cwdFile.Close()
	cmd, supervised, err := b.shellCommand(ctx, pol, command, cwdPath)
	if err != nil {
		os.Remove(cwdPath)
		return nil, err
	}
	cmd.Dir = dir                     // Env, without ouro's credentials, set by shellCommand
	cmd.Stdout, cmd.Stderr = out, out // one pipe: the order they were written in
	cmd.Stdin = nil
	ownGroup(cmd)
	cmd.WaitDelay = orphanPipeWait
	var absent []string
	var indexes *sandbox.IndexGuard
	var placeholders *sandbox.Placeholders
	var protect *sandbox.ProtectGuard
	if pol != nil {
		// As in the foreground (see Run), for as long as the command runs.
		placeholders = pol.HoldPlaceholders()
		absent = pol.Absent()
		indexes = pol.GuardIndexes()
		protect = pol.GuardProtected()
	}
	tree, err := startTree(cmd)
	if err != nil {
		os.Remove(cwdPath)
		protect.Restore() // nothing ran: only lets go of what it holds
		if placeholders != nil {
			placeholders.Release()
		}
		return nil, fmt.Errorf("start %s in %s: %w", b.shell, dir, err)
	}
	p := &bgProc{tree: tree, supervised: supervised && sandbox.Resident(cmd), b: b, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		werr := cmd.Wait()
		sandbox.End(cmd) // what the command left running dies with it
		os.Remove(cwdPath)
		if len(absent) > 0 {
			sandbox.Reclaim(absent, pol.TempDir)
		}
		indexes.Restore()
		protect.Restore()
		if pol != nil {
			pol.MigrateObjects()
		}
		if placeholders != nil {
			placeholders.Release()
		}
		var exitErr *exec.ExitError
		switch {
		case werr == nil, errors.As(werr, &exitErr), errors.Is(werr, exec.ErrWaitDelay):
		default:
			p.exit.Err = werr
			return
		}
		st := cmd.ProcessState
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.exit.Signal = ws.Signal().String()
			p.exit.Code = 128 + int(ws.Signal())
			return
		}
		p.exit.Code = st.ExitCode()
	}()
	return p, nil
}

// Wait implements bgtask.Proc.
func (p *bgProc) Wait() bgtask.Exit {
	<-p.done
	return p.exit
}

// Stop implements bgtask.Proc: the whole group, and through the launcher every
// process the command started (setsid and double forks included), is terminated.
func (p *bgProc) Stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.tree.terminate(p.supervised, p.b.cfg.KillGrace)
	<-p.done
}
