package memory

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/llm/scripted"
)

// dirState reads every file of dir into a map.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		m[e.Name()] = string(data)
	}
	return m
}

func sameState(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

const mergeAnswer = `{"memories": [
  {"name": "db-engine", "description": "The app database is Postgres 16 with pgx", "type": "project", "body": "Postgres 16 via pgx; also runs migrations with goose.", "merged_from": ["db-engine", "ci-docs"]},
  {"name": "tabs", "description": "User prefers tabs over spaces in YAML", "type": "user", "merged_from": ["tabs"]}
]}`

func TestConsolidateFailureLeavesStoreUnchanged(t *testing.T) {
	s := seedStore(t)
	before := dirState(t, s.Dir)
	ctx := context.Background()
	cases := map[string]*scripted.Provider{
		"model error":  scripted.New(&scripted.Script{Turns: []scripted.Turn{{Fault: &scripted.Fault{Status: 400, Message: "bad"}}}}),
		"no JSON":      scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "sorry"}}}),
		"retires all":  scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: `{"memories": []}`}}}),
		"secret":       scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: `{"memories": [{"name": "k", "description": "key ghp_abcdefghijklmnopqrstuvwxyz0123456789", "type": "reference"}]}`}}}),
		"bad type":     scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: `{"memories": [{"name": "k", "description": "d", "type": "misc"}]}`}}}),
		"fails midway": scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: mergeAnswer}}}),
	}
	for name, prov := range cases {
		if name == "fails midway" {
			applyHook = func(step int) error {
				if step == 1 {
					return errors.New("disk full")
				}
				return nil
			}
		}
		changed, err := Consolidate(ctx, prov, "small", s, 2)
		applyHook = nil
		if err == nil || changed {
			t.Errorf("%s: changed=%v err=%v", name, changed, err)
		}
		if after := dirState(t, s.Dir); !sameState(before, after) {
			t.Errorf("%s: store changed:\nbefore %v\nafter %v", name, before, after)
		}
		if _, err := os.Stat(s.Dir + ".snapshot"); !os.IsNotExist(err) {
			t.Errorf("%s: snapshot left behind", name)
		}
	}
}

func TestConsolidateMerges(t *testing.T) {
	s := seedStore(t)
	ctx := context.Background()
	// At or under the threshold nothing happens and no model is called.
	idle := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: "{}"}}})
	if changed, err := Consolidate(ctx, idle, "small", s, 3); changed || err != nil || len(idle.Requests()) != 0 {
		t.Fatalf("under threshold: %v %v", changed, err)
	}
	prov := scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: mergeAnswer}}})
	changed, err := Consolidate(ctx, prov, "small", s, 2)
	if err != nil || !changed {
		t.Fatalf("changed=%v err=%v", changed, err)
	}
	all, _ := s.List()
	if len(all) != 2 {
		t.Fatalf("records = %+v", all)
	}
	db, _ := s.Get("db-engine")
	if !strings.Contains(db.Source, "session s1 turn 3") || !strings.Contains(db.Source, "session s1 turn 7") {
		t.Errorf("merged record lost its sources: %q", db.Source)
	}
	idx, _ := os.ReadFile(filepath.Join(s.Dir, IndexFile))
	if strings.Contains(string(idx), "ci-docs") {
		t.Errorf("retired record still indexed:\n%s", idx)
	}
}

// meddler is a model that, while it thinks, lets another session save a record.
type meddler struct {
	*scripted.Provider
	other *Store
}

func (m meddler) Complete(ctx context.Context, r *llm.Request, f llm.StreamFunc) (*llm.Response, error) {
	if err := m.other.Save(Record{Name: "late-fact", Description: "saved by another session meanwhile", Type: TypeProject}); err != nil {
		return nil, err
	}
	return m.Provider.Complete(ctx, r, f)
}

// A consolidation does not overwrite what another session saved while the model was
// answering: it writes nothing and says why.
func TestConsolidateLeavesAStoreChangedMeanwhile(t *testing.T) {
	s := seedStore(t)
	prov := meddler{scripted.New(&scripted.Script{Turns: []scripted.Turn{{Text: mergeAnswer}}}), Open(s.Dir, "project")}
	changed, err := Consolidate(context.Background(), prov, "small", s, 2)
	if changed || !errors.Is(err, ErrChanged) {
		t.Fatalf("changed=%v err=%v, want ErrChanged", changed, err)
	}
	all, _ := s.List()
	if len(all) != 4 {
		t.Fatalf("records = %d, want the 3 seeded and the late one", len(all))
	}
}
