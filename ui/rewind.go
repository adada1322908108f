package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ouroagent/ouro/checkpoint"
	"github.com/ouroagent/ouro/internal/prompttext"
)

// rewind is /rewind [N [code|conversation|both]]: it lists the session's prompts with the
// files each changed and puts the code, the conversation or both back to what they were
// before the chosen one. Missing arguments are asked for.
func (r *REPL) rewind(args string) error {
	err := r.rewindAsking(args)
	if errors.Is(err, io.EOF) {
		fmt.Fprintln(r.Out, "\n(the input ended before an answer: nothing more was rewound)")
		return nil
	}
	return err
}

func (r *REPL) rewindAsking(args string) error {
	prompts, err := r.sess.Checkpoints()
	if err != nil {
		fmt.Fprintln(r.Err, "ouro: some checkpoints could not be read:", err)
	}
	if len(prompts) == 0 {
		fmt.Fprintln(r.Out, "Nothing to rewind: no prompt has run in this session yet.")
		return nil
	}
	fmt.Fprintln(r.Out, "Prompts, oldest first. Only changes made by ouro's Edit and Write are tracked: changes made by Bash or outside ouro are not, and a rewind does not undo them.")
	for i, p := range prompts {
		fmt.Fprintf(r.Out, "  %d. %q — %s\n", i+1, previewText(p.Preview), r.describeFiles(p))
	}
	fields := strings.Fields(args)
	arg := func(i int) string {
		if i < len(fields) {
			return fields[i]
		}
		return ""
	}
	r.inMu.Lock()
	defer r.inMu.Unlock()
	choice := arg(0)
	if choice == "" {
		if choice, err = r.ask("Rewind to before which prompt? (its number; Enter cancels) "); err != nil || choice == "" {
			return err
		}
	}
	n, err := strconv.Atoi(choice)
	if err != nil || n < 1 || n > len(prompts) {
		return fmt.Errorf("rewind: %q is not a prompt number; give one from 1 to %d", choice, len(prompts))
	}
	p := prompts[n-1]
	what := arg(1)
	for {
		if what == "" {
			if what, err = r.ask("Restore [c] code, [v] conversation or [b] both to before it? (Enter cancels) "); err != nil || what == "" {
				return err
			}
		}
		switch strings.ToLower(what) {
		case "c", "code":
			return r.rewindCode(p)
		case "v", "conversation":
			return r.rewindConversation(p)
		case "b", "both":
			if p.Compacted {
				return errors.New("rewind: the conversation was compacted since that prompt, so it cannot be rewound to before it; /rewind with code restores its files")
			}
			if err := r.rewindCode(p); err != nil {
				return err
			}
			return r.rewindConversation(p)
		}
		fmt.Fprintf(r.Out, "%q is not one of the choices.\n", what)
		what = ""
	}
}

// previewText is a checkpoint's preview as the person typed the prompt: those recorded
// before checkpoint.preview read !commands kept their tags (<bash-input>ls</bash-input> …).
func previewText(s string) string {
	more := strings.HasSuffix(s, " …")
	s = strings.ReplaceAll(prompttext.Readable(strings.TrimSuffix(s, " …")), "\n", " · ")
	if more {
		s += " …"
	}
	return s
}

// ask prints question and reads one line (the caller holds inMu).
func (r *REPL) ask(question string) (string, error) {
	fmt.Fprint(r.Out, question)
	line, err := r.readLine(context.Background())
	return strings.TrimSpace(stripEscapes(line)), err
}

func (r *REPL) describeFiles(p checkpoint.Prompt) string {
	var names []string
	for _, f := range p.Files {
		name := f.Path
		if rel, err := filepath.Rel(r.sess.CWD, f.Path); err == nil && !strings.HasPrefix(rel, "..") {
			name = rel
		}
		switch {
		case f.Absent:
			name += " (new)"
		case f.TooBig:
			name += " (too big to checkpoint: cannot be restored)"
		}
		names = append(names, name)
	}
	s := "no file changed by Edit or Write"
	if len(names) > 0 {
		s = "changed " + strings.Join(names, ", ")
	}
	if p.Compacted {
		s += " [conversation compacted since: code only]"
	}
	return s
}

// rewindCode restores the files changed since before p. Files changed since ouro wrote
// them are overwritten only when the person says so; refused ones are never touched.
func (r *REPL) rewindCode(p checkpoint.Prompt) error {
	steps, err := r.sess.PlanRewind(p.ID)
	if err != nil {
		return fmt.Errorf("rewind: %w", err)
	}
	var refused, conflicts, todo int
	for _, st := range steps {
		switch {
		case st.Refused != "" && st.File.TooBig: // lost, but it need not hold the others back
			fmt.Fprintf(r.Out, "  cannot restore %s: %s\n", st.File.Path, st.Refused)
		case st.Refused != "":
			refused++
			fmt.Fprintf(r.Out, "  cannot restore %s: %s\n", st.File.Path, st.Refused)
		case st.Conflict != "":
			conflicts++
			fmt.Fprintf(r.Out, "  %s: %s\n", st.File.Path, st.Conflict)
		case !st.Same:
			todo++
		}
	}
	if refused > 0 {
		return fmt.Errorf("rewind: nothing was restored, because %d file(s) cannot be (see above)", refused)
	}
	force := false
	if conflicts > 0 {
		for {
			ans, err := r.ask(fmt.Sprintf("Overwrite the %d file(s) above with their earlier content too? [y] yes  [n] no, restore nothing ", conflicts))
			if err != nil {
				return err
			}
			switch strings.ToLower(ans) {
			case "y", "yes":
				force = true
			case "n", "no":
				fmt.Fprintln(r.Out, "Nothing was restored.")
				return nil
			default:
				continue
			}
			break
		}
	}
	if todo+conflicts == 0 {
		fmt.Fprintln(r.Out, "The files are already as they were before that prompt.")
		return nil
	}
	done, err := r.sess.RestoreCode(steps, force)
	for _, f := range done {
		if f.Absent {
			fmt.Fprintf(r.Out, "  deleted %s (it did not exist before)\n", f.Path)
		} else {
			fmt.Fprintf(r.Out, "  restored %s\n", f.Path)
		}
	}
	if err != nil {
		return fmt.Errorf("rewind: %w", err)
	}
	fmt.Fprintf(r.Out, "Code restored to before prompt %q (%d file(s)).\n", previewText(p.Preview), len(done))
	return nil
}

func (r *REPL) rewindConversation(p checkpoint.Prompt) error {
	kept, err := r.sess.RewindConversation(p.ID)
	if err != nil {
		return fmt.Errorf("rewind: %w", err)
	}
	fmt.Fprintf(r.Out, "Conversation rewound to before prompt %q (%d message(s) kept).\n", previewText(p.Preview), kept)
	return nil
}
