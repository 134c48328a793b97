package wire

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var updatePin = flag.Bool("update-pin", false, "rewrite testdata/provider-texts.pin from ProviderTexts (only where a changed text comes with a newer date)")

const pinFile = "testdata/provider-texts.pin"

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

type pin struct{ seen, sum string }

func readPin(t *testing.T) map[string]pin {
	t.Helper()
	f, err := os.Open(pinFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]pin{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 3 {
			t.Fatalf("%s:%d: want ID SEEN SHA256, got %q", pinFile, n, line)
		}
		out[fields[0]] = pin{seen: fields[1], sum: fields[2]}
	}
	return out
}

// TestProviderTextsPinned: every provider text is pinned with its date.
// A text that changes must come with a newer date (a newer record read,
// and its source): a text changed under an old date would claim a record
// that never showed it. -update-pin rewrites the pin once both moved.
func TestProviderTextsPinned(t *testing.T) {
	pins := readPin(t)
	seen := map[string]bool{}
	var lines []string
	for _, p := range ProviderTexts() {
		if seen[p.ID] {
			t.Errorf("%s: two texts with one id", p.ID)
		}
		seen[p.ID] = true
		if _, err := time.Parse(time.DateOnly, p.Seen); err != nil {
			t.Errorf("%s: Seen %q is not a date YYYY-MM-DD", p.ID, p.Seen)
		}
		if strings.TrimSpace(p.Source) == "" || strings.TrimSpace(p.Condition) == "" || p.Status == 0 {
			t.Errorf("%s: name its source, its condition and its status", p.ID)
		}
		lines = append(lines, fmt.Sprintf("%s %s %s", p.ID, p.Seen, digest(p.Text)))
		old, ok := pins[p.ID]
		switch {
		case !ok:
			if !*updatePin {
				t.Errorf("%s is not pinned: go test ./wire -run TestProviderTextsPinned -update-pin", p.ID)
			}
		case old.sum != digest(p.Text) && p.Seen <= old.seen:
			t.Errorf("%s: its text changed but its date did not move past %s: a new wording is a newer record, with its date and source", p.ID, old.seen)
		case old.sum != digest(p.Text) || old.seen != p.Seen:
			if !*updatePin {
				t.Errorf("%s: text or date differ from the pin (%s): go test ./wire -run TestProviderTextsPinned -update-pin once both are new", p.ID, pinFile)
			}
		}
	}
	for id := range pins {
		if !seen[id] {
			t.Errorf("%s: pinned, but no such provider text", id)
		}
	}
	if *updatePin && !t.Failed() {
		doc := "# The provider texts of wire.ProviderTexts: ID, the date of the newest record\n# read, and the first 8 bytes of the text's SHA-256 (TestProviderTextsPinned).\n" + strings.Join(lines, "\n") + "\n"
		if err := os.WriteFile(filepath.Clean(pinFile), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The texts the rules answer are the dated ones: each violation's text is
// one of ProviderTexts, with its ids filled in.
func TestViolationsAnswerDatedTexts(t *testing.T) {
	formats := map[string]bool{}
	for _, p := range ProviderTexts() {
		formats[p.Text] = true
	}
	for _, f := range []string{openAIDanglingText, openAIOrphanText, responsesMissing, responsesOrphan, anthropicDangling, anthropicUnexpected} {
		if !formats[f] {
			t.Errorf("the rule text %q has no date in ProviderTexts", f)
		}
	}
}

func TestOlderThan(t *testing.T) {
	now := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	all := OlderThan(now, 0)
	if len(all) != len(ProviderTexts()) {
		t.Fatalf("age 0: %d of %d texts", len(all), len(ProviderTexts()))
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].Seen > all[i].Seen {
			t.Errorf("not oldest first: %s before %s", all[i-1].Seen, all[i].Seen)
		}
	}
	old := OlderThan(now, 300*24*time.Hour)
	for _, p := range old {
		if p.Age(now) <= 300*24*time.Hour {
			t.Errorf("%s (%s) listed as older than 300 days", p.ID, p.Seen)
		}
	}
	if len(OlderThan(now, 100*365*24*time.Hour)) != 0 {
		t.Error("a text older than a century")
	}
	if d := (ProviderText{Seen: "someday"}).Age(now); d < 100*365*24*time.Hour {
		t.Errorf("an undated text is %s old", d)
	}
	for in, want := range map[string]time.Duration{"180d": 180 * 24 * time.Hour, "720h": 720 * time.Hour, "0d": 0} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %s, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "d", "-3d", "3 days", "-1h"} {
		if _, err := ParseAge(in); err == nil {
			t.Errorf("ParseAge(%q) took it", in)
		}
	}
}
