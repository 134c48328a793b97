package lint

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// benchSize is the size of the generated transcripts, in MB
// (ACK_LINT_BENCH_MB, 256 by default).
func benchSize(b *testing.B) int64 {
	mb := 256
	if s := os.Getenv("ACK_LINT_BENCH_MB"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("ACK_LINT_BENCH_MB=%q: want a number of megabytes", s)
		}
		mb = n
	}
	return int64(mb) << 20
}

// writeChatBody writes an OpenAI Chat Completions body of about size
// bytes: exchanges of a user message, a call, a result of resultSize bytes
// and a reply, with one call left dangling in the middle.
func writeChatBody(b *testing.B, path string, size int64, resultSize int) int {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	payload, _ := json.Marshal(map[string]string{"content": strings.Repeat("lorem ipsum dolor sit amet ", resultSize/27)})
	result, _ := json.Marshal(string(payload))
	fmt.Fprint(w, `{"model":"gpt-4o","stream":true,"messages":[{"role":"system","content":"You manage files."}`)
	written, n := int64(0), 0
	for i := 0; written < size; i++ {
		s := fmt.Sprintf(`,{"role":"user","content":"read /data/%d"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"readFile","arguments":"{\"path\":\"/data/%d\"}"}}]}`, i, i, i)
		s += fmt.Sprintf(`,{"role":"tool","tool_call_id":"call_%d","content":%s},{"role":"assistant","content":"Read /data/%d."}`, i, result, i)
		if i == 10 {
			s += `,{"role":"user","content":"stop"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_dangling","type":"function","function":{"name":"deleteFile","arguments":"{}"}}]}`
		}
		w.WriteString(s)
		written += int64(len(s))
		n += 4
	}
	w.WriteString("]}")
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return n
}

// writeJournal writes a journal of about size bytes: one entry per model
// call of growing conversations, every tenth call left without a result.
// It returns the entries and the findings they hold.
func writeJournal(b *testing.B, path string, size int64) (int, int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	out := strings.Repeat("x", 2000)
	written, n, findings := int64(0), 0, 0
	for conv := 0; written < size; conv++ {
		var prompt []string
		for call := 1; call <= 20 && written < size; call++ {
			prompt = append(prompt, fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":"step %d"}]}`, call),
				fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c%d_%d","toolName":"readFile","input":{}}]}`, conv, call))
			if call%10 != 0 {
				prompt = append(prompt, fmt.Sprintf(`{"role":"tool","content":[{"type":"tool-result","toolCallId":"c%d_%d","toolName":"readFile","output":{"type":"text","value":%q}}]}`, conv, call, out))
			}
			line := fmt.Sprintf(`{"scenario":"conversation %d","call":%d,"turn":%d,"mode":"generate","prompt":[%s],"tools":["readFile"],"verdict":"ok","status":200}`+"\n",
				conv, call, call-1, strings.Join(prompt, ","))
			w.WriteString(line)
			written += int64(len(line))
			n++
			findings += call / 10 // one dangling call per ten so far
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return n, findings
}

// peakHeap runs fn and, every few hundred messages, collects garbage and
// samples the live heap and the heap obtained from the system.
func peakHeap(fn func()) (live, sys uint64) {
	var ms runtime.MemStats
	count := 0
	sample := func() {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		live, sys = max(live, ms.HeapAlloc), max(sys, ms.HeapSys)
	}
	sampleMessage = func() {
		if count++; count%256 == 0 {
			sample()
		}
	}
	defer func() { sampleMessage = nil }()
	fn()
	sample()
	return live, sys
}

func benchLint(b *testing.B, path string, wantFindings int) {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	var live, sys uint64
	b.ResetTimer()
	for range b.N {
		l, s := peakHeap(func() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			res, err := Read(f, Options{})
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Findings) != wantFindings {
				b.Fatalf("%d findings, want %d", len(res.Findings), wantFindings)
			}
		})
		live, sys = max(live, l), max(sys, s)
	}
	b.StopTimer()
	b.ReportMetric(float64(st.Size())/(1<<20), "file-MB")
	b.ReportMetric(float64(live)/(1<<20), "peak-live-MB")
	b.ReportMetric(float64(sys)/(1<<20), "heap-sys-MB")
}

// BenchmarkLintLargeBody lints one request body of hundreds of megabytes
// (ACK_LINT_BENCH_MB) made of 64 kB tool results: the peak heap stays at a
// few messages plus the skeleton, not the file.
func BenchmarkLintLargeBody(b *testing.B) {
	path := filepath.Join(b.TempDir(), "body.json")
	n := writeChatBody(b, path, benchSize(b), 64<<10)
	b.Logf("%d messages", n)
	benchLint(b, path, 1)
}

// BenchmarkLintLargeJournal lints a journal of hundreds of megabytes, one
// growing prompt per entry.
func BenchmarkLintLargeJournal(b *testing.B) {
	path := filepath.Join(b.TempDir(), "journal.jsonl")
	n, findings := writeJournal(b, path, benchSize(b))
	b.Logf("%d entries", n)
	benchLint(b, path, findings)
}

// writeUIBody writes a useChat request body of about size bytes: exchanges
// of a user message and an assistant message whose tool part has an output
// of resultSize bytes, with one approval left unanswered before a new user
// message in the middle (one finding). It returns the messages written.
func writeUIBody(tb testing.TB, path string, size int64, resultSize int) int {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	output, _ := json.Marshal(map[string]string{"content": strings.Repeat("lorem ipsum dolor sit amet ", resultSize/27)})
	fmt.Fprint(w, `{"id":"chat_big","messages":[{"id":"s","role":"system","parts":[{"type":"text","text":"You manage files."}]}`)
	written, n := int64(0), 1
	for i := 0; written < size; i++ {
		s := fmt.Sprintf(`,{"id":"u%d","role":"user","parts":[{"type":"text","text":"read /data/%d"}]}`, i, i)
		s += fmt.Sprintf(`,{"id":"a%d","role":"assistant","parts":[{"type":"step-start"},{"type":"tool-readFile","toolCallId":"call_%d","state":"output-available","input":{"path":"/data/%d"},"output":%s,"approval":{"id":"ap_%d","approved":true}},{"type":"text","text":"Read /data/%d.","state":"done"}]}`, i, i, i, output, i, i)
		if i == 10 {
			s += `,{"id":"ux","role":"user","parts":[{"type":"text","text":"delete it"}]},{"id":"ax","role":"assistant","parts":[{"type":"step-start"},{"type":"tool-deleteFile","toolCallId":"call_pending","state":"approval-requested","input":{"path":"/data"},"approval":{"id":"ap_pending"}}]}`
			n += 2
		}
		w.WriteString(s)
		written += int64(len(s))
		n += 2
	}
	w.WriteString(`],"trigger":"submit-message"}`)
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	return n
}

// BenchmarkLintLargeUIMessages lints a UI history of hundreds of megabytes
// (ACK_LINT_BENCH_MB): the parts are converted and judged one message at a
// time, and the peak heap stays at a few messages plus the skeleton.
func BenchmarkLintLargeUIMessages(b *testing.B) {
	path := filepath.Join(b.TempDir(), "ui.json")
	n := writeUIBody(b, path, benchSize(b), 64<<10)
	b.Logf("%d messages", n)
	benchLint(b, path, 1)
}
