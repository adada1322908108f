package settings

import "path/filepath"

// Watched is a settings file a session may see change, with the source Claude Code's
// ConfigChange hooks name it by.
type Watched struct {
	Path   string
	Source string // user_settings, project_settings, local_settings or policy_settings
}

// WatchedFiles are the settings files Load reads for o, whether they exist yet or not:
// the user's, the project's, the local ones and the managed ones (the --settings flag's
// is given by whoever runs ouro and is not among them).
func WatchedFiles(o LoadOptions) []Watched {
	ls, err := o.layers()
	if err != nil {
		return nil
	}
	var out []Watched
	for _, l := range ls {
		if l.flag || l.inline != "" {
			continue
		}
		src := "project_settings"
		switch {
		case l.user:
			src = "user_settings"
		case filepath.Base(l.path) == "settings.local.json":
			src = "local_settings"
		}
		out = append(out, Watched{Path: l.path, Source: src})
	}
	for _, p := range o.Managed {
		out = append(out, Watched{Path: p, Source: "policy_settings"})
	}
	return out
}
