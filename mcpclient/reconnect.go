package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ouroagent/ouro/mcpconf"
)

// Reconnect starts server name again (a server that failed, needs a login that has
// since been made, or is connected and should restart): its old connection, if any, is
// closed and a new one made in the background, as at the start; Wait waits for it.
func (m *Manager) Reconnect(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errors.New("the session's MCP servers are closed")
	}
	for _, s := range m.servers {
		if s.cfg.Name != name {
			continue
		}
		switch {
		case !s.cfg.Runnable():
			return fmt.Errorf("%s is not used (%s): %s", name, s.state, s.err)
		case s.state == StatePending:
			return fmt.Errorf("%s is starting already", name)
		}
		if c := s.conn; c != nil {
			go c.close()
		}
		s.state, s.err, s.conn, s.tools, s.prompts, s.instructions = StatePending, "", nil, nil, nil, ""
		s.started = time.Now()
		m.changed()
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.connect(s)
		}()
		return nil
	}
	return fmt.Errorf("there is no MCP server %q", name)
}

// Login runs the OAuth login of server name (a streamable HTTP server; see
// Options.Login for open) on a connection of its own, bounded by timeout, then
// reconnects the session's connection, which now finds the saved token.
func (m *Manager) Login(ctx context.Context, name string, open func(authURL string) error, timeout time.Duration) error {
	var cfg mcpconf.Server
	found := false
	for _, s := range m.servers {
		if s.cfg.Name == name {
			cfg, found = s.cfg, true
		}
	}
	switch {
	case !found:
		return fmt.Errorf("there is no MCP server %q", name)
	case cfg.Type != mcpconf.TypeHTTP:
		return fmt.Errorf("%s is a %s server: OAuth logins are for streamable HTTP servers", name, cfg.Type)
	case !cfg.Runnable():
		return fmt.Errorf("%s is not used: %s", name, cfg.Reason)
	case m.opts.AuthDir == "":
		return errors.New("this session keeps no OAuth tokens")
	}
	o := m.opts
	o.Login, o.StartTimeout, o.LogDir = open, timeout, ""
	one := New([]mcpconf.Server{cfg}, o)
	one.Start()
	one.Wait(ctx, timeout)
	st := one.Status()[0]
	one.Close()
	if st.State != StateConnected {
		return fmt.Errorf("login to %s failed: %s", name, st.Error)
	}
	return m.Reconnect(name)
}
