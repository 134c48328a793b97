// Package chromium renders a local HTML file with headless Chromium: a PNG
// screenshot, or the DOM after the page's scripts ran. The report's tests
// and `make report-render` use it to see report.html as a browser does.
package chromium

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// DefaultPath is where Debian's chromium package installs the browser.
const DefaultPath = "/usr/bin/chromium"

// Browser runs one Chromium binary.
type Browser struct {
	// Path is the chromium executable (DefaultPath when empty).
	Path string
	// Width and Height are the window size in CSS pixels (1280x2000 when
	// zero).
	Width, Height int
}

func (b Browser) path() string {
	if b.Path != "" {
		return b.Path
	}
	return DefaultPath
}

// Available reports whether the browser's executable exists.
func (b Browser) Available() bool {
	st, err := os.Stat(b.path())
	return err == nil && !st.IsDir()
}

// Screenshot renders the HTML file at htmlPath and writes a PNG of the
// window to pngPath.
func (b Browser) Screenshot(ctx context.Context, htmlPath, pngPath string) error {
	abs, err := filepath.Abs(pngPath)
	if err != nil {
		return fmt.Errorf("chromium: %w", err)
	}
	if _, err := b.run(ctx, htmlPath, "--screenshot="+abs, "--hide-scrollbars"); err != nil {
		return err
	}
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		return fmt.Errorf("chromium: no screenshot written: %w", err)
	case st.Size() == 0:
		return fmt.Errorf("chromium: the screenshot %s is empty", abs)
	}
	return nil
}

// DumpDOM renders the HTML file at htmlPath and returns the serialised DOM
// once the page has loaded and its scripts have run.
func (b Browser) DumpDOM(ctx context.Context, htmlPath string) (string, error) {
	out, err := b.run(ctx, htmlPath, "--dump-dom")
	if err != nil {
		return "", err
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return "", errors.New("chromium: --dump-dom printed nothing")
	}
	return string(out), nil
}

// run starts Chromium headless on the file, with a fresh profile and
// everything that would reach the network turned off, and returns its
// standard output.
func (b Browser) run(ctx context.Context, htmlPath string, extra ...string) ([]byte, error) {
	abs, err := filepath.Abs(htmlPath)
	if err != nil {
		return nil, fmt.Errorf("chromium: %w", err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("chromium: %w", err)
	}
	profile, err := os.MkdirTemp("", "ack-chromium-")
	if err != nil {
		return nil, fmt.Errorf("chromium: profile: %w", err)
	}
	defer os.RemoveAll(profile)
	w, h := b.Width, b.Height
	if w == 0 {
		w = 1280
	}
	if h == 0 {
		h = 2000
	}
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--mute-audio", "--no-default-browser-check",
		"--force-device-scale-factor=1",
		"--user-data-dir=" + profile,
		fmt.Sprintf("--window-size=%d,%d", w, h),
	}
	args = append(args, extra...)
	args = append(args, "file://"+filepath.ToSlash(abs))
	cmd := exec.CommandContext(ctx, b.path(), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Should a helper process outlive the browser holding the output pipes,
	// do not wait for it forever.
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("chromium: %w (%s)", ctx.Err(), tail(stderr.String()))
		}
		return nil, fmt.Errorf("chromium: %w: %s", err, tail(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// tail keeps the last lines of Chromium's log for an error message.
func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	return strings.Join(lines, "\n")
}
