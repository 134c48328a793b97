// Command benchserve serves the benchmarked model call (internal/benchcall)
// for benchmarks run from outside Go (bench/peers): the simulator, or the
// bare net/http handler answering the same reply (internal/barehttp). It
// prints the API base URL on its first line and serves until its standard
// input closes.
//
//	benchserve simulator|net-http   serve OpenAI Chat Completions at <URL>/chat/completions
//	benchserve call                 print the request body and the reply as JSON
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/approval-conformance-kit/ack/internal/barehttp"
	"github.com/approval-conformance-kit/ack/internal/benchcall"
	"github.com/approval-conformance-kit/ack/provider"
	"github.com/approval-conformance-kit/ack/wire"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchserve:", err)
		os.Exit(1)
	}
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: benchserve simulator|net-http|call")
	}
	codec, err := provider.Lookup(wire.OpenAIChat)
	if err != nil {
		return err
	}
	body, err := codec.EncodeRequest(benchcall.Request(), false)
	if err != nil {
		return err
	}
	sim, simSrv, err := benchcall.Simulator(wire.OpenAIChat)
	if err != nil {
		return err
	}
	defer simSrv.Close()
	reply, err := recordReply(sim, codec.Path(), body)
	if err != nil {
		return err
	}
	var h http.Handler
	switch args[0] {
	case "call":
		return json.NewEncoder(stdout).Encode(map[string]string{"request": string(body), "reply": string(reply), "path": codec.Path()})
	case "simulator":
		h = sim
	case "net-http":
		if h, err = barehttp.New(reply, false, false); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown server %q (want simulator, net-http or call)", args[0])
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(l) }() // returns when Close is called
	defer srv.Close()
	fmt.Fprintf(stdout, "http://%s/v1\n", l.Addr())
	_, _ = io.Copy(io.Discard, stdin) // serve until stdin closes
	return nil
}

// recordReply asks the simulator once and returns its reply.
func recordReply(h http.Handler, path string, body []byte) ([]byte, error) {
	req, err := http.NewRequest(http.MethodPost, "/v1"+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	rec := &recorder{header: http.Header{}}
	h.ServeHTTP(rec, req)
	if rec.status != 0 && rec.status != http.StatusOK {
		return nil, fmt.Errorf("the simulator answered %d: %s", rec.status, rec.body.Bytes())
	}
	return rec.body.Bytes(), nil
}

// recorder is a minimal http.ResponseWriter.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) WriteHeader(status int)      { r.status = status }
func (r *recorder) Write(p []byte) (int, error) { return r.body.Write(p) }
