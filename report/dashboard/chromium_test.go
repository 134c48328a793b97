package dashboard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/approval-conformance-kit/ack/report/internal/chromium"
)

// browser returns headless Chromium, or skips the test when it is not
// installed, unless ACK_REQUIRE_CHROMIUM=1 makes that a failure (as CI
// and make dashboard do).
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

// committedPage renders the committed certifications into a page of a
// temporary folder (with a certified/ beside it, as in reports/, so its
// links resolve).
func committedPage(t *testing.T) (string, []Cert) {
	t.Helper()
	certs := committed(t)
	page, err := Render(certs, Options{Base: "certified"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dashboard.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, certs
}

// open opens the page and ends the browser with the test.
func open(t *testing.T, ctx context.Context, b chromium.Browser, path string, w, h int, mobile bool) *chromium.Page {
	t.Helper()
	p, err := b.Open(ctx, path, w, h, mobile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	var ready bool
	if err := p.Eval(ctx, `document.body.getAttribute('data-ready') === '1'`, &ready); err != nil || !ready {
		t.Fatalf("the page's script did not run to its end (%v)", err)
	}
	return p
}

// The dashboard of the committed certifications, in a real browser with
// the network off, on a desktop: every certification has its row, every
// row its cells, the page raises no console error or exception, and it
// screenshots.
func TestDashboardRendersInChromium(t *testing.T) {
	b := browser(t)
	path, certs := committedPage(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := open(t, ctx, b, path, 1400, 1600, false)
	var rows []string
	if err := p.Eval(ctx, `Array.from(document.querySelectorAll('#grid-table tbody tr.cert')).map(r => r.id + ' ' + r.querySelectorAll('td').length)`, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(certs) {
		t.Fatalf("%d rows, want one per certification (%d)", len(rows), len(certs))
	}
	var cols int
	if err := p.Eval(ctx, `document.querySelectorAll('#grid-table thead th.check').length`, &cols); err != nil {
		t.Fatal(err)
	}
	for i, c := range certs {
		if want := fmt.Sprintf("%s %d", c.ID, cols); rows[i] != want {
			t.Errorf("row %d is %q, want %q", i, rows[i], want)
		}
	}
	// Each line of more than one release has its trend row.
	releases := map[string]int{}
	for _, c := range certs {
		releases[c.Line()]++
	}
	wantTrends := 0
	for _, n := range releases {
		if n > 1 {
			wantTrends++
		}
	}
	var trends int
	if err := p.Eval(ctx, `document.querySelectorAll('#grid-table tbody tr.trend-row').length`, &trends); err != nil {
		t.Fatal(err)
	}
	if trends != wantTrends {
		t.Errorf("%d trend rows, want one per line of several releases (%d)", trends, wantTrends)
	}
	// The filter hides what it does not match.
	var shown int
	if err := p.Eval(ctx, `(() => { const f = document.getElementById('filter'); f.value = 'vercel-ai@7'; f.dispatchEvent(new Event('input')); return document.querySelectorAll('#grid-table tbody tr.cert:not([hidden])').length })()`, &shown); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, c := range certs {
		if strings.HasPrefix(c.ID, "vercel-ai@7") {
			want++
		}
	}
	if shown != want {
		t.Errorf("the filter vercel-ai@7 shows %d rows, want %d", shown, want)
	}
	if err := p.Screenshot(ctx, filepath.Join(filepath.Dir(path), "dashboard.png"), false); err != nil {
		t.Fatal(err)
	}
	if probs := p.Problems(); len(probs) > 0 {
		t.Errorf("the page raised:\n%s", strings.Join(probs, "\n"))
	}
	if keep := os.Getenv("ACK_DASHBOARD_SCREENSHOTS"); keep != "" {
		copyFile(t, filepath.Join(filepath.Dir(path), "dashboard.png"), filepath.Join(keep, "dashboard-desktop.png"))
	}
}

// At a phone's width the page does not scroll sideways (the wide grid
// scrolls inside its own region), its text stays readable, and a row's
// name stays on screen while the grid scrolls.
func TestDashboardReadableAtPhoneWidth(t *testing.T) {
	b := browser(t)
	path, _ := committedPage(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := open(t, ctx, b, path, 390, 844, true)
	var m struct {
		Inner, Scroll, Font, GridClient, GridScroll int
		Smallest                                    float64
		Small                                       string
		Sticky                                      string
	}
	err := p.Eval(ctx, `(() => {
		const grid = document.querySelector('.scroll');
		let smallest = 99, small = '';
		for (const el of document.querySelectorAll('main p, main li, main summary, header p, label')) {
			const s = parseFloat(getComputedStyle(el).fontSize);
			if (el.getClientRects().length && s < smallest) { smallest = s; small = el.tagName + ' ' + el.textContent.slice(0, 40); }
		}
		return {Inner: window.innerWidth, Scroll: document.documentElement.scrollWidth,
			Font: Math.round(parseFloat(getComputedStyle(document.body).fontSize)),
			GridClient: grid.clientWidth, GridScroll: grid.scrollWidth, Smallest: smallest, Small: small,
			Sticky: getComputedStyle(document.querySelector('#grid-table th.rowhead')).position};
	})()`, &m)
	if err != nil {
		t.Fatal(err)
	}
	if m.Inner != 390 {
		t.Fatalf("the window is %dpx wide, want the phone's 390", m.Inner)
	}
	if m.Scroll > m.Inner {
		t.Errorf("the page is %dpx wide at a %dpx phone: it scrolls sideways", m.Scroll, m.Inner)
	}
	if m.Font < 16 {
		t.Errorf("body text is %dpx at phone width, want 16px or more", m.Font)
	}
	if m.Smallest < 12 {
		t.Errorf("text as small as %.1fpx at phone width (%s), want 12px or more", m.Smallest, m.Small)
	}
	if m.GridClient > m.Inner || m.GridScroll <= m.GridClient {
		t.Errorf("the grid (%dpx of %dpx) does not scroll inside its region at phone width", m.GridClient, m.GridScroll)
	}
	if m.Sticky != "sticky" {
		t.Errorf("the row names are %s, want sticky while the grid scrolls", m.Sticky)
	}
	if err := p.Screenshot(ctx, filepath.Join(filepath.Dir(path), "phone.png"), false); err != nil {
		t.Fatal(err)
	}
	if probs := p.Problems(); len(probs) > 0 {
		t.Errorf("the page raised:\n%s", strings.Join(probs, "\n"))
	}
	if keep := os.Getenv("ACK_DASHBOARD_SCREENSHOTS"); keep != "" {
		copyFile(t, filepath.Join(filepath.Dir(path), "phone.png"), filepath.Join(keep, "dashboard-phone.png"))
	}
}

// With the keyboard alone: Tab reaches the skip link first, then the
// filter, the checkbox, the grid's region and each certification's link,
// every focused element drawn with a visible outline; Enter on a
// certification's link goes to its section; typing in the filter filters;
// Shift+Tab goes back.
func TestDashboardKeyboardNavigable(t *testing.T) {
	b := browser(t)
	path, certs := committedPage(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := open(t, ctx, b, path, 1280, 900, false)
	type focus struct {
		Tag, ID, Text, Href, Outline string
		Width                        float64
	}
	active := func() focus {
		t.Helper()
		var f focus
		if err := p.Eval(ctx, `(() => { const e = document.activeElement, s = getComputedStyle(e);
			return {Tag: e.tagName, ID: e.id || '', Text: (e.textContent || '').trim().slice(0, 60), Href: decodeURIComponent(e.getAttribute('href') || ''),
				Outline: s.outlineStyle, Width: parseFloat(s.outlineWidth) || 0}; })()`, &f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	var seen []focus
	for i := 0; i < 12; i++ {
		if err := p.Press(ctx, "Tab", false); err != nil {
			t.Fatal(err)
		}
		f := active()
		if f.Tag == "BODY" {
			t.Fatalf("Tab %d left the focus on the page's body (after %+v)", i+1, seen)
		}
		if f.Outline == "none" || f.Width < 2 {
			t.Errorf("Tab %d focuses %s %q with no visible outline (%s, %.0fpx)", i+1, f.Tag, f.Text, f.Outline, f.Width)
		}
		seen = append(seen, f)
	}
	if seen[0].Href != "#grid" {
		t.Errorf("the first Tab focuses %+v, want the skip link to the verdicts", seen[0])
	}
	index := func(pred func(focus) bool) int {
		for i, f := range seen {
			if pred(f) {
				return i
			}
		}
		return -1
	}
	filter := index(func(f focus) bool { return f.ID == "filter" })
	failing := index(func(f focus) bool { return f.ID == "failing" })
	region := index(func(f focus) bool { return f.Tag == "DIV" })
	first := index(func(f focus) bool { return f.Href == "#cert-"+certs[0].ID })
	second := index(func(f focus) bool { return f.Href == "#cert-"+certs[1].ID })
	if filter < 0 || failing < 0 || region < 0 || first < 0 || second < 0 || !(filter < failing && failing < region && region < first && first < second) {
		t.Fatalf("Tab order %+v: want the filter, the checkbox, the grid's region, then the certifications in order", seen)
	}
	// Shift+Tab goes back one.
	if err := p.Press(ctx, "Tab", true); err != nil {
		t.Fatal(err)
	}
	if back := active(); back.Href != seen[len(seen)-2].Href || back.Tag != seen[len(seen)-2].Tag {
		t.Errorf("Shift+Tab from %+v went to %+v, want %+v", seen[len(seen)-1], back, seen[len(seen)-2])
	}
	// Enter on the first certification's link goes to its section.
	if err := p.Eval(ctx, `Array.from(document.querySelectorAll('#grid-table th a')).find(a => decodeURIComponent(a.getAttribute('href')) === '#cert-`+certs[0].ID+`').focus()`, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.Press(ctx, "Enter", false); err != nil {
		t.Fatal(err)
	}
	var hash string
	if err := p.Eval(ctx, `decodeURIComponent(location.hash)`, &hash); err != nil {
		t.Fatal(err)
	}
	if hash != "#cert-"+certs[0].ID {
		t.Errorf("Enter on %s's link went to %q", certs[0].ID, hash)
	}
	// Typing in the filter filters.
	if err := p.Eval(ctx, `document.getElementById('filter').focus()`, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.Type(ctx, "effect"); err != nil {
		t.Fatal(err)
	}
	var shown int
	if err := p.Eval(ctx, `document.querySelectorAll('#grid-table tbody tr.cert:not([hidden])').length`, &shown); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, c := range certs {
		if strings.Contains(c.ID, "effect") {
			want++
		}
	}
	if shown != want {
		t.Errorf("typing effect in the filter shows %d rows, want %d", shown, want)
	}
	if probs := p.Problems(); len(probs) > 0 {
		t.Errorf("the page raised:\n%s", strings.Join(probs, "\n"))
	}
}

// committed loads the committed certifications once for every test (each
// report.json is read against the report schema, which takes a while).
var committed = func() func(t *testing.T) []Cert {
	var (
		once  sync.Once
		certs []Cert
		err   error
	)
	return func(t *testing.T) []Cert {
		t.Helper()
		once.Do(func() { certs, err = Load(filepath.Join("..", "..", "reports", "certified")) })
		if err != nil {
			t.Fatal(err)
		}
		return certs
	}
}()

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
