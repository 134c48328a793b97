package main

import (
	"strings"
	"testing"
)

const events = `{"Action":"start","Package":"a"}
{"Action":"run","Package":"a","Test":"TestOK"}
{"Action":"output","Package":"a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"pass","Package":"a","Test":"TestOK","Elapsed":0}
{"Action":"run","Package":"a","Test":"TestNode"}
{"Action":"output","Package":"a","Test":"TestNode","Output":"=== RUN   TestNode\n"}
{"Action":"output","Package":"a","Test":"TestNode","Output":"    node_test.go:31: Node is not installed\n"}
{"Action":"output","Package":"a","Test":"TestNode","Output":"--- SKIP: TestNode (0.00s)\n"}
{"Action":"skip","Package":"a","Test":"TestNode","Elapsed":0}
{"Action":"pass","Package":"a","Elapsed":1.5}
{"Action":"skip","Package":"b"}
{"Action":"run","Package":"c","Test":"TestBad"}
{"Action":"output","Package":"c","Test":"TestBad","Output":"    bad_test.go:9: got 1, want 2\n"}
{"Action":"output","Package":"c","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"c","Test":"TestBad","Elapsed":0}
{"Action":"output","Package":"c","Output":"FAIL\n"}
{"Action":"fail","Package":"c","Elapsed":0.2}
not json: the go command speaking
`

func TestSummary(t *testing.T) {
	var out strings.Builder
	failed, err := run(strings.NewReader(events), &out)
	if err != nil || !failed {
		t.Fatalf("failed=%v err=%v, want a failure", failed, err)
	}
	for _, want := range []string{
		"ok  \ta\t1.500s\n", "?   \tb\t[no test files]\n", "bad_test.go:9: got 1, want 2", "FAIL\tc\t0.200s\n",
		"not json: the go command speaking\n",
		"SKIPPED: 1 test(s) did not run:\nSKIP\ta\tTestNode: node_test.go:31: Node is not installed\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "TestOK") {
		t.Errorf("a passing test's output was printed:\n%s", out.String())
	}
}

func TestBuildFailureFails(t *testing.T) {
	var out strings.Builder
	failed, _ := run(strings.NewReader(`{"ImportPath":"x","Action":"build-output","Output":"x.go:1: syntax error\n"}
{"ImportPath":"x","Action":"build-fail"}
{"Action":"fail","Package":"x","Elapsed":0,"FailedBuild":"x"}
`), &out)
	if !failed || !strings.Contains(out.String(), "x.go:1: syntax error") {
		t.Fatalf("failed=%v, output:\n%s", failed, out.String())
	}
}
