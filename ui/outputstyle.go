package ui

import (
	"fmt"
	"strings"
)

// outputStyle lists the output styles (/output-style) or saves one for the sessions
// opened from now on (/output-style NAME): the session keeps the style it opened with,
// so its system prompt, and the prompt cache built on it, stay the same.
func (r *REPL) outputStyle(args string) error {
	s := r.sess
	if args = strings.TrimSpace(args); args != "" {
		path, err := s.SaveOutputStyle(args)
		if err != nil {
			return fmt.Errorf("/output-style: %w", err)
		}
		fmt.Fprintf(r.Out, "output style %s saved to %s; it applies from the next session (/clear starts one), this one keeps %s\n", args, path, s.OutputStyle())
		return nil
	}
	cur := s.OutputStyle()
	mark := func(name string) string {
		if strings.EqualFold(name, cur) {
			return "* "
		}
		return "  "
	}
	fmt.Fprintf(r.Out, "%sdefault  ouro's own prompt (built-in)\n", mark("default"))
	for _, st := range s.OutputStyles() {
		where := "built-in"
		if st.Path != "" {
			where = st.Path
		}
		fmt.Fprintf(r.Out, "%s%s  %s (%s)\n", mark(st.Name), st.Name, Clip(st.Description, 120), where)
	}
	fmt.Fprintln(r.Out, "/output-style NAME saves one for the sessions opened from now on (.ouro/settings.local.json)")
	return nil
}
