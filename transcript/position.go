package transcript

import (
	"bufio"
	"io"
	"sort"
)

// Pos is a place in an input: a byte offset, and its 1-based line and column
// (0 when unknown).
type Pos struct {
	Offset int64 `json:"offset"`
	Line   int   `json:"line,omitempty"`
	Column int   `json:"column,omitempty"`
}

// Locate reads r once and gives the line and column of each offset. An
// offset that points at the blank, comma or colon before a value is moved
// to the value, so the line is the value's own.
func Locate(r io.Reader, offsets []int64) (map[int64]Pos, error) {
	out := make(map[int64]Pos, len(offsets))
	if len(offsets) == 0 {
		return out, nil
	}
	sorted := append([]int64(nil), offsets...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	br := bufio.NewReaderSize(r, 64<<10)
	var at int64
	line, col := 1, 1
	next := 0
	// pending are offsets reached but still on filler bytes.
	var pending []int64
	for next < len(sorted) || len(pending) > 0 {
		for next < len(sorted) && sorted[next] <= at {
			pending = append(pending, sorted[next])
			next++
		}
		b, err := br.ReadByte()
		if err != nil {
			for _, o := range pending {
				out[o] = Pos{Offset: o, Line: line, Column: col}
			}
			for _, o := range sorted[next:] {
				out[o] = Pos{Offset: o}
			}
			if err == io.EOF {
				return out, nil
			}
			return out, err
		}
		if len(pending) > 0 && !filler(b) {
			for _, o := range pending {
				out[o] = Pos{Offset: o, Line: line, Column: col}
			}
			pending = pending[:0]
		}
		at++
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return out, nil
}

func filler(b byte) bool {
	switch b {
	case ' ', '\t', '\r', '\n', ',', ':':
		return true
	}
	return false
}
