package checkup

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/doctor"
	"github.com/ouroagent/ouro/grant"
	"github.com/ouroagent/ouro/internal/regfile"
	"github.com/ouroagent/ouro/mcpclient"
	"github.com/ouroagent/ouro/mcpconf"
	"github.com/ouroagent/ouro/plugin/market"
	"github.com/ouroagent/ouro/settings"
)

// mcp is doctor's section for MCP servers: each configured server, the file that defines
// it, whether it is approved, and whether it starts. The configuration is read as a
// session reads it (mcpconf.Load, with the same review of the user's files); every server
// that may start is started as a session starts it, within MCP_TIMEOUT, then stopped. A
// project server not approved is never started: its line says so and how to approve it.
func (c *checkup) mcp(warn io.Writer) doctor.Section {
	ledger := grant.Open(c.d.Project)
	cfg, err := mcpconf.Load(mcpconf.Options{CWD: c.d.CWD, UserHome: c.d.Config, OuroHome: c.d.Home,
		Flags: c.cfg.MCP.Configs, Strict: c.cfg.MCP.Strict,
		Unreviewed: func(path string, data []byte) string {
			if ok, why, _ := ledger.Trusted(path, data); !ok {
				return why
			}
			return ""
		}})
	if err != nil {
		return doctor.Section{Fatal: err.Error()}
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(warn, "ouro: mcp: %s\n", w)
	}
	if len(cfg.Servers) == 0 {
		return doctor.Section{}
	}
	mo := mcpclient.Options{CWD: c.d.CWD, Version: c.cfg.Version, AuthDir: mcpclient.AuthDir(c.d.Home)}
	mo.TimeoutsFromEnv(os.Getenv)
	limit := mo.StartTimeout
	if limit <= 0 {
		limit = mcpclient.DefaultStartTimeout
	}
	m := mcpclient.New(cfg.Servers, mo)
	m.Start()
	m.Wait(context.Background(), limit)
	status := map[string]mcpclient.Status{}
	for _, st := range m.Status() {
		status[st.Name] = st
	}
	m.Close()

	var s doctor.Section
	for _, srv := range cfg.Servers {
		st := status[srv.Name]
		f := doctor.File{Path: srv.Source, Status: doctor.Skipped}
		head := fmt.Sprintf("server %s (%s, %s): ", srv.Name, srv.Scope, srv.Type)
		approved := "approved, "
		if srv.Scope != mcpconf.ScopeProject {
			approved = "" // the user's own: nothing to approve
		}
		switch {
		case srv.State == mcpconf.StateNeedsApproval:
			f.Detail = head + "not approved, not started: " + srv.Reason
		case srv.State == mcpconf.StateDisabled:
			f.Detail = head + "not started: " + srv.Reason
		case !srv.Runnable():
			f.Detail = head + "not started: " + srv.Reason
			fmt.Fprintf(warn, "ouro: mcp: server %s in %s: %s\n", srv.Name, srv.Source, srv.Reason)
		case st.State == mcpclient.StateConnected:
			f.Status = doctor.Loaded
			f.Detail = head + approved + fmt.Sprintf("starts (%d tools)", len(st.Tools))
		case st.State == mcpclient.StatePending:
			f.Detail = head + approved + fmt.Sprintf("does not start: no answer within %s (MCP_TIMEOUT)", limit)
			fmt.Fprintf(warn, "ouro: mcp: server %s (%s) did not answer within %s (MCP_TIMEOUT)\n", srv.Name, srv.Source, limit)
		default:
			why := st.Error
			if why == "" {
				why = st.State
			}
			f.Detail = head + approved + "does not start: " + why
			fmt.Fprintf(warn, "ouro: mcp: server %s (%s) does not start: %s\n", srv.Name, srv.Source, why)
		}
		s.Files = append(s.Files, f)
	}
	return s
}

// unhonoured names, for each settings file a session loads, the keys it holds that ouro
// reads past without acting on (settings.Unhonoured: what the settings package does not
// implement and no other package reads, such as the MCP approvals).
func (c *checkup) unhonoured(io.Writer) doctor.Section {
	if s, skip := c.skippedSettings(); skip {
		return s
	}
	also := append(mcpconf.SettingsKeys(), market.SettingsKeys()...)
	var s doctor.Section
	files := append([]string(nil), c.set.Files...)
	sort.Strings(files)
	for _, p := range files {
		data, err := regfile.Read(p, regfile.MaxConfig)
		if err != nil {
			continue // the settings section said why
		}
		if keys := settings.Unhonoured(data, also...); len(keys) > 0 {
			s.Files = append(s.Files, doctor.File{Path: p, Status: doctor.Loaded,
				Detail: "read, not honoured by ouro: " + strings.Join(keys, ", ")})
		}
	}
	return s
}
