package mutants

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/approval-conformance-kit/ack/report"
	"github.com/approval-conformance-kit/ack/target/httptarget"
)

// Module is the kit's module path: a source tree is a directory whose
// go.mod declares it.
const Module = "github.com/approval-conformance-kit/ack"

// EnvName is set in a mutant program's environment to the mutant's name,
// so that it reports its target as "mutant NAME", not "reference".
const EnvName = "ACK_MUTANT"

// Builder builds mutant programs: cmd/conformance of the kit's source tree
// with the mutant's change laid over the reference by go build -overlay
// (no copy of the tree; the build cache keeps every package the change
// does not touch). It builds each mutant once, into a directory of its own
// that Close removes, and at most GOMAXPROCS at once. It is safe for
// concurrent use.
type Builder struct {
	root, goTool, dir string
	sem               chan struct{}

	mu    sync.Mutex
	built map[string]*build
}

type build struct {
	once sync.Once
	bin  string
	err  error
}

// NewBuilder finds the Go toolchain (go on PATH) and the kit's source tree
// (the working directory or one above it, else the tree this program was
// built from); an error says which is missing.
func NewBuilder() (*Builder, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return nil, errors.New("running a mutant needs the Go toolchain: go is not on PATH (a mutant is the reference with one change, built from the kit's source with go build -overlay)")
	}
	root, err := SourceTree()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ack-mutants-")
	if err != nil {
		return nil, fmt.Errorf("mutants: %w", err)
	}
	return &Builder{root: root, goTool: goTool, dir: dir, sem: make(chan struct{}, runtime.GOMAXPROCS(0)), built: map[string]*build{}}, nil
}

// SourceTree returns the root of the kit's source tree: the working
// directory or the nearest directory above it whose go.mod declares the
// kit's module, else the tree this package was compiled from, if it is
// still there.
func SourceTree() (string, error) {
	var tried []string
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			if isTree(dir) {
				return dir, nil
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
		tried = append(tried, wd+" and the directories above it")
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		dir := filepath.Dir(filepath.Dir(file))
		if isTree(dir) {
			return dir, nil
		}
		tried = append(tried, dir)
	}
	return "", fmt.Errorf("running a mutant needs the kit's source tree (a go.mod of module %s), found neither in %s: run it from a checkout of the kit", Module, strings.Join(tried, " nor in "))
}

func isTree(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return f[1] == Module
		}
	}
	return false
}

// Root returns the source tree the builder builds from.
func (b *Builder) Root() string { return b.root }

// Close removes the built programs.
func (b *Builder) Close() error { return os.RemoveAll(b.dir) }

// Binary returns the path of the mutant's program, building it the first
// time. A change that no longer applies, or a mutant that does not
// compile, is an error naming the mutant.
func (b *Builder) Binary(ctx context.Context, m Mutant) (string, error) {
	b.mu.Lock()
	e, ok := b.built[m.Name]
	if !ok {
		e = &build{}
		b.built[m.Name] = e
	}
	b.mu.Unlock()
	e.once.Do(func() { e.bin, e.err = b.compile(ctx, m) })
	return e.bin, e.err
}

func (b *Builder) compile(ctx context.Context, m Mutant) (string, error) {
	changed, err := m.Apply(func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(b.root, filepath.FromSlash(p))) })
	if err != nil {
		return "", err
	}
	dir := filepath.Join(b.dir, m.Name)
	overlay := struct{ Replace map[string]string }{Replace: map[string]string{}}
	for p, data := range changed {
		file := filepath.Join(dir, "src", filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return "", fmt.Errorf("mutant %s: %w", m.Name, err)
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return "", fmt.Errorf("mutant %s: %w", m.Name, err)
		}
		overlay.Replace[filepath.Join(b.root, filepath.FromSlash(p))] = file
	}
	spec, err := json.Marshal(overlay)
	if err != nil {
		return "", err
	}
	specFile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(specFile, spec, 0o644); err != nil {
		return "", fmt.Errorf("mutant %s: %w", m.Name, err)
	}
	bin := filepath.Join(dir, "conformance")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	select {
	case b.sem <- struct{}{}:
	case <-ctx.Done():
		return "", fmt.Errorf("mutant %s: %w", m.Name, context.Cause(ctx))
	}
	defer func() { <-b.sem }()
	// No symbol table or DWARF: the link is most of a build, and a
	// mutant program is never debugged.
	cmd := exec.CommandContext(ctx, b.goTool, "build", "-overlay", specFile, "-ldflags=-s -w", "-o", bin, "./cmd/conformance")
	cmd.Dir = b.root
	// The mutant program is built plain, whatever flags the caller's own
	// build used (a race-enabled test must not make 72 race builds).
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("mutant %s (%s): go build -overlay failed: %v\n%s", m.Name, m.File, err, bytes.TrimSpace(out))
	}
	return bin, nil
}

// Command returns the mutant's program run with args (a conformance
// command line: run, serve, replay), building it first; its environment
// names the mutant (EnvName). Canceling ctx interrupts the program, as
// Ctrl-C would, and kills it 10 seconds later.
func (b *Builder) Command(ctx context.Context, m Mutant, args ...string) (*exec.Cmd, error) {
	bin, err := b.Binary(ctx, m)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), EnvName+"="+m.Name)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	return cmd, nil
}

// Run runs the suite in the mutant's program against the mutant, in its
// process (conformance run --reference), under the mutant's denial policy
// unless args give one, with more run flags in args (--tags ...), and
// returns its report. The run failing checks is no error; the program
// failing to run the suite is.
func (b *Builder) Run(ctx context.Context, m Mutant, args ...string) (*report.Run, error) {
	out, err := os.MkdirTemp(b.dir, m.Name+"-run-")
	if err != nil {
		return nil, fmt.Errorf("mutant %s: %w", m.Name, err)
	}
	defer os.RemoveAll(out)
	full := []string{"run", "--reference", "--format", "json", "--report", out, "--progress", "never"}
	if m.DenialPolicy != "" && !hasFlag(args, "denial-policy") {
		full = append(full, "--denial-policy", m.DenialPolicy)
	}
	cmd, err := b.Command(ctx, m, append(full, args...)...)
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return nil, fmt.Errorf("mutant %s: conformance run: %v\n%s", m.Name, err, bytes.TrimSpace(stderr.Bytes()))
	}
	files, _ := filepath.Glob(filepath.Join(out, "*", "*", "report.json"))
	if len(files) != 1 {
		return nil, fmt.Errorf("mutant %s: conformance run wrote %d reports, want 1\n%s", m.Name, len(files), bytes.TrimSpace(stderr.Bytes()))
	}
	run, err := report.ReadJSON(files[0])
	if err != nil {
		return nil, fmt.Errorf("mutant %s: %w", m.Name, err)
	}
	return run, nil
}

// Server is a mutant served behind driver protocol v1 by its program
// (conformance serve).
type Server struct {
	// URL is the driver protocol's base URL.
	URL string
	cmd *exec.Cmd
}

// Serve starts the mutant's program serving it (conformance serve on a
// loopback port, more serve flags in args: --model-apis ...) and returns
// once it listens. Close stops it.
func (b *Builder) Serve(ctx context.Context, m Mutant, args ...string) (*Server, error) {
	full := []string{"serve", "--addr", "127.0.0.1:0"}
	if m.DenialPolicy != "" && !hasFlag(args, "denial-policy") {
		full = append(full, "--denial-policy", m.DenialPolicy)
	}
	cmd, err := b.Command(context.WithoutCancel(ctx), m, append(full, args...)...)
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("mutant %s: %w", m.Name, err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("mutant %s: conformance serve printed no URL: %v\n%s", m.Name, err, strings.TrimSpace(stderr.String()))
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return &Server{URL: strings.TrimSpace(line), cmd: cmd}, nil
}

// Close stops the server's program and waits for it.
func (s *Server) Close() error {
	if err := s.cmd.Process.Signal(os.Interrupt); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
		return nil
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		return <-done
	}
}

// hasFlag reports whether args set the flag name (-name, --name, =VALUE).
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		a = strings.TrimLeft(a, "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// lockedBuffer is a buffer a process writes while another goroutine may
// read it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Target serves the mutant (Serve) and returns it as a target over driver
// protocol v1, with the function that stops both.
func (b *Builder) Target(ctx context.Context, m Mutant, args ...string) (*httptarget.Target, func(), error) {
	srv, err := b.Serve(ctx, m, args...)
	if err != nil {
		return nil, nil, err
	}
	ht, err := httptarget.New(srv.URL)
	if err != nil {
		_ = srv.Close()
		return nil, nil, fmt.Errorf("mutant %s: %w", m.Name, err)
	}
	return ht, func() { _ = ht.Close(); _ = srv.Close() }, nil
}
