package runner

import (
	"io"

	"github.com/cucumber/godog"
	"github.com/cucumber/godog/formatters"
	messages "github.com/cucumber/messages/go/v21"
)

// silentFormat is godog's output format when the caller asks for none: the
// runner reads verdicts from its own records, so godog formats nothing
// (its summary formatters also cost time and cannot place the steps of
// generated features).
const silentFormat = "ack-silent"

func init() {
	godog.Format(silentFormat, "no output", func(string, io.Writer) formatters.Formatter { return silent{} })
}

// silent is a godog formatter that writes nothing.
type silent struct{}

func (silent) TestRunStarted()                                                            {}
func (silent) Feature(*messages.GherkinDocument, string, []byte)                          {}
func (silent) Pickle(*messages.Pickle)                                                    {}
func (silent) Defined(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {}
func (silent) Failed(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition, error) {
}
func (silent) Passed(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition)    {}
func (silent) Skipped(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition)   {}
func (silent) Undefined(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition) {}
func (silent) Pending(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition)   {}
func (silent) Ambiguous(*messages.Pickle, *messages.PickleStep, *formatters.StepDefinition, error) {
}
func (silent) Summary() {}
