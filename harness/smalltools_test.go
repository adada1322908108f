package harness

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ouroagent/ouro/llm/scripted"
)

// A model with a small context window (a local server's) is offered the six tools of
// SmallModelTools, and told why on the warning stream; --tools default (AllTools) and a
// list of the caller's own keep what they say, and a large window keeps every tool.
func TestSmallWindowGetsTheShortToolList(t *testing.T) {
	offered := func(mod func(*Options)) ([]string, string) {
		var warn bytes.Buffer
		s, p := open(t, t.TempDir(), t.TempDir(), []scripted.Turn{{Text: "ok"}}, func(o *Options) {
			o.UI.Warn = &warn
			mod(o)
		})
		if o := s.Run(context.Background(), "hi"); !o.OK() {
			t.Fatalf("outcome %+v", o)
		}
		var names []string
		for _, tl := range p.Requests()[0].Tools {
			names = append(names, tl.Name)
		}
		slices.Sort(names)
		return names, warn.String()
	}
	short := slices.Sorted(slices.Values(SmallModelTools))
	got, warn := offered(func(o *Options) { o.Model.ContextWindow = 16384 })
	if !slices.Equal(got, short) {
		t.Errorf("16k window: offered %v, want %v", got, short)
	}
	if !strings.Contains(warn, "context window of 16384 tokens: it is offered only Read, Edit, Write, Bash, Glob, Grep") || !strings.Contains(warn, "--tools default") {
		t.Errorf("the warning does not say why or how to get them all: %q", warn)
	}
	if got, _ := offered(func(o *Options) { o.Model.ContextWindow = 16384; o.Access.AllTools = true }); len(got) <= len(short) {
		t.Errorf("--tools default with a 16k window: offered %v", got)
	}
	if got, _ := offered(func(o *Options) { o.Model.ContextWindow = 16384; o.Access.Tools = []string{"Read", "LS"} }); !slices.Equal(got, []string{"LS", "Read"}) {
		t.Errorf("--tools Read,LS with a 16k window: offered %v", got)
	}
	if got, warn := offered(func(o *Options) { o.Model.ContextWindow = 200000 }); len(got) <= len(short) || warn != "" {
		t.Errorf("a 200k window: offered %v, warned %q", got, warn)
	}
}
