package limits

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"
)

// The backoff between the tries of a request refused with 503: the first
// wait is about RetryBase, each next one twice the last, up to RetryMax,
// each drawn between half and all of it (so that clients refused together
// do not come back together).
const (
	RetryBase = 20 * time.Millisecond
	RetryMax  = time.Second
)

// Send sends the request newReq makes, and sends it again (a new request
// each time) while the answer is 503 Service Unavailable: a server at its
// --max-in-flight bound refuses a request before acting on it, so it is
// safe to send again. It waits between tries with exponential backoff and
// jitter, within ctx: when ctx has a deadline and the next wait would end
// past it, it stops and returns the last 503 answer; when ctx ends while
// it waits, the error says so. retries
// counts the tries after the first. An error of the client is returned as
// it is, with no retry.
func Send(ctx context.Context, client *http.Client, newReq func() (*http.Request, error)) (resp *http.Response, retries int, err error) {
	wait := RetryBase
	for {
		req, err := newReq()
		if err != nil {
			return nil, retries, err
		}
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
			return resp, retries, err
		}
		d := wait/2 + rand.N(wait/2+1)
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= d {
			return resp, retries, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, retries, fmt.Errorf("answered 503 Service Unavailable %d times, then: %w", retries+1, ctx.Err())
		case <-t.C:
		}
		retries++
		wait = min(2*wait, RetryMax)
	}
}

// RetriedNote says how often a request was sent again before its last
// answer ("" when it was sent once), for the error that gives that answer.
func RetriedNote(retries int) string {
	switch retries {
	case 0:
		return ""
	case 1:
		return " (sent again once, with backoff, within the timeout)"
	}
	return fmt.Sprintf(" (sent again %d times, with backoff, within the timeout)", retries)
}
