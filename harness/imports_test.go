package harness

import (
	"os/exec"
	"strings"
	"testing"
)

// Mechanisms never import the harness: it assembles them. Only the programs and the
// packages that open sessions for them may, and s15's example, which shows the harness
// itself (every other example shows its mechanism without it).
func TestOnlyEntryPointsImportHarness(t *testing.T) {
	const mod = "github.com/ouroagent/ouro/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, mod+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := []string{mod + "cmd", mod + "ui", mod + "eval", mod + "scout/runner", mod + "acp", mod + "examples/s15_harness"}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		if !strings.Contains(" "+imports+" ", " "+mod+"harness ") {
			continue
		}
		ok := false
		for _, a := range allowed {
			if pkg == a || strings.HasPrefix(pkg, a+"/") {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s imports the harness; only %s may (a mechanism returns a mechanism.Part instead)", pkg, strings.Join(allowed, ", "))
		}
	}
}
