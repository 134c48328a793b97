// Package scenarios embeds the YAML scenarios of this directory tree, so
// the conformance binary carries them; a file added here runs with no Go
// change. The format is documented in docs/scenarios.md.
package scenarios

import "embed"

// FS holds the *.yaml files of this directory and its subdirectories.
//
//go:embed */*.yaml
var FS embed.FS
