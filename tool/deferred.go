package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ouroagent/ouro/llm"
)

// Deferred tools are registered but their schemas are not sent with every request: the
// model is told their names (in ToolSearch's description) and loads the ones it needs
// with ToolSearch, as Claude Code does for rarely used tools, so that the first request
// stays small however many tools a session has. A loaded tool is offered from the next
// request on. A call to a deferred tool that was never loaded (the model read its schema
// in an earlier ToolSearch result, before a resume) loads it and is checked as any other.

// AddDeferred registers t as deferred.
func (r *Registry) AddDeferred(t Tool) error {
	if err := r.Add(t); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.deferred == nil {
		r.deferred = map[string]bool{}
	}
	r.deferred[t.Spec().Name] = true
	return nil
}

// DeferredNames lists the deferred tools, loaded or not, sorted.
func (r *Registry) DeferredNames() []string {
	r.set.RLock()
	defer r.set.RUnlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for n := range r.deferred {
		if _, ok := r.tools[n]; ok {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Load offers the named deferred tools from the next request on; it reports the names
// that were deferred and are now loaded.
func (r *Registry) Load(names ...string) []string {
	r.set.RLock()
	defer r.set.RUnlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, n := range names {
		if hidden, ok := r.deferred[n]; ok {
			if _, exists := r.tools[n]; exists {
				if hidden {
					r.loaded = append(r.loaded, n)
				}
				r.deferred[n] = false
				out = append(out, n)
			}
		}
	}
	return out
}

// Deferred reports whether the tool called name is deferred and, if so, whether it has
// been loaded.
func (r *Registry) Deferred(name string) (deferred, loaded bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	hidden, ok := r.deferred[name]
	return ok, ok && !hidden
}

// hidden reports whether n is deferred and not loaded.
func (r *Registry) hidden(n string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.deferred[n]
}

// ToolSearchName is the tool that loads deferred tools, by Claude Code's name.
const ToolSearchName = "ToolSearch"

// Search is the ToolSearch tool of a registry with deferred tools.
type Search struct{ reg *Registry }

// NewSearch returns the ToolSearch tool loading reg's deferred tools.
func NewSearch(reg *Registry) *Search { return &Search{reg: reg} }

// Spec lists the deferred tools by name, so the model knows what it may load.
func (s *Search) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name: ToolSearchName,
		Description: "Loads tools whose schemas are not sent up front, so you can call them. Deferred tools: " +
			listNames(s.reg.DeferredNames()) +
			`. query "select:A,B" loads those by name; other words search names and descriptions. Loaded tools are callable from your next step.`,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"max_results":{"type":"number"}},"required":["query"],"additionalProperties":false}`),
	}
}

// maxListed bounds the deferred tools' names in ToolSearch's description, which every
// request carries: a few MCP servers with hundreds of tools must not cost the first
// request what deferring their schemas saved.
const maxListed = 2000

// listNames joins names; past maxListed bytes the tools of each MCP server are counted
// under the server's prefix instead (mcp__github__* (40 tools)), and what still does not
// fit is counted at the end: keyword queries find them.
func listNames(names []string) string {
	if all := strings.Join(names, ", "); len(all) <= maxListed {
		return all
	}
	var groups []string
	count := map[string]int{}
	for _, n := range names {
		key := n
		if rest, ok := strings.CutPrefix(n, "mcp__"); ok {
			if server, _, ok := strings.Cut(rest, "__"); ok {
				key = "mcp__" + server + "__*"
			}
		}
		if count[key] == 0 {
			groups = append(groups, key)
		}
		count[key]++
	}
	var b strings.Builder
	for i, g := range groups {
		item := g
		if count[g] > 1 || strings.HasSuffix(g, "*") {
			item = fmt.Sprintf("%s (%d tools)", g, count[g])
		}
		if b.Len()+len(item) > maxListed {
			fmt.Fprintf(&b, "… and %d more groups; search by keyword", len(groups)-i)
			break
		}
		b.WriteString(item)
		b.WriteString(", ")
	}
	return strings.TrimSuffix(b.String(), ", ")
}

// ReadOnly: loading a schema changes nothing the user owns.
func (s *Search) ReadOnly() bool { return true }

// Describe implements Describer: loading a schema changes only what the session offers.
func (s *Search) Describe(input json.RawMessage) ([]Action, error) { return DescribeSession(input) }

// Run loads the tools the query names or matches best and returns their definitions.
func (s *Search) Run(_ context.Context, x *Exec) (Result, error) {
	var in struct {
		Query      string  `json:"query"`
		MaxResults float64 `json:"max_results"`
	}
	if err := json.Unmarshal(x.Input, &in); err != nil {
		return Result{}, fmt.Errorf("bad input: %w", err)
	}
	limit := int(in.MaxResults)
	if limit <= 0 {
		limit = 5
	}
	names := s.reg.DeferredNames()
	var picked, notes []string
	if sel, ok := strings.CutPrefix(strings.TrimSpace(in.Query), "select:"); ok {
		// Forgiving, as a model's select often is: a name already offered is said to be
		// there, a name in the wrong case is taken, and an unknown name is named without
		// failing the others.
		var unknown, there []string
		for _, n := range strings.Split(sel, ",") {
			n = strings.TrimSpace(n)
			if i := slices.IndexFunc(names, func(d string) bool { return strings.EqualFold(d, n) }); i >= 0 && !slices.Contains(names, n) {
				n = names[i]
			}
			switch {
			case n == "" || slices.Contains(picked, n) || slices.Contains(there, n):
			case slices.Contains(names, n):
				if deferred, loaded := s.reg.Deferred(n); deferred && loaded {
					there = append(there, n)
				} else {
					picked = append(picked, n)
				}
			default:
				if _, ok := s.reg.Get(n); ok {
					there = append(there, n)
				} else {
					unknown = append(unknown, n)
				}
			}
		}
		if len(there) > 0 {
			notes = append(notes, fmt.Sprintf("%s %s already available: call %s directly.", strings.Join(there, ", "), plural(len(there), "is", "are"), plural(len(there), "it", "them")))
		}
		if len(unknown) > 0 {
			notes = append(notes, fmt.Sprintf("No tool named %s. The deferred tools are: %s.", strings.Join(unknown, ", "), strings.Join(names, ", ")))
		}
		if len(picked) == 0 {
			if len(unknown) == 0 && len(there) > 0 {
				return Text(strings.Join(notes, "\n")), nil
			}
			if len(notes) > 0 {
				return Errorf("%s", strings.Join(notes, "\n")), nil
			}
		}
	} else {
		picked = s.rank(names, in.Query, limit)
	}
	if len(picked) == 0 {
		return Errorf("No deferred tool matches %q. The deferred tools are: %s; load them with select:NAME.", in.Query, strings.Join(names, ", ")), nil
	}
	s.reg.Load(picked...)
	var b strings.Builder
	fmt.Fprintf(&b, "Loaded %s; you can call them now.\n", strings.Join(picked, ", "))
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	for _, n := range picked {
		t, _ := s.reg.Get(n)
		sp := t.Spec()
		def, _ := json.Marshal(struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}{sp.Name, sp.Description, sp.InputSchema})
		b.WriteString("<function>")
		b.Write(def)
		b.WriteString("</function>\n")
	}
	return Text(b.String()), nil
}

// rank orders names by how many of the query's words their name and description hold
// (a word in the name counts double); names matching nothing are left out.
func (s *Search) rank(names []string, query string, limit int) []string {
	words := strings.Fields(strings.ToLower(query))
	type scored struct {
		name  string
		score int
	}
	var hits []scored
	for _, n := range names {
		t, _ := s.reg.Get(n)
		name, desc := strings.ToLower(n), strings.ToLower(t.Spec().Description)
		score := 0
		for _, w := range words {
			w = strings.TrimPrefix(w, "+")
			if strings.Contains(name, w) {
				score += 2
			}
			if strings.Contains(desc, w) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, scored{n, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	var out []string
	for i := 0; i < len(hits) && i < limit; i++ {
		out = append(out, hits[i].name)
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
