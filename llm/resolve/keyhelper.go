package resolve

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/ouroagent/ouro/llm/anthropic/cloud"
	"github.com/ouroagent/ouro/llm/keyhelper"
	"github.com/ouroagent/ouro/settings"
)

// KeyHelper is the session's apiKeyHelper (nil when the settings name none): the command
// the person's own or managed settings give (a project's may not: package settings leaves
// it out), run in dir with the settings' env, its key kept for
// CLAUDE_CODE_API_KEY_HELPER_TTL_MS as env reads it (an invalid value is warned about on
// warn, and the default used).
//
// It also holds awsCredentialExport and awsAuthRefresh, from the same files, for Bedrock.
func KeyHelper(set *settings.Settings, env func(string) string, dir string, warn io.Writer) *keyhelper.Helper {
	if set == nil || set.APIKeyHelper.Value == "" && set.AWSCredentialExport.Value == "" && set.AWSAuthRefresh.Value == "" {
		return nil
	}
	ttl := keyhelper.DefaultTTL
	if set.APIKeyHelper.Value != "" {
		var problem string
		if ttl, problem = keyhelper.TTL(env); problem != "" {
			fmt.Fprintf(warn, "ouro: %s\n", problem)
		}
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
	h := keyhelper.New(keyhelper.Config{Command: set.APIKeyHelper.Value, Source: set.APIKeyHelper.Source,
		Env: extra, Dir: dir, TTL: ttl, Warn: warn})
	if v := set.AWSCredentialExport; v.Value != "" {
		h.AWSExport = &keyhelper.Config{Setting: "awsCredentialExport", Command: v.Value, Source: v.Source, Env: extra, Dir: dir}
	}
	if v := set.AWSAuthRefresh; v.Value != "" {
		h.AWSRefresh = &keyhelper.Config{Setting: "awsAuthRefresh", Command: v.Value, Source: v.Source, Env: extra, Dir: dir, Warn: warn}
	}
	return h
}

// awsCommands are the helper's Bedrock commands as package cloud runs them:
// awsCredentialExport within Claude Code's bound of one run, awsAuthRefresh within 3
// minutes with what it prints on stderr shown (a login URL, a code).
func awsCommands(h *keyhelper.Helper) cloud.AWSCommands {
	var c cloud.AWSCommands
	if h == nil {
		return c
	}
	if e := h.AWSExport; e != nil {
		c.Export = func(ctx context.Context) ([]byte, error) { return keyhelper.Output(ctx, *e, 0, nil) }
	}
	if r := h.AWSRefresh; r != nil {
		if r.Warn == nil {
			r.Warn = io.Discard
		}
		c.Refresh = func(ctx context.Context) error {
			fmt.Fprintf(r.Warn, "ouro: running awsAuthRefresh (%s) for new AWS credentials\n", r.Source)
			_, err := keyhelper.Output(ctx, *r, 3*time.Minute, r.Warn)
			return err
		}
	}
	return c
}
