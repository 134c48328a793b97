// Package features embeds the conformance suite's Gherkin features, so the
// conformance binary carries the suite wherever it runs.
package features

import "embed"

// FS holds the *.feature files of this directory.
//
//go:embed *.feature
var FS embed.FS
