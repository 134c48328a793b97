package report

// EvidenceText lays out what a scenario observed as plain text, at most
// maxBytes long: the model calls with their prompts, the tool runs and the
// turns, as the Markdown report shows them (for a test's log, say).
func EvidenceText(ev *Evidence, maxBytes int) string { return evidenceText(ev, maxBytes) }
