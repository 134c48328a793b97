package reference

import (
	"sync"

	"github.com/approval-conformance-kit/ack/jsonschema"
)

// schemas holds the tool input schemas compiled so far, by their bytes: a
// conversation's turns, and the scenarios of a suite, declare the same few
// tools again and again, and compiling a schema costs more than most of a
// turn. A compiled schema is only read. The cache stops growing at
// maxSchemas (an agent served to many clients may see any number of
// schemas); the schemas past it are compiled each time, as are those
// that do not compile.
var schemas struct {
	sync.RWMutex
	byDoc map[string]*jsonschema.Schema
}

const maxSchemas = 256

// compileSchema compiles a tool's input schema, or returns it compiled
// before.
func compileSchema(doc []byte) (*jsonschema.Schema, error) {
	schemas.RLock()
	s, ok := schemas.byDoc[string(doc)]
	schemas.RUnlock()
	if ok {
		return s, nil
	}
	s, err := jsonschema.Compile(doc)
	if err != nil {
		return nil, err
	}
	schemas.Lock()
	if schemas.byDoc == nil {
		schemas.byDoc = map[string]*jsonschema.Schema{}
	}
	if len(schemas.byDoc) < maxSchemas {
		schemas.byDoc[string(doc)] = s
	}
	schemas.Unlock()
	return s, nil
}
