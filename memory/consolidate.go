package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ouroagent/ouro/llm"
)

// DefaultConsolidateThreshold is the number of records past which consolidation runs.
const DefaultConsolidateThreshold = 40

const consolidateSystem = `You consolidate a coding agent's long-term memory. You are given every saved memory as JSON. Merge records that say the same thing, drop ones that are stale, contradicted by newer ones, or no longer useful, and keep the rest unchanged. Never add facts that are not in the input.
Answer with only JSON: {"memories": [{"name": "...", "description": "one line", "type": "user|feedback|project|reference", "body": "...", "merged_from": ["names of the input records it replaces, itself included"]}]}. The answer is the complete new set: an input record you leave out is retired.`

// applyHook lets tests fail an apply half-way.
var applyHook func(step int) error

// Consolidate merges and retires records through one model call when the store holds more
// than threshold records (0 means DefaultConsolidateThreshold). It works on a snapshot: the
// directory is copied first, and if the call, its answer or writing the new set fails the
// copy is put back, so a failed consolidation changes nothing. It reports whether the
// store changed.
func Consolidate(ctx context.Context, provider llm.Provider, model string, s *Store, threshold int) (bool, error) {
	if threshold <= 0 {
		threshold = DefaultConsolidateThreshold
	}
	if provider == nil {
		return false, errors.New("memory: consolidate needs a provider")
	}
	// The model call can take a while: the store is read under a shared lock, and the
	// new set is written under the exclusive one only if nobody changed the store since.
	old, err := s.List()
	if err != nil {
		return false, err
	}
	if len(old) <= threshold {
		return false, nil
	}
	in, _ := json.Marshal(old)
	resp, err := provider.Complete(ctx, &llm.Request{
		Model:     model,
		System:    consolidateSystem,
		Messages:  []llm.Message{llm.UserText("Memories:\n" + string(in))},
		MaxTokens: 8192,
	}, nil)
	if err != nil {
		return false, fmt.Errorf("memory: consolidate: %w", err)
	}
	var ans struct {
		Memories []struct {
			Record
			MergedFrom []string `json:"merged_from"`
		} `json:"memories"`
	}
	if err := llm.DecodeJSONIn(resp.Message.Text(), '{', '}', &ans); err != nil {
		return false, fmt.Errorf("memory: consolidate: %w", err)
	}
	byName := map[string]Record{}
	for _, r := range old {
		byName[r.Name] = r
	}
	var next []Record
	names := map[string]bool{}
	for _, m := range ans.Memories {
		r := m.Record
		r.Name = strings.TrimSpace(r.Name)
		r.Description = strings.TrimSpace(strings.ReplaceAll(r.Description, "\n", " "))
		if r.Name == "" || r.Description == "" {
			return false, fmt.Errorf("memory: consolidate: %w: a record without name or description", ErrInvalid)
		}
		switch r.Type {
		case TypeUser, TypeFeedback, TypeProject, TypeReference:
		default:
			return false, fmt.Errorf("memory: consolidate: %w: type %q", ErrInvalid, r.Type)
		}
		if why := Secret(r.Name + "\n" + r.Description + "\n" + r.Body); why != "" {
			return false, fmt.Errorf("memory: consolidate: %w (%s)", ErrSecret, why)
		}
		if names[FileName(r.Name)] {
			return false, fmt.Errorf("memory: consolidate: %w: %q twice", ErrDuplicate, r.Name)
		}
		names[FileName(r.Name)] = true
		// Keep provenance: the sources of what it merges.
		var srcs []string
		seen := map[string]bool{}
		from := m.MergedFrom
		if len(from) == 0 {
			from = []string{r.Name}
		}
		scope := ""
		for _, n := range from {
			if o, ok := byName[n]; ok {
				scope = o.Scope
				for _, src := range strings.Split(o.Source, "; ") {
					if src != "" && !seen[src] {
						seen[src] = true
						srcs = append(srcs, src)
					}
				}
			}
		}
		r.Source = strings.Join(srcs, "; ")
		if r.Source == "" {
			r.Source = "consolidation"
		}
		if r.Scope = scope; r.Scope == "" {
			r.Scope = s.Scope
		}
		r.Updated = s.now()
		if o, ok := byName[r.Name]; ok && o.Description == r.Description && o.Body == r.Body && o.Type == r.Type {
			r = o // unchanged: keep its date and source
		}
		next = append(next, r)
	}
	if len(next) == 0 {
		return false, errors.New("memory: consolidate: the model retired every record; refused")
	}
	unlock, err := s.lock(true)
	if err != nil {
		return false, err
	}
	defer unlock()
	now, err := s.list()
	if err != nil {
		return false, err
	}
	if !sameRecords(old, now) {
		return false, ErrChanged
	}
	if err := s.replaceAll(next); err != nil {
		return false, fmt.Errorf("memory: consolidate: %w", err)
	}
	return true, nil
}

// ErrChanged: another session changed the store while a consolidation was being prepared;
// nothing was written, and the next consolidation starts from the new state.
var ErrChanged = errors.New("memory: consolidate: the store changed meanwhile; left as it is")

// sameRecords reports whether two listings hold the same records, unchanged.
func sameRecords(a, b []Record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !a[i].Updated.Equal(b[i].Updated) || a[i].Description != b[i].Description || a[i].Body != b[i].Body {
			return false
		}
	}
	return true
}

// replaceAll swaps the store's records for rs under a snapshot; on failure the snapshot
// is restored. Call with the store's exclusive lock held.
func (s *Store) replaceAll(rs []Record) (err error) {
	snap := s.Dir + ".snapshot"
	if err := os.RemoveAll(snap); err != nil {
		return err
	}
	if err := copyDir(s.Dir, snap); err != nil {
		os.RemoveAll(snap)
		return fmt.Errorf("snapshot: %w", err)
	}
	defer func() {
		if err != nil {
			if rerr := restore(snap, s.Dir); rerr != nil {
				err = fmt.Errorf("%w; restoring the snapshot %s failed: %v", err, snap, rerr)
				return
			}
		}
		os.RemoveAll(snap)
	}()
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") && e.Name() != IndexFile {
			if err := os.Remove(filepath.Join(s.Dir, e.Name())); err != nil {
				return err
			}
		}
	}
	for i, r := range rs {
		if applyHook != nil {
			if err := applyHook(i); err != nil {
				return err
			}
		}
		if err := writeAtomic(filepath.Join(s.Dir, FileName(r.Name)), encode(r)); err != nil {
			return err
		}
	}
	return s.reindex()
}

func restore(snap, dir string) error {
	tmp := dir + ".failed"
	os.RemoveAll(tmp)
	if err := os.Rename(dir, tmp); err != nil {
		return err
	}
	if err := os.Rename(snap, dir); err != nil {
		os.Rename(tmp, dir)
		return err
	}
	return os.RemoveAll(tmp)
}

func copyDir(src, dst string) error {
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() {
			if err := copyDir(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				return err
			}
			continue
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
