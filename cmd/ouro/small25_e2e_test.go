package main

import (
	"encoding/json"
	"testing"
)

// ouro team --json with no team prints the shape a team's state has, with no members,
// and exits 0: whether no session has run here, or the list named has no team.
func TestTeamJSONWithNoTeam(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		args []string
		team string
	}{{[]string{"team", "--json"}, ""}, {[]string{"team", "--json", "--list", "crew"}, "crew"}} {
		out, errOut, code := e.run("", c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", c.args, code, out, errOut)
		}
		var s struct {
			Team    string            `json:"team"`
			Members []json.RawMessage `json:"members"`
			Tokens  *int              `json:"tokens"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("%v: not JSON (%v):\n%s", c.args, err, out)
		}
		if s.Team != c.team || s.Members == nil || len(s.Members) != 0 || s.Tokens == nil {
			t.Fatalf("%v: %s", c.args, out)
		}
	}
}
