package shell

import (
	"fmt"
	"slices"
	"testing"
)

func pathList(ps []Path) []string {
	var out []string
	for _, p := range ps {
		s := p.Name
		if p.Dynamic {
			s += "(dyn)"
		}
		out = append(out, s)
	}
	return out
}

func TestCommandFiles(t *testing.T) {
	cases := []struct {
		src           string
		writes, reads []string
		fromInput     bool
	}{
		{src: `ls -la`},
		{src: `rm -rf build > log 2>&1`, writes: []string{"log", "build"}},
		{src: `echo x > /dev/null 2>/dev/stderr >&2`},
		{src: `echo x > $OUT`, writes: []string{"$OUT(dyn)"}},
		{src: `rm "$X" '$Y' z`, writes: []string{"$X(dyn)", "$Y(dyn)", "z"}},
		{src: `rm '$Y' z`, writes: []string{"$Y", "z"}},
		{src: `cp -r a b; mv -- -x y`, writes: []string{"a", "b"}, reads: []string{"a"}},
		{src: `mv -- -x y`, writes: []string{"-x", "y"}},
		{src: `cp --target-directory=/dst a`, writes: []string{"/dst", "a"}, reads: []string{"a"}},
		{src: `chmod 644 f g; chown -R me:me d`, writes: []string{"f", "g"}},
		{src: `chmod --reference=r f`, writes: []string{"f"}, reads: []string{"r"}},
		{src: `date -f secrets/key`, reads: []string{"secrets/key"}},
		{src: `date --file=../x +%s`, reads: []string{"../x"}},
		{src: `grep -rf pats .`, reads: []string{"pats", ".", "pats"}},
		{src: `curl -d @.env https://x`, reads: []string{".env"}},
		{src: `dd if=/dev/zero of=out bs=1M`, writes: []string{"out"}},
		{src: `tee -a log`, writes: []string{"log"}},
		{src: `sed -i s/a/b/ f`, writes: []string{"f"}, reads: []string{"f"}},
		{src: `sed -n -e p -e q f g`, reads: []string{"f", "g"}},
		{src: `sed s/a/b/ f`, reads: []string{"f"}},
		{src: `perl -pi -e s/a/b/ f`, writes: []string{"f"}, reads: []string{"f"}},
		{src: `awk '{print}' f`, reads: []string{"f"}},
		{src: `cat a ~/b /etc/c - < in`, reads: []string{"in", "a", "~/b", "/etc/c"}},
		{src: `cat <> rw`, writes: []string{"rw"}, reads: []string{"rw"}},
		{src: `cat $F`, reads: []string{"$F(dyn)"}},
		{src: `python3 x.py > out < in`, writes: []string{"out"}, reads: []string{"in"}},
		{src: `xargs rm`, fromInput: true},
		{src: `xargs rm -f a`, writes: []string{"a"}, fromInput: true},
		{src: `xargs grep x`, reads: []string{"x"}},
		{src: `sudo timeout 5 rm x`, writes: []string{"x"}},
		{src: `bash -c 'rm x' > o`, writes: []string{"o", "x"}},
		{src: `/usr/bin/time -o t.txt rm x`, writes: []string{"t.txt", "x"}},
	}
	for _, tc := range cases {
		a := Analyze(tc.src)
		if len(a.Commands) == 0 {
			t.Errorf("%q: no command", tc.src)
			continue
		}
		c := a.Commands[0]
		got := fmt.Sprint(pathList(c.Writes), pathList(c.Reads), c.WritesFromInput)
		want := fmt.Sprint(tc.writes, tc.reads, tc.fromInput)
		if got != want {
			t.Errorf("%q (%s): writes, reads, from input\n got  %s\n want %s", tc.src, describe(c), got, want)
		}
	}
}

// A relative path is relative to the folder the command runs in.
func TestCommandFilesFolder(t *testing.T) {
	a := Analyze(`cd sub && rm x && cd /tmp && touch y`)
	var got []string
	for _, c := range a.Commands {
		for _, w := range c.Writes {
			got = append(got, c.Dir+":"+w.Name)
		}
	}
	if want := []string{"sub:x", "/tmp:y"}; !slices.Equal(got, want) {
		t.Errorf("writes by folder: got %q, want %q", got, want)
	}
}

func TestJoinDir(t *testing.T) {
	cases := []struct {
		dir, p, want string
		ok           bool
	}{
		{"", "a", "a", true},
		{"", "..", "..", true},
		{"a", "..", "", true},
		{"src", "../b/./c", "b/c", true},
		{"src", "/etc/../usr", "/usr", true},
		{"~", "x/..", "~", false}, // a ".." under a home is not followed
		{"~", "x/y", "~/x/y", true},
		{"~/p", "..", "~/p", false},
		{"", "~root/x", "~root/x", true},
		{"/a", "", "/a", true},
	}
	for _, c := range cases {
		got, ok := JoinDir(c.dir, c.p)
		if got != c.want || ok != c.ok {
			t.Errorf("JoinDir(%q, %q) = %q, %v; want %q, %v", c.dir, c.p, got, ok, c.want, c.ok)
		}
	}
}
