package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/tool"
)

// fake is a tool whose behaviour the test supplies.
type fake struct {
	name     string
	readOnly bool
	run      func(ctx context.Context, input json.RawMessage) (tool.Result, error)
	calls    int
}

func (f *fake) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: f.name, Description: "the " + f.name + " tool", InputSchema: json.RawMessage(`{"type":"object"}`)}
}
func (f *fake) ReadOnly() bool { return f.readOnly }
func (f *fake) Run(ctx context.Context, x *tool.Exec) (tool.Result, error) {
	input := x.Input
	f.calls++
	if f.run == nil {
		return tool.Text("ran " + f.name + " with " + string(input)), nil
	}
	return f.run(ctx, input)
}

func named(name string) *fake { return &fake{name: name} }

func call(name, input string) tool.Call {
	return tool.Call{ID: "toolu_1", Name: name, Input: json.RawMessage(input)}
}

func TestResultHelpers(t *testing.T) {
	if r := tool.Text("ok"); r.IsError || r.Text() != "ok" || r.NeedsInput != "" {
		t.Errorf("Text(ok) = %+v", r)
	}
	if r := tool.Errorf("bad %s %d", "thing", 3); !r.IsError || r.Text() != "bad thing 3" {
		t.Errorf("Errorf = %+v", r)
	}
	if r := tool.Interrupted(); !r.IsError || !strings.HasPrefix(r.Text(), "Interrupted: ") {
		t.Errorf("Interrupted() = %+v", r)
	}
	r := tool.Result{Content: []llm.Block{
		llm.TextBlock("a"),
		{Type: llm.BlockImage, Source: &llm.ImageSource{Type: "base64", MediaType: "image/png", Data: "AAAA"}},
		llm.TextBlock("b"),
	}}
	if r.Text() != "ab" {
		t.Errorf("Text() = %q, want the text blocks concatenated", r.Text())
	}
	if (tool.Result{}).Text() != "" {
		t.Errorf("empty Text() = %q", (tool.Result{}).Text())
	}
}

func TestResultBlock(t *testing.T) {
	img := llm.Block{Type: llm.BlockImage, Source: &llm.ImageSource{Type: "base64", MediaType: "image/png", Data: "AAAA"}}
	noOutput := []llm.Block{llm.TextBlock("(no output)")}
	tests := []struct {
		name string
		r    tool.Result
		want []llm.Block
	}{
		{"text", tool.Text("hello"), []llm.Block{llm.TextBlock("hello")}},
		{"no content", tool.Result{}, noOutput},
		{"only empty text", tool.Result{Content: []llm.Block{llm.TextBlock(""), llm.TextBlock("")}}, noOutput},
		{"empty text dropped, others kept in order", tool.Result{Content: []llm.Block{llm.TextBlock(""), llm.TextBlock("a"), img, llm.TextBlock(""), llm.TextBlock("b")}},
			[]llm.Block{llm.TextBlock("a"), img, llm.TextBlock("b")}},
		{"image only", tool.Result{Content: []llm.Block{img}}, []llm.Block{img}},
		{"error without text", tool.Result{IsError: true}, noOutput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.r.Block("toolu_9")
			want := llm.Block{Type: llm.BlockToolResult, ToolUseID: "toolu_9", Content: tt.want, IsError: tt.r.IsError}
			if !reflect.DeepEqual(b, want) {
				t.Errorf("Block =\n  %+v\nwant\n  %+v", b, want)
			}
		})
	}
	if b := tool.Errorf("boom").Block("x"); !b.IsError || b.ResultText() != "boom" {
		t.Errorf("an error result's block = %+v, want is_error with the text", b)
	}
	// The block answers its call in a conversation the API accepts.
	msgs := []llm.Message{
		llm.UserText("go"),
		{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolUseBlock("toolu_9", "X", json.RawMessage(`{}`))}},
		{Role: llm.RoleUser, Content: []llm.Block{tool.Result{}.Block("toolu_9")}},
	}
	if err := llm.ValidateConversation(msgs); err != nil {
		t.Errorf("a result block does not answer its call: %v", err)
	}
}

func TestResultBlockDoesNotModifyResult(t *testing.T) {
	r := tool.Result{Content: []llm.Block{llm.TextBlock(""), llm.TextBlock("a")}}
	r.Block("x")
	if len(r.Content) != 2 || r.Content[0].Text != "" || r.Content[1].Text != "a" {
		t.Errorf("Block changed the result: %+v", r.Content)
	}
}

func TestRegistryAddAndGet(t *testing.T) {
	bash := named("Bash")
	r := tool.NewRegistry(named("Read"), bash)
	if got, ok := r.Get("Bash"); !ok || got != bash {
		t.Errorf("Get(Bash) = %v, %v", got, ok)
	}
	if got, ok := r.Get("Nope"); ok || got != nil {
		t.Errorf("Get(Nope) = %v, %v; want nothing", got, ok)
	}

	err := r.Add(named("Bash"))
	if err == nil || !strings.Contains(err.Error(), `"Bash" is registered twice`) {
		t.Errorf("Add(duplicate) = %v", err)
	}
	if got, _ := r.Get("Bash"); got != bash {
		t.Errorf("a failed Add replaced the tool")
	}
	if err := r.Add(named("")); err == nil || !strings.Contains(err.Error(), "needs a name") {
		t.Errorf("Add(no name) = %v", err)
	}
	if got, want := r.Names(), []string{"Read", "Bash"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after failed Adds, Names() = %v, want %v", got, want)
	}
	if err := r.Add(named("Write")); err != nil {
		t.Errorf("Add(Write) = %v", err)
	}
}

func TestNewRegistryPanicsOnDuplicate(t *testing.T) {
	defer func() {
		p := recover()
		if p == nil || !strings.Contains(fmt.Sprint(p), `"Edit" is registered twice`) {
			t.Errorf("recover() = %v, want the duplicate named", p)
		}
	}()
	tool.NewRegistry(named("Edit"), named("Read"), named("Edit"))
}

func TestNewRegistryPanicsOnEmptyName(t *testing.T) {
	defer func() {
		if p := recover(); p == nil {
			t.Errorf("NewRegistry accepted a tool with no name")
		}
	}()
	tool.NewRegistry(named(""))
}

func TestRegistryOrderAndRemove(t *testing.T) {
	r := tool.NewRegistry(named("Zeta"), named("Alpha"), named("Mid"), named("Beta"))
	specNames := func() []string {
		var out []string
		for _, s := range r.Specs() {
			out = append(out, s.Name)
		}
		return out
	}
	want := []string{"Zeta", "Alpha", "Mid", "Beta"}
	if !reflect.DeepEqual(r.Names(), want) || !reflect.DeepEqual(specNames(), want) {
		t.Fatalf("Names() = %v, Specs() = %v; want registration order %v", r.Names(), specNames(), want)
	}
	if s := r.Specs()[1]; s.Description != "the Alpha tool" || string(s.InputSchema) != `{"type":"object"}` {
		t.Errorf("Specs()[1] = %+v, want the tool's own spec", s)
	}

	r.Remove("Mid")
	r.Remove("Nope") // unknown: nothing happens
	want = []string{"Zeta", "Alpha", "Beta"}
	if !reflect.DeepEqual(r.Names(), want) || !reflect.DeepEqual(specNames(), want) {
		t.Errorf("after Remove, Names() = %v, Specs() = %v; want %v", r.Names(), specNames(), want)
	}
	if _, ok := r.Get("Mid"); ok {
		t.Errorf("Get finds a removed tool")
	}
	if res := r.Run(context.Background(), call("Mid", `{}`)); !res.IsError || !strings.Contains(res.Text(), "Unknown tool") {
		t.Errorf("a removed tool still runs: %+v", res)
	}

	// A removed name can be registered again; it goes to the end.
	if err := r.Add(named("Mid")); err != nil {
		t.Fatal(err)
	}
	r.Remove("Zeta")
	want = []string{"Alpha", "Beta", "Mid"}
	if !reflect.DeepEqual(r.Names(), want) || !reflect.DeepEqual(specNames(), want) {
		t.Errorf("Names() = %v, Specs() = %v; want %v", r.Names(), specNames(), want)
	}

	// Names returns a copy.
	names := r.Names()
	names[0] = "Hacked"
	if r.Names()[0] != "Alpha" {
		t.Errorf("changing the result of Names() changed the registry")
	}

	empty := tool.NewRegistry()
	if len(empty.Names()) != 0 || len(empty.Specs()) != 0 {
		t.Errorf("an empty registry lists %v", empty.Names())
	}
}

func TestRunDispatchesByName(t *testing.T) {
	read, bash := named("Read"), &fake{name: "Bash", run: func(_ context.Context, in json.RawMessage) (tool.Result, error) {
		return tool.Result{Content: []llm.Block{llm.TextBlock("out: " + string(in))}, NeedsInput: "which branch?"}, nil
	}}
	r := tool.NewRegistry(read, bash)
	res := r.Run(context.Background(), call("Bash", `{"command": "ls"}`))
	if res.IsError || res.Text() != `out: {"command": "ls"}` || res.NeedsInput != "which branch?" {
		t.Errorf("Run(Bash) = %+v", res)
	}
	if read.calls != 0 || bash.calls != 1 {
		t.Errorf("calls: Read %d, Bash %d", read.calls, bash.calls)
	}
	// A result the tool itself marks as an error stays one, text unchanged.
	bash.run = func(context.Context, json.RawMessage) (tool.Result, error) { return tool.Errorf("exit status 2"), nil }
	if res := r.Run(context.Background(), call("Bash", `{}`)); !res.IsError || res.Text() != "exit status 2" {
		t.Errorf("Run(Bash) = %+v", res)
	}
}

func TestRunUnknownToolListsToolsSorted(t *testing.T) {
	r := tool.NewRegistry(named("Zeta"), named("Alpha"), named("Bash"))
	res := r.Run(context.Background(), call("Nope", `{}`))
	if !res.IsError {
		t.Errorf("unknown tool: not an error")
	}
	if want := `Unknown tool "Nope". The tools that exist are: Alpha, Bash, Zeta.`; res.Text() != want {
		t.Errorf("unknown tool: %q\nwant %q", res.Text(), want)
	}
	if got := r.Names(); !reflect.DeepEqual(got, []string{"Zeta", "Alpha", "Bash"}) {
		t.Errorf("listing the tools reordered the registry: %v", got)
	}
	// Names are matched exactly.
	if res := r.Run(context.Background(), call("bash", `{}`)); !res.IsError || !strings.Contains(res.Text(), `Unknown tool "bash"`) {
		t.Errorf("Run(bash) = %+v", res)
	}
}

func TestRunRejectsNonObjectInput(t *testing.T) {
	for _, in := range []string{``, `null`, `[]`, `[{"a":1}]`, `"ls"`, `42`, `true`, `{"command": "ls"`, `{"a":1} {"b":2}`, `not json`} {
		t.Run(in, func(t *testing.T) {
			f := named("Bash")
			r := tool.NewRegistry(f)
			res := r.Run(context.Background(), call("Bash", in))
			if !res.IsError || !strings.HasPrefix(res.Text(), "Invalid input for Bash: the input must be a JSON object, got "+in) {
				t.Errorf("Run(%q) = %+v", in, res)
			}
			if f.calls != 0 {
				t.Errorf("the tool ran on input %q", in)
			}
		})
	}
	for _, in := range []string{`{}`, ` {"command": "ls"} `, `{"nested": {"a": [1, 2]}}`} {
		f := named("Bash")
		if res := tool.NewRegistry(f).Run(context.Background(), call("Bash", in)); res.IsError || f.calls != 1 {
			t.Errorf("Run(%q) = %+v (%d calls), want the tool to run", in, res, f.calls)
		}
	}
}

// The bad input is quoted, clipped, and stays valid UTF-8 even when the clip falls inside a
// multi-byte character: the text goes back to the model as JSON.
func TestRunClipsLongInvalidInput(t *testing.T) {
	r := tool.NewRegistry(named("Write"))
	for _, in := range []string{
		`"` + strings.Repeat("x", 5000) + `"`,
		`"` + strings.Repeat("é", 2000) + `"`,
		`["` + strings.Repeat("日本語", 1000) + `"]`,
		`"` + strings.Repeat("🎉", 1000) + `"`,
		`"ab` + strings.Repeat("🎉", 1000) + `"`,
	} {
		res := r.Run(context.Background(), call("Write", in))
		txt := res.Text()
		if !res.IsError || len(txt) > 400 {
			t.Errorf("Run(%d-byte input) = %d-byte text, want a clipped error", len(in), len(txt))
		}
		if !strings.HasSuffix(txt, "….") {
			t.Errorf("clipped input should end with an ellipsis: %q", tail(txt))
		}
		if !utf8.ValidString(txt) {
			t.Errorf("the error text is not valid UTF-8: %q", tail(txt))
		}
	}
}

func TestRunRecoversFromPanics(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  string
	}{
		{"string", "index out of range [3]", "index out of range [3]"},
		{"error", errors.New("nil map write"), "nil map write"},
		{"number", 42, "42"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tool.NewRegistry(&fake{name: "Crash", run: func(context.Context, json.RawMessage) (tool.Result, error) {
				panic(tt.value)
			}})
			res := r.Run(context.Background(), call("Crash", `{}`))
			if !res.IsError {
				t.Errorf("a panic gave a success result")
			}
			txt := res.Text()
			if !strings.HasPrefix(txt, "Tool Crash crashed: "+tt.want+".") {
				t.Errorf("panic result = %q", txt)
			}
			if len(txt) > 3000 || !utf8.ValidString(txt) {
				t.Errorf("panic result is %d bytes (valid UTF-8: %v); the stack should be clipped", len(txt), utf8.ValidString(txt))
			}
		})
	}
	// A panic deep in the tool: the stack in the result is clipped.
	var deep func(n int)
	deep = func(n int) {
		if n == 0 {
			panic("deep")
		}
		deep(n - 1)
	}
	r0 := tool.NewRegistry(&fake{name: "Deep", run: func(context.Context, json.RawMessage) (tool.Result, error) {
		deep(200)
		return tool.Result{}, nil
	}})
	if txt := r0.Run(context.Background(), call("Deep", `{}`)).Text(); !strings.HasPrefix(txt, "Tool Deep crashed: deep.") ||
		len(txt) > 3000 || !strings.HasSuffix(txt, "…") || !utf8.ValidString(txt) {
		t.Errorf("deep panic result is %d bytes, ends %q; want the stack clipped", len(txt), tail(txt))
	}

	// The registry keeps working after a panic.
	r := tool.NewRegistry(&fake{name: "Crash", run: func(context.Context, json.RawMessage) (tool.Result, error) { panic("x") }}, named("Ok"))
	r.Run(context.Background(), call("Crash", `{}`))
	if res := r.Run(context.Background(), call("Ok", `{}`)); res.IsError {
		t.Errorf("after a panic: %+v", res)
	}
}

func TestRunReturnedError(t *testing.T) {
	img := llm.Block{Type: llm.BlockImage, Source: &llm.ImageSource{Type: "base64", MediaType: "image/png", Data: "AAAA"}}
	tests := []struct {
		name string
		res  tool.Result
		err  error
		want string
	}{
		{"error only", tool.Result{}, errors.New("exit status 1"), "exit status 1"},
		{"text kept before the error", tool.Text("partial output"), errors.New("exit status 1"), "partial output\nexit status 1"},
		{"several text blocks kept", tool.Result{Content: []llm.Block{llm.TextBlock("a"), img, llm.TextBlock("b")}}, errors.New("boom"), "ab\nboom"},
		{"wrapped error", tool.Result{}, fmt.Errorf("read foo: %w", errors.New("permission denied")), "read foo: permission denied"},
		// A context error that is not the call's own ctx is an ordinary failure.
		{"unrelated context error", tool.Result{}, context.Canceled, "context canceled"},
		{"unrelated deadline", tool.Result{}, fmt.Errorf("fetch: %w", context.DeadlineExceeded), "fetch: context deadline exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tool.NewRegistry(&fake{name: "T", run: func(context.Context, json.RawMessage) (tool.Result, error) { return tt.res, tt.err }})
			res := r.Run(context.Background(), call("T", `{}`))
			if !res.IsError {
				t.Errorf("a returned error gave a success result: %+v", res)
			}
			want := []llm.Block{llm.TextBlock(tt.want)}
			if !reflect.DeepEqual(res.Content, want) {
				t.Errorf("content = %+v, want %+v", res.Content, want)
			}
		})
	}
}

func TestRunCancelledBeforeTheCall(t *testing.T) {
	f := named("Bash")
	r := tool.NewRegistry(f)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := r.Run(ctx, call("Bash", `{}`))
	if !reflect.DeepEqual(res, tool.Interrupted()) {
		t.Errorf("Run on a cancelled ctx = %+v, want Interrupted()", res)
	}
	if f.calls != 0 {
		t.Errorf("the tool ran on a cancelled ctx")
	}
	// Unknown names and bad input are still reported as such.
	if res := r.Run(ctx, call("Nope", `{}`)); !strings.Contains(res.Text(), "Unknown tool") {
		t.Errorf("unknown tool on a cancelled ctx: %q", res.Text())
	}
}

func TestRunCancelledDuringTheCall(t *testing.T) {
	for _, tt := range []struct {
		name string
		ret  func(ctx context.Context) error
	}{
		{"ctx.Err()", func(ctx context.Context) error { return ctx.Err() }},
		{"wrapped ctx.Err()", func(ctx context.Context) error { return fmt.Errorf("bash: %w", ctx.Err()) }},
		{"context.Cause", func(ctx context.Context) error { return context.Cause(ctx) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := tool.NewRegistry(&fake{name: "Slow", run: func(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
				cancel()
				<-ctx.Done()
				return tool.Text("half done"), tt.ret(ctx)
			}})
			if res := r.Run(ctx, call("Slow", `{}`)); !reflect.DeepEqual(res, tool.Interrupted()) {
				t.Errorf("Run = %+v, want Interrupted()", res)
			}
		})
	}

	// Past the deadline too.
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	r := tool.NewRegistry(named("T"))
	if res := r.Run(ctx, call("T", `{}`)); !reflect.DeepEqual(res, tool.Interrupted()) {
		t.Errorf("Run past the deadline = %+v, want Interrupted()", res)
	}

	// A tool that finishes despite the cancellation keeps its result.
	ctx2, cancel2 := context.WithCancel(context.Background())
	r = tool.NewRegistry(&fake{name: "Quick", run: func(context.Context, json.RawMessage) (tool.Result, error) {
		cancel2()
		return tool.Text("finished"), nil
	}})
	if res := r.Run(ctx2, call("Quick", `{}`)); res.IsError || res.Text() != "finished" {
		t.Errorf("a call that finished = %+v, want its own result", res)
	}
	// One that fails for another reason while cancelled reports that reason.
	ctx3, cancel3 := context.WithCancel(context.Background())
	r = tool.NewRegistry(&fake{name: "Fail", run: func(context.Context, json.RawMessage) (tool.Result, error) {
		cancel3()
		return tool.Result{}, errors.New("disk full")
	}})
	if res := r.Run(ctx3, call("Fail", `{}`)); !res.IsError || res.Text() != "disk full" {
		t.Errorf("a call that failed on its own = %+v", res)
	}
}

func TestReadOnlyIsTheToolsOwn(t *testing.T) {
	r := tool.NewRegistry(&fake{name: "Read", readOnly: true}, &fake{name: "Bash"})
	rd, _ := r.Get("Read")
	bs, _ := r.Get("Bash")
	if !rd.ReadOnly() || bs.ReadOnly() {
		t.Errorf("ReadOnly: Read %v, Bash %v", rd.ReadOnly(), bs.ReadOnly())
	}
}

// tail is the end of s, for failure messages.
func tail(s string) string {
	if len(s) > 24 {
		return "..." + s[len(s)-24:]
	}
	return s
}

func TestFailureKindRecognizesTheRegistrysRefusals(t *testing.T) {
	r := tool.NewRegistry(failingTool{})
	ctx := context.Background()
	cases := []struct {
		call tool.Call
		want string
	}{
		{tool.Call{ID: "1", Name: "nope", Input: json.RawMessage(`{}`)}, tool.FailureUnknownTool},
		{tool.Call{ID: "2", Name: "fail", Input: json.RawMessage(`[1]`)}, tool.FailureInvalidInput},
		{tool.Call{ID: "3", Name: "fail", Input: json.RawMessage(`{"n": "x"}`)}, tool.FailureInvalidInput},
		{tool.Call{ID: "4", Name: "fail", Input: json.RawMessage(`{"n": 1}`)}, ""}, // the tool's own failure
		{tool.Call{ID: "5", Name: "fail", Input: json.RawMessage(`{"n": 1}`)}, tool.FailureRepeated},
	}
	for _, c := range cases {
		res := r.Run(ctx, c.call)
		if got := tool.FailureKind(res.Text()); got != c.want {
			t.Errorf("call %s: FailureKind = %q, want %q (text %q)", c.call.ID, got, c.want, res.Text())
		}
	}
}

// failingTool is a tool that always fails on its own.
type failingTool struct{}

func (failingTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: "fail", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)}
}

func (failingTool) Run(context.Context, *tool.Exec) (tool.Result, error) {
	return tool.Errorf("it failed"), nil
}

func (failingTool) ReadOnly() bool { return true }

// A tool's output reaches the model with its control characters escaped: a NUL, a
// terminal's escape sequences; newlines, tabs and carriage returns are kept.
func TestResultControlsAreEscapedForTheModel(t *testing.T) {
	own := []llm.Block{llm.TextBlock("a\x00b \x1b]52;c;aGk=\x07 \x1b[2J\r\n\tend")}
	f := &fake{name: "Out", run: func(context.Context, json.RawMessage) (tool.Result, error) {
		return tool.Result{Content: own}, nil
	}}
	res := tool.NewRegistry(f).Run(context.Background(), call("Out", `{}`))
	if got, want := res.Text(), `a\x00b \x1b]52;c;aGk=\x07 \x1b[2J`+"\r\n\tend"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	if own[0].Text != "a\x00b \x1b]52;c;aGk=\x07 \x1b[2J\r\n\tend" {
		t.Fatal("the tool's own result was changed")
	}
}
