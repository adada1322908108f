package harness

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ouroagent/ouro/internal/natsjs"
	"github.com/ouroagent/ouro/session"
	"github.com/ouroagent/ouro/settings"
	"github.com/ouroagent/ouro/task"
	"github.com/ouroagent/ouro/task/natsstore"
	"github.com/ouroagent/ouro/task/sqlitestore"
)

// StoreEnv names the store of task lists and workflow journals when --store is not given.
const StoreEnv = "OURO_STORE"

// ResolveStore picks where task lists and workflow journals are kept: --store, then
// OURO_STORE, then the store.url setting (the user's own settings only); "" means ouro's
// state.db on this machine. A value given that is no NATS URL is an error naming where
// it came from.
func ResolveStore(flag string, set *settings.Settings) (string, error) {
	from, v := "--store", strings.TrimSpace(flag)
	if v == "" {
		from, v = StoreEnv, strings.TrimSpace(os.Getenv(StoreEnv))
	}
	if v == "" && set != nil {
		from, v = "store.url in "+set.Store.URL.Source, set.Store.URL.Value
	}
	if v == "" {
		return "", nil
	}
	if !natsjs.IsURL(v) {
		return "", fmt.Errorf("%s: %q is no store URL; the shared store is NATS JetStream: nats://HOST:PORT (leave it unset to keep tasks in ~/.ouro/state.db)", from, v)
	}
	if _, err := natsjs.Parse(v); err != nil {
		return "", fmt.Errorf("%s: %w", from, err)
	}
	return v, nil
}

// CLIStore resolves the store for a command without a session (ouro tasks, ouro
// workflow): the flag, OURO_STORE, then store.url in the user's or managed settings.
func CLIStore(flag string) (string, error) {
	if strings.TrimSpace(flag) != "" || os.Getenv(StoreEnv) != "" {
		return ResolveStore(flag, nil)
	}
	home, err := session.Home()
	if err != nil {
		return "", err
	}
	cwd, _ := os.Getwd()
	set, err := settings.Load(settings.LoadOptions{OuroHome: home, ProjectDir: cwd, Managed: settings.ManagedPaths()})
	if err != nil {
		return "", err
	}
	return ResolveStore("", set)
}

// OpenTaskStore opens the task store: JetStream at url, or state.db under home when url
// is "".
func OpenTaskStore(ctx context.Context, url, home string) (task.Store, error) {
	if url != "" {
		return natsstore.Open(ctx, url)
	}
	return sqlitestore.Open(StatePath(home), sqlitestore.Options{})
}

// JournalLocation is what the workflow helper opens: the store URL, or state.db.
func JournalLocation(url, home string) string {
	if url != "" {
		return url
	}
	return StatePath(home)
}
