package runner

import (
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"

	"github.com/approval-conformance-kit/ack/internal/gherkindoc"
	"github.com/approval-conformance-kit/ack/steps"
)

// Listed is a scenario of the suite as the runner selects it: its id (as
// reports name it) and its tags.
type Listed struct {
	ID   string
	Tags []string
}

func listed(p *godog.Scenario) Listed {
	l := Listed{ID: steps.ScenarioID(p.Uri, p.Name)}
	for _, t := range p.Tags {
		l.Tags = append(l.Tags, t.Name)
	}
	return l
}

// readFeatures parses the features at the paths of fsys as godog reads
// them: a directory's *.feature files in lexical order, a file, or a
// file's scenario at a line ("file.feature:12": its pickles are named by
// that path and line); a file named twice is read once.
func readFeatures(fsys fs.FS, paths []string) ([]suiteFile, error) {
	var out []suiteFile
	seen := map[string]bool{}
	add := func(uri string, data []byte, line int64) error {
		doc, err := gherkindoc.Parse(uri, data)
		if err != nil {
			return err
		}
		pickles := doc.Pickles
		if line >= 0 {
			scenarioLine := map[string]int64{}
			if doc.Doc.Feature != nil {
				collectLines(doc.Doc.Feature.Children, scenarioLine)
			}
			uri = fmt.Sprintf("%s:%d", uri, line)
			pickles = nil
			for _, p := range doc.Pickles {
				if len(p.AstNodeIds) > 0 && scenarioLine[p.AstNodeIds[0]] == line {
					p.Uri = uri
					pickles = append(pickles, p)
				}
			}
		}
		if seen[uri] {
			return nil
		}
		seen[uri] = true
		out = append(out, prepare(uri, pickles))
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
			if err != nil || d.IsDir() || !isFeature(name) {
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
