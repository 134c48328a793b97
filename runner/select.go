package runner

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v26"
	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"

	"github.com/approval-conformance-kit/ack/steps"
)

// Listed is a scenario of the suite as the runner selects it: its id (as
// reports name it) and its tags.
type Listed struct {
	ID   string
	Tags []string
}

// listScenarios parses the features as godog does (the paths of fsys,
// then the compiled YAML scenarios) and lists every scenario, an outline's
// rows each on their own, in file order.
func listScenarios(fsys fs.FS, paths []string, contents []godog.Feature) ([]Listed, error) {
	var out []Listed
	newID := (&messages.Incrementing{}).NewId
	add := func(uri string, data []byte, line int64) error {
		doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(data), newID)
		if err != nil {
			return fmt.Errorf("%s: %w", uri, err)
		}
		scenarioLine := map[string]int64{}
		if line >= 0 && doc.Feature != nil {
			collectLines(doc.Feature.Children, scenarioLine)
		}
		for _, p := range gherkin.Pickles(*doc, uri, newID) {
			if line >= 0 && (len(p.AstNodeIds) == 0 || scenarioLine[p.AstNodeIds[0]] != line) {
				continue
			}
			id := steps.ScenarioID(uri, p.Name)
			if line >= 0 { // godog names such a scenario by file and line
				id = steps.ScenarioID(fmt.Sprintf("%s:%d", uri, line), p.Name)
			}
			l := Listed{ID: id}
			for _, t := range p.Tags {
				l.Tags = append(l.Tags, t.Name)
			}
			out = append(out, l)
		}
		return nil
	}
	for _, p := range paths {
		p, line := splitLine(p)
		st, err := fs.Stat(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("feature path %q: %w", p, err)
		}
		if !st.IsDir() {
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return nil, err
			}
			if err := add(p, data, line); err != nil {
				return nil, err
			}
			continue
		}
		err = fs.WalkDir(fsys, p, func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(name, ".feature") {
				return err
			}
			data, err := fs.ReadFile(fsys, name)
			if err != nil {
				return err
			}
			return add(name, data, -1)
		})
		if err != nil {
			return nil, err
		}
	}
	for _, c := range contents {
		if err := add(c.Name, c.Contents, -1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// collectLines maps each scenario's AST node id to its line.
func collectLines(children []*messages.FeatureChild, into map[string]int64) {
	for _, c := range children {
		switch {
		case c.Scenario != nil:
			into[c.Scenario.Id] = c.Scenario.Location.Line
		case c.Rule != nil:
			for _, rc := range c.Rule.Children {
				if rc.Scenario != nil {
					into[rc.Scenario.Id] = rc.Scenario.Location.Line
				}
			}
		}
	}
}

// splitLine splits godog's "file.feature:12" into the path and the line
// (-1 when none is given).
func splitLine(p string) (string, int64) {
	i := strings.LastIndexByte(p, ':')
	if i < 0 || path.Ext(p[:i]) != ".feature" {
		return p, -1
	}
	n, err := strconv.ParseInt(p[i+1:], 10, 64)
	if err != nil {
		return p, -1
	}
	return p[:i], n
}
