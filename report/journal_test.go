package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestJournal(t *testing.T) {
	r := fixture(t, "late-resolution")
	doc := render(t, r, FormatJournal)
	want := 0
	for _, s := range r.Scenarios {
		if s.Evidence != nil {
			want += len(s.Evidence.ModelCalls)
		}
	}
	if want == 0 {
		t.Fatal("the fixture has no model calls")
	}
	sc := bufio.NewScanner(bytes.NewReader(doc))
	sc.Buffer(nil, 1<<24)
	n := 0
	last := ""
	for sc.Scan() {
		n++
		var line map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("line %d is not a JSON object: %v", n, err)
		}
		if !bytes.HasPrefix(sc.Bytes(), []byte(`{"scenario":`)) {
			t.Errorf("line %d does not start with the scenario", n)
		}
		var id string
		if err := json.Unmarshal(line["scenario"], &id); err != nil || id < last {
			t.Errorf("line %d: scenario %q after %q", n, id, last)
		}
		last = id
		for _, k := range []string{"call", "mode", "prompt", "verdict"} {
			if _, ok := line[k]; !ok {
				t.Errorf("line %d lacks the entry's %q", n, k)
			}
		}
	}
	if n != want {
		t.Errorf("%d lines, want one per model call: %d", n, want)
	}
}

func TestJournalKeepsOddEntriesWhole(t *testing.T) {
	doc := string(render(t, synthRun(), FormatJournal))
	lines := strings.Split(strings.TrimSuffix(doc, "\n"), "\n")
	// fails: 3 calls (a struct, raw JSON, a bare string) and a chat
	// request; warns: 1.
	if len(lines) != 5 {
		t.Fatalf("%d lines:\n%s", len(lines), doc)
	}
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("line %d is not JSON: %s", i+1, l)
		}
	}
	if !strings.HasSuffix(lines[2], `,"entry":"a bare string entry"}`) {
		t.Errorf("a non-object entry: %s", lines[2])
	}
	if !strings.Contains(lines[1], `,"call":2,"turn":-1,"mode":"generate","prompt":[`) {
		t.Errorf("a raw entry is not kept in its order: %s", lines[1])
	}
	if !strings.Contains(lines[3], `,"chatRequest":{"body":`) {
		t.Errorf("a chat request is not journaled after the model calls: %s", lines[3])
	}
	r := synthRun()
	scenarioNamed(t, r, "a.feature: fails").Evidence.ModelCalls = []any{map[string]any{"scenario": "mine", "call": 1}, map[string]any{}}
	doc = string(render(t, r, FormatJournal))
	for _, want := range []string{`,"entry":{"call":1,"scenario":"mine"}}`, `{"scenario":"a.feature: fails `} {
		if !strings.Contains(doc, want) {
			t.Errorf("journal lacks %s:\n%s", want, doc)
		}
	}
	if !strings.Contains(doc, "# not a heading\"}\n") {
		t.Errorf("an empty entry is not {\"scenario\": id}:\n%s", doc)
	}
	r = synthRun()
	scenarioNamed(t, r, "a.feature: fails").Evidence.ChatRequests = []any{map[string]any{"n": 1, "body": json.RawMessage(`{"messages":[]}`)}}
	doc = string(render(t, r, FormatJournal))
	if !strings.Contains(doc, `,"chatRequest":{"body":{"messages":[]},"n":1}}`+"\n") {
		t.Errorf("journal lacks the chat request:\n%s", doc)
	}
	if got := render(t, passingRun(false), FormatJournal); len(got) != 0 {
		t.Errorf("a run without evidence has a journal: %q", got)
	}
}
