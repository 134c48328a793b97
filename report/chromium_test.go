package report

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/report/internal/chromium"
)

// browser returns headless Chromium, or skips the test when it is not
// installed, unless ACK_REQUIRE_CHROMIUM=1 makes that a failure (as CI and
// `make report-render` do where Debian's chromium package is installed).
func browser(t *testing.T) chromium.Browser {
	t.Helper()
	b := chromium.Browser{Path: os.Getenv("ACK_CHROMIUM")}
	if !b.Available() {
		if os.Getenv("ACK_REQUIRE_CHROMIUM") == "1" {
			t.Fatalf("ACK_REQUIRE_CHROMIUM=1 but no Chromium at %q (apt-get install chromium)", chromium.DefaultPath)
		}
		t.Skip("Chromium is not installed (apt-get install chromium); set ACK_REQUIRE_CHROMIUM=1 to require it")
	}
	return b
}

// report.html, opened from disk by a real browser with the network off,
// renders its verdicts, and its script runs.
func TestHTMLRendersInChromium(t *testing.T) {
	b := browser(t)
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			r := fixture(t, name)
			dir := t.TempDir()
			if _, err := WriteDir(dir, r, FormatHTML); err != nil {
				t.Fatal(err)
			}
			html := filepath.Join(dir, "report.html")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			dom, err := b.DumpDOM(ctx, html)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(dom, `data-ready="1"`) {
				t.Error("the page's script did not run to its end")
			}
			label := strings.ToUpper(string(r.Result()))
			if !strings.Contains(dom, `<span class="big">`+label+`</span>`) {
				t.Errorf("the rendered page does not show %s", label)
			}
			for _, c := range r.Checks {
				want := regexp.MustCompile(`id="check-` + regexp.QuoteMeta(c.ID) + `"[^>]*data-verdict="` + string(c.Verdict) + `"`)
				if !want.MatchString(dom) {
					t.Errorf("check %s is not rendered as %s", c.ID, c.Verdict)
				}
			}
			png := filepath.Join(dir, "report.png")
			if err := b.Screenshot(ctx, html, png); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The page needs nothing from the network: no external script, style,
// image or font.
func TestHTMLIsSelfContained(t *testing.T) {
	r := fixture(t, "late-resolution")
	dir := t.TempDir()
	if _, err := WriteDir(dir, r, FormatHTML); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	external := regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//|@import|url\(\s*['"]?https?:`)
	if m := external.Find(data); m != nil {
		t.Fatalf("report.html loads %q from the network", m)
	}
}
