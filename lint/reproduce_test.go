package lint_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/approval-conformance-kit/ack/lint"
	"github.com/approval-conformance-kit/ack/mutants"
	"github.com/approval-conformance-kit/ack/reference"
	"github.com/approval-conformance-kit/ack/regression"
	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/runner"
	"github.com/approval-conformance-kit/ack/target"
	"github.com/approval-conformance-kit/ack/target/httptarget"
	"github.com/approval-conformance-kit/ack/target/inprocess"
	"github.com/approval-conformance-kit/ack/transcript"
)

// The certified defect walked through in docs/transcripts.md: the AI SDK
// 7.0.173 appends the result of an approval found in an earlier message
// after every input message, behind a later assistant message (FINDINGS.md
// D4, WIRE-02).
const (
	certified = "../reports/certified/vercel-ai@7.0.173-wire"
	d4        = "pre_resolution.feature: approval requests are found anywhere in the history (generate)"
	// committedScenario is the scenario the certification runs against
	// the SDK after its suite (docs/transcripts.md, step 4).
	committedScenario = "../adapters/vercel-ai/regressions/vercel-ai-7-result-after-a-later-assistant-message.yaml"
)

// TestReproduceCertifiedDefect: the certification's journal shows the
// defect; lint finds it on the check the certification reports; the
// scenario written from the journal asserts that check, fails on an agent
// with the same bug and passes on the reference.
func TestReproduceCertifiedDefect(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(certified, "report.json"))
	if err != nil {
		t.Skip("no certification in this tree")
	}
	var rep struct {
		Scenarios []struct {
			ID            string
			CheckVerdicts map[string]string
		}
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	certifiedFail := false
	for _, s := range rep.Scenarios {
		// Fail, or warn where the grading by harm judged its input
		// out-of-contract: the defect is reported either way.
		certifiedFail = certifiedFail || (s.ID == d4 && (s.CheckVerdicts["WIRE-02"] == "fail" || s.CheckVerdicts["WIRE-02"] == "warn"))
	}
	if !certifiedFail {
		t.Fatalf("the certification does not report WIRE-02 failing or warning on %q", d4)
	}

	journal, err := os.ReadFile(filepath.Join(certified, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := lint.Read(bytes.NewReader(journal), lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var found []lint.Finding
	for _, f := range res.Findings {
		if f.Scenario == d4 {
			found = append(found, f)
		}
	}
	if len(found) != 2 || found[0].Check != "WIRE-02" || found[0].Call != 2 || found[0].Provider == nil ||
		!strings.Contains(found[0].Provider.Message, "did not have response messages: call_1") {
		t.Fatalf("lint of the journal on %s: %+v, want WIRE-02 at model call 2 with OpenAI's 400", d4, found)
	}

	convs, err := transcript.ReadConversations(bytes.NewReader(journal), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var conv *transcript.Conversation
	for _, c := range convs {
		if c.ID == d4 {
			conv = c
		}
	}
	if conv == nil {
		t.Fatalf("no conversation %q in the journal", d4)
	}
	yaml, err := regression.Scenario(regression.Source{File: "journal.jsonl", Conversation: conv, Findings: found},
		regression.Options{ID: "vercel-ai-7-result-after-a-later-assistant-message", OutOfContract: d4OutOfContract})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(yaml, []byte("checks: [WIRE-02]")) {
		t.Fatalf("the scenario does not assert WIRE-02:\n%s", yaml)
	}
	// The committed copy, which make certify-check runs against the SDK
	// (adapters/certify.yaml, regressions), is the one written here.
	committed, err := os.ReadFile(committedScenario)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, yaml) {
		t.Errorf("%s is not what from-transcript writes from the journal now:\n%s", committedScenario, yaml)
	}
	m, err := mutants.Lookup("no-result-placement")
	if err != nil {
		t.Fatal(err)
	}
	b, err := mutants.NewBuilder()
	if err != nil {
		t.Skipf("the mutant cannot be built here: %v", err)
	}
	defer b.Close()
	mt, stop, err := b.Target(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for _, c := range []struct {
		name string
		tgt  target.Target
		want report.Verdict
	}{
		{"reference", inprocess.New(reference.New(), "reference"), report.Pass},
		// Leaves results where the client put them, as the SDK does: the
		// provider's 400 shows, on input out of contract, so it warns.
		{m.Name, mt, report.Warn},
	} {
		if got := verdict(t, yaml, c.tgt); len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: verdicts %v, want %s\n%s", c.name, got, c.want, yaml)
		}
	}
}

// d4OutOfContract says why D4's input is out of contract, as its
// certification grades it (FINDINGS.md D4).
const d4OutOfContract = "an assistant message between a call and its result, a layout the suite builds by hand and no SDK flow produces"

// verdict runs one scenario file against a target.
func verdict(t *testing.T, yaml []byte, tgt target.Target) []report.Verdict {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "regression.yaml"), yaml, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := runner.Options{Target: tgt, NoFeatures: true, NoScenarios: true, ExtraScenarios: []fs.FS{os.DirFS(dir)}}
	if _, overHTTP := tgt.(*httptarget.Target); overHTTP {
		wiring, err := httptarget.NewWiring("")
		if err != nil {
			t.Fatal(err)
		}
		defer wiring.Close()
		opts.Wiring = wiring
	}
	run, err := runner.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []report.Verdict
	for _, s := range run.Scenarios {
		if s.Verdict == report.Error {
			t.Logf("%s: %s", s.ID, s.Message)
		}
		out = append(out, s.Verdict)
	}
	return out
}
