package simulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// ParseScript reads a script file: JSON, or YAML with the same field
// names. Unknown fields are errors; errors name the file and the field.
// A latency is a Go duration string ("150ms") or nanoseconds.
func ParseScript(name string, data []byte) (Script, error) {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Script{}, fmt.Errorf("%s: %w", name, err)
	}
	doc, err := latencies(doc, "")
	if err != nil {
		return Script{}, fmt.Errorf("%s: %w", name, err)
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return Script{}, fmt.Errorf("%s: %w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var s Script
	if err := dec.Decode(&s); err != nil {
		return Script{}, fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "json: "))
	}
	if len(s.Turns) == 0 {
		return Script{}, fmt.Errorf("%s: turns: the script has no turn", name)
	}
	if err := s.Validate(); err != nil {
		return Script{}, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// latencies turns "latency" duration strings into nanoseconds, and YAML
// maps into JSON objects.
func latencies(v any, path string) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := path + "." + k
			if k == "latency" {
				if s, ok := e.(string); ok {
					d, err := parseDuration(s)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", strings.TrimPrefix(p, "."), err)
					}
					x[k] = d
					continue
				}
			}
			out, err := latencies(e, p)
			if err != nil {
				return nil, err
			}
			x[k] = out
		}
		return x, nil
	case []any:
		for i, e := range x {
			out, err := latencies(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			x[i] = out
		}
		return x, nil
	}
	return v, nil
}

func parseDuration(s string) (int64, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("not a duration: %q", s)
	}
	return int64(d), nil
}
