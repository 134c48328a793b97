package cputime

import "testing"

func TestMeterCountsWork(t *testing.T) {
	m := Start()
	x := 0
	for i := 0; i < 200_000_000; i++ {
		x += i % 7
	}
	if x == 0 {
		t.Fatal("the loop did nothing")
	}
	if m.Elapsed() <= 0 {
		t.Fatalf("200M iterations used %v of CPU time", m.Elapsed())
	}
	if got := m.PerOp(0); got != 0 {
		t.Fatalf("PerOp(0) = %v, want 0", got)
	}
}
