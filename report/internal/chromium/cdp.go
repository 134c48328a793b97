package chromium

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Page is a page open in headless Chromium, driven through the DevTools
// protocol over a pipe (--remote-debugging-pipe: no port, no network): a
// test sizes the window as a phone's, presses keys, reads the page with
// JavaScript, takes a screenshot, and reads every console error and
// uncaught exception the page raised.
type Page struct {
	cmd     *exec.Cmd
	in      *os.File // to the browser
	out     *os.File // from the browser
	profile string
	session string

	mu       sync.Mutex
	nextID   int
	waiting  map[int]chan cdpReply
	events   map[string][]chan json.RawMessage
	problems []string
	readErr  error
	done     chan struct{}
}

type cdpReply struct {
	Result json.RawMessage
	Err    error
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Open starts Chromium headless with the DevTools protocol on a pipe and
// opens the HTML file at htmlPath in a window width x height CSS pixels
// (mobile emulates a phone: touch, a device scale of 2). It returns once
// the page has loaded.
func (b Browser) Open(ctx context.Context, htmlPath string, width, height int, mobile bool) (*Page, error) {
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
	// fd 3 is what the browser reads, fd 4 what it writes.
	inR, inW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(profile)
		return nil, fmt.Errorf("chromium: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		os.RemoveAll(profile)
		return nil, fmt.Errorf("chromium: %w", err)
	}
	cmd := exec.Command(b.path(),
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--mute-audio", "--no-default-browser-check",
		"--remote-debugging-pipe", "--user-data-dir="+profile, "about:blank")
	cmd.ExtraFiles = []*os.File{inR, outW}
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		os.RemoveAll(profile)
		return nil, fmt.Errorf("chromium: %w", err)
	}
	inR.Close()
	outW.Close()
	p := &Page{cmd: cmd, in: inW, out: outR, profile: profile, waiting: map[int]chan cdpReply{}, events: map[string][]chan json.RawMessage{}, done: make(chan struct{})}
	go p.read()
	if err := p.open(ctx, "file://"+filepath.ToSlash(abs), width, height, mobile); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *Page) open(ctx context.Context, url string, width, height int, mobile bool) error {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := p.browserCall(ctx, "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := p.browserCall(ctx, "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		return err
	}
	p.session = attached.SessionID
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if err := p.Call(ctx, m, nil, nil); err != nil {
			return err
		}
	}
	scale := 1.0
	if mobile {
		scale = 2
	}
	if err := p.Call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile}, nil); err != nil {
		return err
	}
	if mobile {
		if err := p.Call(ctx, "Emulation.setTouchEmulationEnabled", map[string]any{"enabled": true}, nil); err != nil {
			return err
		}
	}
	loaded := p.subscribe("Page.loadEventFired")
	if err := p.Call(ctx, "Page.navigate", map[string]any{"url": url}, nil); err != nil {
		return err
	}
	select {
	case <-loaded:
		return nil
	case <-p.done:
		return fmt.Errorf("chromium: the browser exited while loading %s: %v", url, p.readErr)
	case <-ctx.Done():
		return fmt.Errorf("chromium: loading %s: %w", url, ctx.Err())
	}
}

// read dispatches the browser's messages: replies to their callers,
// events to their subscribers, console errors and exceptions to Problems.
func (p *Page) read() {
	defer close(p.done)
	r := bufio.NewReaderSize(p.out, 1<<20)
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			p.mu.Lock()
			p.readErr = err
			for id, ch := range p.waiting {
				ch <- cdpReply{Err: fmt.Errorf("chromium: the browser closed the pipe: %w", err)}
				delete(p.waiting, id)
			}
			p.mu.Unlock()
			return
		}
		var m cdpMessage
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			continue
		}
		p.mu.Lock()
		if m.ID != 0 {
			if ch, ok := p.waiting[m.ID]; ok {
				delete(p.waiting, m.ID)
				rep := cdpReply{Result: m.Result}
				if m.Error != nil {
					rep.Err = fmt.Errorf("chromium: %s", m.Error.Message)
				}
				ch <- rep
			}
			p.mu.Unlock()
			continue
		}
		p.noteProblem(m)
		for _, ch := range p.events[m.Method] {
			select {
			case ch <- m.Params:
			default:
			}
		}
		p.mu.Unlock()
	}
}

// noteProblem keeps a console error, an uncaught exception or an error in
// the browser's log.
func (p *Page) noteProblem(m cdpMessage) {
	switch m.Method {
	case "Runtime.consoleAPICalled":
		var e struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		if json.Unmarshal(m.Params, &e) == nil && (e.Type == "error" || e.Type == "assert") {
			var parts []string
			for _, a := range e.Args {
				if a.Description != "" {
					parts = append(parts, a.Description)
				} else {
					parts = append(parts, fmt.Sprint(a.Value))
				}
			}
			p.problems = append(p.problems, "console."+e.Type+": "+strings.Join(parts, " "))
		}
	case "Runtime.exceptionThrown":
		var e struct {
			Details struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		if json.Unmarshal(m.Params, &e) == nil {
			p.problems = append(p.problems, "uncaught: "+e.Details.Text+" "+e.Details.Exception.Description)
		}
	case "Log.entryAdded":
		var e struct {
			Entry struct {
				Level, Text, URL string
			} `json:"entry"`
		}
		if json.Unmarshal(m.Params, &e) == nil && e.Entry.Level == "error" {
			p.problems = append(p.problems, "log: "+e.Entry.Text+" "+e.Entry.URL)
		}
	}
}

func (p *Page) subscribe(method string) chan json.RawMessage {
	ch := make(chan json.RawMessage, 1)
	p.mu.Lock()
	p.events[method] = append(p.events[method], ch)
	p.mu.Unlock()
	return ch
}

func (p *Page) browserCall(ctx context.Context, method string, params, result any) error {
	return p.call(ctx, "", method, params, result)
}

// Call sends a DevTools command to the page and decodes its result into
// result (when not nil).
func (p *Page) Call(ctx context.Context, method string, params, result any) error {
	return p.call(ctx, p.session, method, params, result)
}

func (p *Page) call(ctx context.Context, session, method string, params, result any) error {
	ch := make(chan cdpReply, 1)
	p.mu.Lock()
	if p.readErr != nil {
		p.mu.Unlock()
		return fmt.Errorf("chromium: %s: the browser is gone: %w", method, p.readErr)
	}
	p.nextID++
	id := p.nextID
	p.waiting[id] = ch
	p.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("chromium: %s: %w", method, err)
	}
	if _, err := p.in.Write(append(data, 0)); err != nil {
		return fmt.Errorf("chromium: %s: %w", method, err)
	}
	select {
	case rep := <-ch:
		if rep.Err != nil {
			return fmt.Errorf("%s: %w", method, rep.Err)
		}
		if result != nil {
			if err := json.Unmarshal(rep.Result, result); err != nil {
				return fmt.Errorf("chromium: %s: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("chromium: %s: %w", method, ctx.Err())
	}
}

// Eval runs a JavaScript expression in the page and decodes its value
// (JSON) into result. An exception is an error.
func (p *Page) Eval(ctx context.Context, expr string, result any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := p.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("chromium: %s: %s", expr, r.Exception.Text)
	}
	if result == nil {
		return nil
	}
	if len(r.Result.Value) == 0 {
		return fmt.Errorf("chromium: %s: no value", expr)
	}
	return json.Unmarshal(r.Result.Value, result)
}

// Type inserts text where the focus is, as typing it would.
func (p *Page) Type(ctx context.Context, text string) error {
	return p.Call(ctx, "Input.insertText", map[string]any{"text": text}, nil)
}

// Press types one key (Tab, Enter, ...) as a keyboard does: down, then up.
func (p *Page) Press(ctx context.Context, key string, shift bool) error {
	codes := map[string]int{"Tab": 9, "Enter": 13, "Escape": 27, " ": 32}
	mods := 0
	if shift {
		mods = 8
	}
	for _, typ := range []string{"keyDown", "keyUp"} {
		params := map[string]any{"type": typ, "key": key, "code": key, "windowsVirtualKeyCode": codes[key], "modifiers": mods}
		if key == "Enter" && typ == "keyDown" {
			params["text"] = "\r"
		}
		if err := p.Call(ctx, "Input.dispatchKeyEvent", params, nil); err != nil {
			return err
		}
	}
	return nil
}

// Screenshot writes a PNG of the page (the whole page when full).
func (p *Page) Screenshot(ctx context.Context, pngPath string, full bool) error {
	var r struct {
		Data string `json:"data"`
	}
	if err := p.Call(ctx, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": full}, &r); err != nil {
		return err
	}
	data, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		return fmt.Errorf("chromium: screenshot: %w", err)
	}
	if len(data) == 0 {
		return errors.New("chromium: the screenshot is empty")
	}
	return os.WriteFile(pngPath, data, 0o644)
}

// Problems are the console errors, uncaught exceptions and browser log
// errors the page raised so far.
func (p *Page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// Close ends the browser.
func (p *Page) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_ = p.browserCall(ctx, "Browser.close", nil, nil)
	cancel()
	p.in.Close()
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-exited
	}
	p.out.Close()
	return os.RemoveAll(p.profile)
}
