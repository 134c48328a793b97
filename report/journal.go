package report

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// encodeJournal writes journal.jsonl: one line per model call of every
// scenario that kept evidence, scenarios in id order, calls in the order
// the scenario made them. Each line is the journal entry (opaque JSON)
// with the scenario's id first:
//
//	{"scenario":"denial.feature: ...","call":1,"turn":0,"mode":"generate",...}
//
// An entry that is not a JSON object, or that has a "scenario" field of
// its own, is kept whole under "entry": {"scenario":"...","entry":...}.
// The requests a chat client made (client role) follow their scenario's
// model calls, one line each, under "chatRequest":
//
//	{"scenario":"chained_continuation.feature: ...","chatRequest":{"n":1,...}}
func encodeJournal(r *Run) ([]byte, error) {
	var b bytes.Buffer
	for _, s := range sortedScenarios(r) {
		if s.Evidence == nil {
			continue
		}
		id, err := marshalCompact(s.ID)
		if err != nil {
			return nil, err
		}
		for i, e := range s.Evidence.ModelCalls {
			raw, err := marshalCompact(e)
			if err != nil {
				return nil, fmt.Errorf("scenario %s: model call %d: %w", s.ID, i+1, err)
			}
			b.WriteString(`{"scenario":`)
			b.Write(id)
			var fields map[string]json.RawMessage
			isObject := len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &fields) == nil
			_, clash := fields["scenario"]
			switch {
			case isObject && !clash && len(fields) > 0:
				b.WriteByte(',')
				b.Write(raw[1:])
			case isObject && !clash:
				b.WriteByte('}')
			default:
				b.WriteString(`,"entry":`)
				b.Write(raw)
				b.WriteByte('}')
			}
			b.WriteByte('\n')
		}
		for i, e := range s.Evidence.ChatRequests {
			raw, err := marshalCompact(e)
			if err != nil {
				return nil, fmt.Errorf("scenario %s: chat request %d: %w", s.ID, i+1, err)
			}
			b.WriteString(`{"scenario":`)
			b.Write(id)
			b.WriteString(`,"chatRequest":`)
			b.Write(raw)
			b.WriteString("}\n")
		}
	}
	return b.Bytes(), nil
}
