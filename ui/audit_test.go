package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"

	"aimdesk/app/devagent"
	"aimdesk/app/store"
)

func TestAuditLogListsSearchesAndExports(t *testing.T) {
	h := newApprovalHarness(t, approvalHarnessConfig{hooks: devagent.Hooks{Requirement: mediumRisk}})
	approved, rejected, _ := h.decideThree()
	apA, _ := h.core.Approval(approved)
	apR, _ := h.core.Approval(rejected)

	h.ui.ShowAudit()
	v := h.ui.audit
	h.waitFor("the audit log", func() bool { return v.loaded && len(v.entries) == 2 })
	if v.count.Text != "2 decisions." {
		t.Errorf("count %q", v.count.Text)
	}
	for _, tt := range []struct {
		row  int
		want []string // the cells, column by column
	}{
		{0, []string{
			"", "AIM reference agent", approvalShort(apR.TaskID), approvalShort(apR.Requirement.RequirementID), "1",
			auditShortDigest(apR.Requirement.ActionDigest), "reject", "task canceled",
		}},
		{1, []string{
			"", "AIM reference agent", approvalShort(apA.TaskID), approvalShort(apA.Requirement.RequirementID), "1",
			auditShortDigest(apA.Requirement.ActionDigest), "approve", "task completed",
		}},
	} {
		for col, want := range tt.want {
			if got := auditCell(&v.entries[tt.row], col); !strings.Contains(strings.ToLower(got), strings.ToLower(want)) {
				t.Errorf("row %d column %s = %q, want %q", tt.row, auditColumns[col].title, got, want)
			}
		}
	}
	if !strings.HasSuffix(auditCell(&v.entries[0], 5), "…") || !strings.HasPrefix(auditCell(&v.entries[0], 5), "sha256:") {
		t.Errorf("digest not shortened: %q", auditCell(&v.entries[0], 5))
	}

	test.Type(v.search, "reject")
	h.waitFor("the search", func() bool { return len(v.entries) == 1 && v.entries[0].Decision == "reject" })
	v.search.SetText("no such thing")
	h.waitFor("an empty search", func() bool { return len(v.entries) == 0 && strings.Contains(v.count.Text, "No decision matches") })

	// Export writes every entry, whatever the search.
	path := filepath.Join(t.TempDir(), "audit.json")
	w, err := storage.Writer(storage.NewFileURI(path))
	if err != nil {
		t.Fatal(err)
	}
	v.exportTo(w)
	h.waitFor("the export", func() bool { return strings.HasPrefix(v.count.Text, "Exported") })
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var exported []store.AuditEntry
	if err := json.Unmarshal(raw, &exported); err != nil || len(exported) != 2 {
		t.Fatalf("export: %v, %d entries:\n%s", err, len(exported), raw)
	}
	if got := exported[0].Decision + "," + exported[1].Decision; got != "reject,approve" {
		t.Errorf("exported decisions %s", got)
	}
	if exported[1].RequirementID != apA.Requirement.RequirementID || exported[1].Digest != apA.Requirement.ActionDigest {
		t.Errorf("exported entry %+v", exported[1])
	}

	// Export… asks where to save.
	test.Tap(v.export)
	if v.win.Canvas().Overlays().Top() == nil {
		t.Error("Export… shows no file dialog")
	}

	// A new decision shows up in the open log.
	v.search.SetText("")
	d := h.raise()
	test.Tap(d.rejectBtn)
	h.waitFor("the new decision in the log", func() bool { return len(v.entries) == 3 })
}
