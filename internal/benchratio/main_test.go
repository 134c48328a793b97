package main

import (
	"strings"
	"testing"
)

const output = `goos: linux
BenchmarkDecode/messages=10/strict-2         	  100	  1000 ns/op	 100.0 ns/message	 9 allocs/op
BenchmarkDecode/messages=10/baseline=json-2  	  100	  4000 ns/op	 400.0 ns/message	 9 allocs/op
BenchmarkDecode/messages=1000/strict-2       	  10	  120000 ns/op	 120.0 ns/message
BenchmarkDecode/messages=1000/baseline=json-2	  10	  400000 ns/op	 400.0 ns/message
BenchmarkCall/stream=false/simulator-2       	  10	  50000 ns/op	 40000 cpu-ns/op	 30000 p50-ns
BenchmarkCall/stream=false/simulator-2       	  10	  70000 ns/op	 60000 cpu-ns/op	 30000 p50-ns
BenchmarkCall/stream=false/simulator-2       	  10	  60000 ns/op	 50000 cpu-ns/op	 30000 p50-ns
BenchmarkCall/stream=false/baseline=net-http-2	  10	  40000 ns/op	 45000 cpu-ns/op
BenchmarkCheck/messages=10-2                 	  10	  1000 ns/op	 50.0 cpu-ns/message
BenchmarkCheck/messages=100000-2             	  10	  10000000 ns/op	 75.0 cpu-ns/message
BenchmarkSuite-2                             	  1	  5 suites/s
PASS
`

func TestRatios(t *testing.T) {
	var echo, out strings.Builder
	all, err := parse(strings.NewReader(output), &echo)
	if err != nil {
		t.Fatal(err)
	}
	if echo.String() != output {
		t.Fatal("the input was not passed through as it came")
	}
	if missing := report(&out, all); missing != 1 {
		t.Errorf("%d without a baseline, want 1 (the suite)", missing)
	}
	for _, want := range []string{
		"Decode/messages=10/strict\n    1000 ns/op  100 ns/message  9.00 allocs/op\n    -> 4.00x json (ns/op, throughput)",
		"Decode/messages=1000/strict\n    120000 ns/op  120 ns/message\n    -> 3.33x json (ns/op, throughput); 1.20 of the cost at messages=10 (ns/message)",
		"Decode/messages=10/baseline=json\n    4000 ns/op  400 ns/message  9.00 allocs/op\n    -> the baseline; 1.00 (the smallest messages, ns/message)",
		"Call/stream=false/simulator\n    60000 ns/op  50000 cpu-ns/op  30000 p50-ns\n    -> 0.90x net-http (cpu-ns/op, throughput)",
		"Check/messages=100000\n    10000000 ns/op  75.00 cpu-ns/message\n    -> 1.50 of the cost at messages=10 (cpu-ns/message)",
		"Check/messages=10\n", "-> 1.00 (the smallest messages, cpu-ns/message)",
		"Suite\n    5.00 suites/s\n    -> no baseline in this run",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
}
