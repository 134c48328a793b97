//go:build !unix

package cputime

import "time"

var origin = time.Now()

// used falls back to wall time where the process's CPU time is not read.
func used() time.Duration { return time.Since(origin) }
