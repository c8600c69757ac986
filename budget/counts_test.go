package budget_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/budget"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/internal/tokens"
)

// referenceWritten is the reference set as one catalog written: each
// definition an entry, the last one's text changed when change is set.
func referenceWritten(t *testing.T, change bool) *export.Written {
	refs := references(t)
	w := &export.Written{Dialect: export.OpenAI}
	for i, r := range refs {
		if change && i == len(refs)-1 {
			r.Text += " changed"
		}
		w.Entries = append(w.Entries, export.ToolEntry{Name: r.Format + "/" + r.Name, Source: "local", JSON: json.RawMessage(r.Text)})
	}
	return w
}

// countsRun is what a run of TestCountsRun found.
type countsRun struct {
	Built bool
	Stats budget.Stats
}

// TestCountsRun measures the reference set with the counts kept in
// $BUDGET_COUNTS_DIR and prints whether it built the vocabulary and the
// stats: one run of a process, for TestCountsKept.
func TestCountsRun(t *testing.T) {
	dir := os.Getenv("BUDGET_COUNTS_DIR")
	if dir == "" {
		t.Skip("a process of TestCountsKept")
	}
	counts := budget.OpenCounts(dir)
	st := counts.Measure(referenceWritten(t, os.Getenv("BUDGET_COUNTS_CHANGE") != ""), config.Budget{})
	if err := counts.Write(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(countsRun{Built: tokens.Built(), Stats: st})
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.Write(append(append([]byte("\n"), b...), '\n'))
}

// TestCountsKept: a process that measures definitions counted by an
// earlier one builds no vocabulary and counts as it did; one definition
// changed is counted again (so the vocabulary is built), and the others'
// counts are the same.
func TestCountsKept(t *testing.T) {
	dir := t.TempDir()
	run := func(change bool) countsRun {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run", "^TestCountsRun$", "-test.count", "1")
		cmd.Env = append(os.Environ(), "BUDGET_COUNTS_DIR="+dir)
		if change {
			cmd.Env = append(cmd.Env, "BUDGET_COUNTS_CHANGE=1")
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var r countsRun
		for _, line := range bytes.Split(out, []byte("\n")) {
			if json.Unmarshal(line, &r) == nil && r.Stats.Dialect != "" {
				return r
			}
		}
		t.Fatalf("no result in\n%s", out)
		return r
	}
	for _, tt := range []struct {
		name   string
		change bool
		built  bool
	}{
		{name: "first, every definition counted", built: true},
		{name: "again, nothing counted", built: false},
		{name: "one definition changed", change: true, built: true},
		{name: "after it, nothing counted", change: true, built: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := countsRun{Built: tt.built, Stats: budget.Measure(referenceWritten(t, tt.change), config.Budget{})}
			if diff := cmp.Diff(want, run(tt.change)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
