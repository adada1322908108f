package permission

import (
	"strings"
	"testing"
)

func TestToolFlagHits(t *testing.T) {
	cases := []struct {
		line string
		want string // flag:kind of each hit, joined by spaces; "" for none
	}{
		{"go test ./...", ""},
		{"go test -count=1 -cover -coverpkg=./... ./...", ""},
		{"go test -exec ./x ./...", "-exec:runs"},
		{"go test --toolexec=x ./...", "-toolexec:runs"},
		{"go test -o out.test -coverprofile c.out", "-o:writes -coverprofile:writes"},
		{"go test -ldflags=-X=main.v=1 ./...", ""},
		{"go build -ldflags '-extldflags -fuse-ld=x' .", "-ldflags:runs"},
		{"go env -w GOFLAGS=-toolexec=x", "env -w:runs"},
		{"go test ./... -- -exec x", ""},
		{"pytest -p no:cacheprovider", ""},
		{"pytest -pevil", "-p:runs"},
		{"python3 -m pytest -p evil tests", "-p:runs"},
		{"npm run build --script-shell=/x", "--script-shell:runs"},
		{"npm config set script-shell /x", "config set:runs"},
		{"cargo test --config x=1", "--config:runs"},
		{"make -C sub test", "-C:reads"},
		{"make test SHELL=/x", "SHELL=:runs"},
		{"git -c user.name=me commit -m x", ""},
		{"git -c core.pager=x log", "-c:runs"},
		{"git config user.email me@x", ""},
		{"git config core.hooksPath /x", "config:runs"},
	}
	for _, c := range cases {
		var got []string
		for _, h := range toolFlagHits(strings.Fields(c.line)) {
			got = append(got, h.flag+":"+[]string{"runs", "writes", "reads"}[h.kind])
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%q: hits %q, want %q", c.line, g, c.want)
		}
	}
}
