package limits

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

func TestReader(t *testing.T) {
	for _, c := range []struct {
		in    string
		limit int64
		ok    bool
	}{{"", 0, true}, {"abc", 3, true}, {"abcd", 3, false}, {strings.Repeat("x", 100000), 99999, false}, {strings.Repeat("x", 100000), 100000, true}} {
		data, err := io.ReadAll(NewReader(strings.NewReader(c.in), c.limit, "the reply", "max-reply-bytes"))
		var tl *TooLarge
		switch {
		case c.ok && (err != nil || string(data) != c.in):
			t.Errorf("%d bytes, limit %d: %v, %d read", len(c.in), c.limit, err, len(data))
		case !c.ok && (!errors.As(err, &tl) || int64(len(data)) != c.limit):
			t.Errorf("%d bytes, limit %d: %v, %d read", len(c.in), c.limit, err, len(data))
		}
	}
	err := &TooLarge{What: "the reply", Limit: 10, Flag: "max-reply-bytes"}
	if err.Error() != "the reply is larger than 10 bytes (the limit, --max-reply-bytes)" {
		t.Error(err)
	}
}

func TestRegister(t *testing.T) {
	var l Limits
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	l.Register(fs, HeaderTimeout, Steps, Sessions)
	if err := fs.Parse([]string{"--header-timeout", "2s", "--max-steps", "7"}); err != nil {
		t.Fatal(err)
	}
	if l.HeaderTimeout != 2*time.Second || l.Steps != 7 || l.Sessions != DefaultSessions || l.RequestBytes != DefaultRequestBytes {
		t.Errorf("%+v", l)
	}
	if fs.Lookup("max-calls") != nil {
		t.Error("a flag not asked for was registered")
	}
	if err := fs.Parse([]string{"--max-steps", "0"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err == nil || err.Error() != "--max-steps: must be positive" {
		t.Errorf("check: %v", err)
	}
}
