package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouroagent/ouro/llm"
)

// seed creates a session with the given ID, prompts and last-write time.
func seed(t *testing.T, project, id string, modified time.Time, prompts ...string) {
	t.Helper()
	w, err := Create(project, Meta{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts {
		if err := w.AppendMessage(llm.UserText(p)); err != nil {
			t.Fatal(err)
		}
		if err := w.AppendMessage(assistant(llm.TextBlock("ok"))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(w.Path(), modified, modified); err != nil {
		t.Fatal(err)
	}
}

const (
	idOld   = "aaaa1111-0000-4000-8000-000000000001"
	idMid   = "aaaa2222-0000-4000-8000-000000000002"
	idNew   = "bbbb3333-0000-4000-8000-000000000003"
	idEmpty = "cccc4444-0000-4000-8000-000000000004"
)

// day is when the seeded sessions were last written, give or take a few hours.
func day() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }

func seedProject(t *testing.T) string {
	t.Helper()
	project := t.TempDir()
	seed(t, project, idMid, day().Add(time.Hour), "second\n  session   prompt", "follow-up")
	seed(t, project, idOld, day(), "first")
	seed(t, project, idNew, day().Add(2*time.Hour), strings.Repeat("long prompt ", 20))
	seed(t, project, idEmpty, day().Add(3*time.Hour)) // opened, never prompted
	// Neither a folder nor another file is a session.
	if err := os.MkdirAll(filepath.Join(SessionsDir(project), idNew, "tool-results"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(SessionsDir(project), "notes.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	return project
}

func TestList(t *testing.T) {
	project := seedProject(t)
	infos, err := List(project)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range infos {
		ids = append(ids, in.ID)
	}
	if got, want := strings.Join(ids, " "), strings.Join([]string{idEmpty, idNew, idMid, idOld}, " "); got != want {
		t.Fatalf("order %s, want newest first %s", got, want)
	}
	mid := infos[2]
	if mid.Summary != "second session prompt" || mid.Messages != 4 || !mid.Modified.Equal(day().Add(time.Hour)) {
		t.Errorf("info %+v", mid)
	}
	if mid.Path != filepath.Join(SessionsDir(project), idMid+".jsonl") {
		t.Errorf("path %s", mid.Path)
	}
	long := infos[1].Summary
	if n := len([]rune(long)); n != summaryLen || !strings.HasSuffix(long, "…") || !strings.HasPrefix(long, "long prompt long") {
		t.Errorf("long summary %q (%d characters), want it clipped to %d", long, n, summaryLen)
	}
	if infos[0].Messages != 0 || infos[0].Summary != "" {
		t.Errorf("empty session %+v", infos[0])
	}
}

func TestListSummarySkipsToolResults(t *testing.T) {
	w := newSession(t, user(result("toolu_x", "output")), llm.UserText("the real prompt"))
	w.Close()
	infos, err := List(filepath.Dir(filepath.Dir(w.Path())))
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].Summary != "the real prompt" {
		t.Errorf("infos %+v", infos)
	}
}

func TestListOfProjectWithoutSessions(t *testing.T) {
	infos, err := List(filepath.Join(t.TempDir(), "never-used"))
	if err != nil || len(infos) != 0 {
		t.Errorf("List = %v, %v; want nothing and no error", infos, err)
	}
}

func TestLatestSkipsSessionsWithoutMessages(t *testing.T) {
	in, err := Latest(seedProject(t))
	if err != nil {
		t.Fatal(err)
	}
	if in.ID != idNew {
		t.Errorf("Latest = %s, want %s", in.ID, idNew)
	}

	project := t.TempDir()
	_, err = Latest(project)
	if !errors.Is(err, ErrNoSessions) || !strings.Contains(err.Error(), SessionsDir(project)) {
		t.Errorf("Latest of an unused project: %v, want ErrNoSessions naming %s", err, SessionsDir(project))
	}
	seed(t, project, idEmpty, day())
	if _, err := Latest(project); !errors.Is(err, ErrNoSessions) || !strings.Contains(err.Error(), "no messages") {
		t.Errorf("Latest with only an empty session: %v", err)
	}
}

func TestFind(t *testing.T) {
	project := seedProject(t)
	for _, tc := range []struct{ query, want string }{
		{idOld, idOld},
		{"bbbb", idNew},
		{"aaaa2", idMid},
	} {
		in, err := Find(project, tc.query)
		if err != nil || in.ID != tc.want {
			t.Errorf("Find(%q) = %s, %v; want %s", tc.query, in.ID, err, tc.want)
		}
	}
}

func TestFindErrors(t *testing.T) {
	project := seedProject(t)
	dir := SessionsDir(project)
	for _, tc := range []struct {
		name, project, query string
		is                   error
		says                 []string
	}{
		{"ambiguous prefix", project, "aaaa", ErrAmbiguous, []string{`"aaaa"`, idOld, idMid}},
		{"unknown ID", project, "ffff", ErrNotFound, []string{`"ffff"`, dir, idNew, idMid, `"second session prompt"`}},
		{"no sessions", filepath.Join(project, "elsewhere"), "aaaa", ErrNoSessions, []string{filepath.Join(project, "elsewhere", "sessions")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Find(tc.project, tc.query)
			if !errors.Is(err, tc.is) {
				t.Fatalf("err = %v, want %v", err, tc.is)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %s", err, s)
				}
			}
		})
	}
	if _, err := Find(project, ""); err == nil {
		t.Error("Find with an empty ID succeeded")
	}
}
