package permission

import "testing"

// On Windows, path rules match file tools' paths with drive letters and backslashes,
// whichever way the rule writes the drive.
func TestPathRulesWindows(t *testing.T) {
	cwd, home := `C:\w\proj`, `C:\Users\me`
	cases := []struct {
		rule, path string
		want       bool
	}{
		{"Read(//C:/Users/me/secret/**)", `C:\Users\me\secret\k`, true},
		{"Read(//c/Users/me/secret/**)", `C:\Users\me\secret\k`, true},
		{"Read(//C:/Users/me/secret/**)", `c:\Users\me\secret\k`, true},
		{"Read(//C:/Users/me/secret/**)", `D:\Users\me\secret\k`, false},
		{"Read(//**/.env)", `D:\w\api\.env`, true},
		{"Read(~/.ssh/**)", `C:\Users\me\.ssh\id_rsa`, true},
		{"Edit(./src/**)", `C:\w\proj\src\a.go`, true},
		{"Edit(./src/**)", `C:\w\proj\docs\a.md`, false},
		{"Edit(src/**)", `C:\w\proj\src\sub\a.go`, true},
		{"Edit(*.go)", `C:\w\proj\x\a.go`, true},
	}
	for _, c := range cases {
		r := mustRule(t, c.rule)
		if got := r.Match(Subject{Tool: "Read", Path: c.path, CWD: cwd, Home: home}); got != c.want && r.Tool == "Read" {
			t.Errorf("%s on %s = %v, want %v", c.rule, c.path, got, c.want)
		}
		if got := r.Match(Subject{Tool: "Edit", Path: c.path, CWD: cwd, Home: home}); got != c.want && r.Tool == "Edit" {
			t.Errorf("%s on %s = %v, want %v", c.rule, c.path, got, c.want)
		}
	}
}
