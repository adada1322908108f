package harness

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ouroagent/ouro/internal/outputstyle"
	"github.com/ouroagent/ouro/settings"
)

// styles are the output styles found when the session opened and the one in force:
// chosen once, so the system prompt stays the same for the whole session (/output-style
// saves the choice for the next one).
type styles struct {
	all []outputstyle.Style
	cur outputstyle.Style // empty: the default
}

// loadStyles finds the styles of the user's and the project's folders and picks the one
// the outputStyle setting names; a name no style has is said once and the default used.
func loadStyles(d dirs, set *settings.Settings, warn io.Writer) styles {
	all, problems := outputstyle.Find(outputstyle.Dirs(d.config, d.cwd))
	for _, p := range problems {
		fmt.Fprintln(warn, "ouro:", p)
	}
	st := styles{all: all}
	if set == nil || set.OutputStyle.Value == "" {
		return st
	}
	cur, ok := outputstyle.Lookup(all, set.OutputStyle.Value)
	if !ok {
		fmt.Fprintf(warn, "ouro: outputStyle %q (%s): no such output style; using the default (/output-style lists them)\n", set.OutputStyle.Value, set.OutputStyle.Source)
		return st
	}
	st.cur = cur
	return st
}

// OutputStyle is the name of the session's output style ("default": none).
func (s *Session) OutputStyle() string {
	if s.styles.cur.Name == "" {
		return outputstyle.Default
	}
	return s.styles.cur.Name
}

// OutputStyles are the styles found when the session opened, built-in ones first.
func (s *Session) OutputStyles() []outputstyle.Style { return s.styles.all }

// SaveOutputStyle saves name as the project's outputStyle in .ouro/settings.local.json
// (most binding of the project's files), for the sessions opened from now on; this
// session keeps its prompt. It returns the file written.
func (s *Session) SaveOutputStyle(name string) (string, error) {
	st, ok := outputstyle.Lookup(s.styles.all, name)
	if !ok {
		return "", fmt.Errorf("no output style %q; /output-style lists them", name)
	}
	if st.Name != "" {
		name = st.Name
	} else {
		name = outputstyle.Default
	}
	path := filepath.Join(s.CWD, ".ouro", "settings.local.json")
	before, _ := os.ReadFile(path)
	if err := outputstyle.Save(path, name); err != nil {
		return "", err
	}
	// The person's own word, as /permissions' saves: not a change by the tools that the
	// next session would refuse.
	if after, err := os.ReadFile(path); err == nil && s.grants != nil {
		s.grants.Wrote(path, before, after)
	}
	return path, nil
}
