package resolve

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/ouroagent/ouro/llm/keyhelper"
	"github.com/ouroagent/ouro/settings"
)

// KeyHelper is the session's apiKeyHelper (nil when the settings name none): the command
// the person's own or managed settings give (a project's may not: package settings leaves
// it out), run in dir with the settings' env, its key kept for
// CLAUDE_CODE_API_KEY_HELPER_TTL_MS as env reads it (an invalid value is warned about on
// warn, and the default used).
func KeyHelper(set *settings.Settings, env func(string) string, dir string, warn io.Writer) *keyhelper.Helper {
	if set == nil || set.APIKeyHelper.Value == "" {
		return nil
	}
	ttl, problem := keyhelper.TTL(env)
	if problem != "" {
		fmt.Fprintf(warn, "ouro: %s\n", problem)
	}
	// The settings' env as Claude Code exports it: what the environment holds wins.
	var extra []string
	keys := make([]string, 0, len(set.Env))
	for k := range set.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := os.LookupEnv(k); !ok {
			extra = append(extra, k+"="+set.Env[k])
		}
	}
	return keyhelper.New(keyhelper.Config{Command: set.APIKeyHelper.Value, Source: set.APIKeyHelper.Source,
		Env: extra, Dir: dir, TTL: ttl, Warn: warn})
}
