package session

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ cwd, want string }{
		{"/home/ana/my.app", "-home-ana-my-app"},
		{"/home/ana/my.app/", "-home-ana-my-app"},
		{"/work/main", "-work-main"},
		{"/tmp/a b_c~d", "-tmp-a-b-c-d"},
		{"/home/zoë/проект", "-home-zo--------"}, // one dash per character, as Claude Code does for these,
		{"C:\\Users\\ana", "C--Users-ana"},
	} {
		if got := Slug(tc.cwd); got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.cwd, got, tc.want)
		}
	}
}

func TestSlugLongPathsStayDistinctAndShort(t *testing.T) {
	base := "/" + strings.Repeat("deep/", 60)
	a, b := Slug(base+"one"), Slug(base+"two")
	if a == b {
		t.Fatalf("two long paths share the slug %q", a)
	}
	for _, s := range []string{a, b} {
		if len(s) > 255 {
			t.Errorf("slug of %d bytes is too long for a file name", len(s))
		}
		if !strings.HasPrefix(s, "-deep-deep-") {
			t.Errorf("slug %q lost the readable beginning of the path", s)
		}
	}
}

func TestProjectDir(t *testing.T) {
	got := ProjectDir("/h/.ouro", "/work/main")
	if want := filepath.Join("/h/.ouro", "projects", "-work-main"); got != want {
		t.Errorf("ProjectDir = %q, want %q", got, want)
	}
	if got, want := SessionsDir(got), filepath.Join("/h/.ouro", "projects", "-work-main", "sessions"); got != want {
		t.Errorf("SessionsDir = %q, want %q", got, want)
	}
}

func TestHomeRespectsOuroHome(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OURO_HOME", dir)
	got, err := Home()
	if err != nil {
		t.Fatal(err)
	}
	if got != dir {
		t.Errorf("Home() = %q, want OURO_HOME %q", got, dir)
	}
}

func TestHomeDefaultsToDotOuro(t *testing.T) {
	home := t.TempDir()
	t.Setenv("OURO_HOME", "")
	t.Setenv("HOME", home)
	got, err := Home()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".ouro"); got != want {
		t.Errorf("Home() = %q, want %q", got, want)
	}
}
