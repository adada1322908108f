package checkup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ouroagent/ouro/doctor"
	"github.com/ouroagent/ouro/internal/natsjs"
)

// storeProbe bounds doctor's look at a shared store.
const storeProbe = 5 * time.Second

// store says where task lists, mailboxes and workflow journals are kept (--store is a
// session's flag; doctor sees OURO_STORE and store.url): state.db on this machine, or a
// NATS JetStream store, which it connects to and asks for its JetStream account, so
// that a store nobody can reach shows here rather than at a team's first claim.
func (c *checkup) store(warn io.Writer) doctor.Section {
	url, err := c.load.Store(c.set)
	if err != nil {
		return doctor.Section{Fatal: err.Error()}
	}
	if url == "" {
		path := c.load.StatePath()
		detail := "state.db on this machine"
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			detail += " (made at first use)"
		}
		return doctor.Section{Files: []doctor.File{{Path: path, Status: doctor.Loaded, Detail: detail}}}
	}
	cfg, err := natsjs.Parse(url)
	if err != nil {
		return doctor.Section{Fatal: err.Error()}
	}
	if cfg.Timeout == 0 || cfg.Timeout > storeProbe {
		cfg.Timeout = storeProbe
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeProbe)
	defer cancel()
	conn, err := natsjs.Connect(ctx, cfg, "ouro doctor")
	if err != nil {
		return doctor.Section{Warnings: []string{fmt.Sprintf("the shared store %s cannot be used now: %v", cfg.Where(), err)}}
	}
	defer conn.Close()
	detail := "NATS JetStream, reachable"
	if cl := conn.NC.ConnectedClusterName(); cl != "" {
		detail += fmt.Sprintf(", cluster %s (new buckets get %d replicas)", cl, conn.Replicas())
	}
	return doctor.Section{Files: []doctor.File{{Path: cfg.Where(), Status: doctor.Loaded, Detail: detail}}}
}
