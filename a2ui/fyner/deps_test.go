package fyner

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOnlyFynerImportsFyne: a2ui/fyner is the only a2ui package that
// depends on fyne.io (style guide, point 1).
func TestOnlyFynerImportsFyne(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "aimdesk/a2ui/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, " ")
		usesFyne := strings.Contains(" "+deps, " fyne.io/")
		switch {
		case pkg == "aimdesk/a2ui/fyner":
			if !usesFyne {
				t.Errorf("%s does not use Fyne?", pkg)
			}
		case usesFyne:
			t.Errorf("%s depends on Fyne", pkg)
		}
		checked++
	}
	if checked < 7 {
		t.Errorf("only %d packages listed", checked)
	}
}
