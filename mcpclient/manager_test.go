package mcpclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ouroagent/ouro/llm"
	"github.com/ouroagent/ouro/mcpconf"
	"github.com/ouroagent/ouro/tool"
)

var serverBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpsrv")
	if err != nil {
		panic(err)
	}
	serverBin = filepath.Join(dir, "server")
	if out, err := exec.Command("go", "build", "-o", serverBin, "./testdata/server").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func srv(name string, args ...string) mcpconf.Server {
	return mcpconf.Server{Name: name, Type: mcpconf.TypeStdio, Command: serverBin, Args: args, Scope: mcpconf.ScopeUser}
}

func start(t *testing.T, o Options, servers ...mcpconf.Server) *Manager {
	t.Helper()
	if o.LogDir == "" {
		o.LogDir = t.TempDir()
	}
	m := New(servers, o)
	m.Start()
	t.Cleanup(m.Close)
	return m
}

func status(m *Manager, name string) Status {
	for _, s := range m.Status() {
		if s.Name == name {
			return s
		}
	}
	return Status{}
}

func findTool(m *Manager, name string) *Tool {
	for _, t := range m.Tools() {
		if t.Spec().Name == name {
			return t.(*Tool)
		}
	}
	return nil
}

func call(t *testing.T, tl *Tool, input string, onProgress func(tool.Call, tool.Progress)) tool.Result {
	t.Helper()
	res, err := tl.Run(context.Background(), tool.NewExec(tool.Call{Name: tl.Spec().Name, Input: json.RawMessage(input)}, onProgress, nil))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestGoodServer(t *testing.T) {
	m := start(t, Options{}, srv("t"))
	m.Wait(context.Background(), 20*time.Second)
	st := status(m, "t")
	if st.State != StateConnected {
		t.Fatalf("status %+v", st)
	}
	want := []string{"mcp__t__crash", "mcp__t__echo", "mcp__t__grow", "mcp__t__image", "mcp__t__progress", "mcp__t__slow", "mcp__t__survey"}
	if strings.Join(st.Tools, ",") != strings.Join(want, ",") {
		t.Fatalf("tools %v, want %v", st.Tools, want)
	}
	echo := findTool(m, "mcp__t__echo")
	if res := call(t, echo, `{"text":"hi"}`, nil); res.Text() != "echo: hi" || res.IsError {
		t.Fatalf("echo: %+v", res)
	}
	if echo.ReadOnly() {
		t.Fatal("read-only annotation believed without trust")
	}
	img := call(t, findTool(m, "mcp__t__image"), `{}`, nil)
	if len(img.Content) != 2 || img.Content[1].Type != llm.BlockImage || img.Content[1].Source.MediaType != "image/png" {
		t.Fatalf("image: %+v", img.Content)
	}
	var mu sync.Mutex
	var got []string
	res := call(t, findTool(m, "mcp__t__progress"), `{}`, func(_ tool.Call, p tool.Progress) {
		mu.Lock()
		got = append(got, p.Message)
		mu.Unlock()
	})
	mu.Lock()
	defer mu.Unlock()
	if res.Text() != "progress done" || len(got) == 0 || got[0] != "step 1" {
		t.Fatalf("progress: %q %v", res.Text(), got)
	}
	if in := m.Instructions(2048, 8192); !strings.Contains(in, "TEST-INSTRUCTIONS-MARKER") || !strings.Contains(in, "## t") {
		t.Fatalf("instructions: %q", in)
	}
	if in := m.Instructions(10, 8192); strings.Contains(in, "TEST-INSTRUCTIONS-MARKER") {
		t.Fatalf("instructions not cut: %q", in)
	}
}

func TestTrustedReadOnly(t *testing.T) {
	m := start(t, Options{Trusted: func(string) bool { return true }}, srv("t"))
	m.Wait(context.Background(), 20*time.Second)
	if e := findTool(m, "mcp__t__echo"); e == nil || !e.ReadOnly() {
		t.Fatal("a trusted server's read-only tool is not read-only")
	}
	if g := findTool(m, "mcp__t__grow"); g.ReadOnly() {
		t.Fatal("a tool without the annotation is read-only")
	}
}

func TestListChanged(t *testing.T) {
	m := start(t, Options{}, srv("t"))
	m.Wait(context.Background(), 20*time.Second)
	gen := m.Gen()
	call(t, findTool(m, "mcp__t__grow"), `{}`, nil)
	deadline := time.Now().Add(10 * time.Second)
	for findTool(m, "mcp__t__grown") == nil {
		if time.Now().After(deadline) {
			t.Fatal("the new tool never showed up after list_changed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if m.Gen() == gen {
		t.Fatal("generation did not move")
	}
	if res := call(t, findTool(m, "mcp__t__grown"), `{}`, nil); res.Text() != "grown works" {
		t.Fatal(res.Text())
	}
}

func TestBadServers(t *testing.T) {
	begin := time.Now()
	m := start(t, Options{StartTimeout: 2 * time.Second},
		srv("hang", "hang"), srv("garbage", "garbage"), srv("exit", "exit"), srv("bad", "badschema"),
		mcpconf.Server{Name: "missing", Type: mcpconf.TypeStdio, Command: "/no/such/ouro-server"},
		mcpconf.Server{Name: "unapproved", State: mcpconf.StateNeedsApproval, Reason: "not approved"})
	if time.Since(begin) > time.Second {
		t.Fatal("Start blocked")
	}
	m.Wait(context.Background(), 20*time.Second)
	for name, want := range map[string]string{
		"hang": "within 2s", "garbage": "", "exit": "closed the connection", "missing": "cannot start",
	} {
		st := status(m, name)
		if st.State != StateFailed || !strings.Contains(st.Error, want) {
			t.Errorf("%s: %+v, want failed with %q", name, st, want)
		}
	}
	if st := status(m, "unapproved"); st.State != mcpconf.StateNeedsApproval {
		t.Errorf("unapproved: %+v", st)
	}
	st := status(m, "bad")
	if st.State != StateConnected {
		t.Fatalf("bad: %+v", st)
	}
	var schemaErr []string
	for _, tl := range m.Tools() {
		if x := tl.(*Tool); x.SchemaErr != nil {
			schemaErr = append(schemaErr, x.Spec().Name)
		}
	}
	if strings.Join(schemaErr, ",") != "mcp__bad__notobject" {
		t.Fatalf("schema errors on %v", schemaErr)
	}
	if st := status(m, "exit"); st.Log == "" {
		t.Fatal("no log")
	} else if data, _ := os.ReadFile(st.Log); !strings.Contains(string(data), "exiting at once") {
		t.Fatalf("log %q", data)
	}
}

func TestCrashMidCall(t *testing.T) {
	m := start(t, Options{}, srv("t"))
	m.Wait(context.Background(), 20*time.Second)
	res := call(t, findTool(m, "mcp__t__crash"), `{}`, nil)
	if !res.IsError || !strings.Contains(res.Text(), "stopped during the call") {
		t.Fatalf("crash: %+v", res)
	}
	deadline := time.Now().Add(5 * time.Second)
	for status(m, "t").State != StateFailed {
		if time.Now().After(deadline) {
			t.Fatalf("status after crash: %+v", status(m, "t"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(m.Tools()) != 0 {
		t.Fatal("a dead server's tools are still offered")
	}
}

func TestToolTimeout(t *testing.T) {
	m := start(t, Options{ToolTimeout: 300 * time.Millisecond}, srv("t"))
	m.Wait(context.Background(), 20*time.Second)
	res := call(t, findTool(m, "mcp__t__slow"), `{"seconds":5}`, nil)
	if !res.IsError || !strings.Contains(res.Text(), "MCP_TOOL_TIMEOUT") {
		t.Fatalf("%+v", res)
	}
}

func TestCloseKillsServers(t *testing.T) {
	dir := t.TempDir()
	var pids []int
	var servers []mcpconf.Server
	for _, mode := range []string{"good", "hang"} {
		s := srv(mode, mode)
		s.Env = map[string]string{"MCP_TEST_PIDFILE": filepath.Join(dir, mode)}
		servers = append(servers, s)
	}
	m := New(servers, Options{LogDir: t.TempDir(), StartTimeout: time.Minute})
	m.Start()
	time.Sleep(500 * time.Millisecond) // the hanging one is still "starting"
	for _, mode := range []string{"good", "hang"} {
		data, err := os.ReadFile(filepath.Join(dir, mode))
		if err != nil {
			t.Fatal(err)
		}
		pid, _ := strconv.Atoi(string(data))
		pids = append(pids, pid)
	}
	begin := time.Now()
	m.Close()
	if d := time.Since(begin); d > 5*time.Second {
		t.Fatalf("Close took %s", d)
	}
	for _, pid := range pids {
		if processAlive(pid) {
			t.Errorf("server %d still runs after Close", pid)
		}
	}
}

func TestSlowStartDoesNotBlockWait(t *testing.T) {
	s := srv("slow")
	s.Env = map[string]string{"MCP_TEST_DELAY": "3s"}
	m := start(t, Options{}, s)
	begin := time.Now()
	m.Wait(context.Background(), 200*time.Millisecond)
	if d := time.Since(begin); d > 2*time.Second {
		t.Fatalf("Wait took %s", d)
	}
	if st := status(m, "slow"); st.State != StatePending {
		t.Fatalf("%+v", st)
	}
	m.Wait(context.Background(), 20*time.Second)
	if st := status(m, "slow"); st.State != StateConnected {
		t.Fatalf("%+v", st)
	}
}

func TestToolName(t *testing.T) {
	if n := ToolName("my server", "do.it"); n != "mcp__my_server__do_it" {
		t.Fatal(n)
	}
	if n := ToolName(strings.Repeat("s", 40), strings.Repeat("t", 40)); len(n) != MaxToolName {
		t.Fatal(len(n))
	}
}

// remote serves an SDK server with one tool over streamable HTTP or legacy SSE; the
// tool answers with the Authorization header it was sent.
func remote(t *testing.T, sse bool) string {
	s := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
	var mu sync.Mutex
	var auth string
	s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			defer mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "auth=" + auth}}}, nil
		})
	var h http.Handler
	if sse {
		h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
	} else {
		h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization"); a != "" {
			mu.Lock()
			auth = a
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	// Close waits for every request in flight, and a streamable-HTTP session keeps one
	// open (the SDK server's listening stream, whose handler does not always return when
	// its connection is cut): stop listening and cut the connections without waiting.
	t.Cleanup(func() {
		hs.Listener.Close()
		hs.CloseClientConnections()
	})
	return hs.URL
}

func TestRemoteTransports(t *testing.T) {
	for _, typ := range []string{mcpconf.TypeHTTP, mcpconf.TypeSSE} {
		t.Run(typ, func(t *testing.T) {
			url := remote(t, typ == mcpconf.TypeSSE)
			m := start(t, Options{StartTimeout: 10 * time.Second},
				mcpconf.Server{Name: "r", Type: typ, URL: url, Headers: map[string]string{"Authorization": "Bearer tok"}})
			m.Wait(context.Background(), 20*time.Second)
			if st := status(m, "r"); st.State != StateConnected {
				t.Fatalf("%+v", st)
			}
			if res := call(t, findTool(m, "mcp__r__whoami"), `{}`, nil); res.Text() != "auth=Bearer tok" {
				t.Fatalf("the header did not reach the server: %q", res.Text())
			}
		})
	}
	// A URL nothing answers fails, without hanging.
	m := start(t, Options{StartTimeout: 5 * time.Second}, mcpconf.Server{Name: "gone", Type: mcpconf.TypeHTTP, URL: "http://127.0.0.1:1/mcp"})
	m.Wait(context.Background(), 20*time.Second)
	if st := status(m, "gone"); st.State != StateFailed {
		t.Fatalf("%+v", st)
	}
}
