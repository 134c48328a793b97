// Package semver reads release versions as the registries publish them
// (npm's 7.0.173 and 4.0.0-beta.107, the Go module proxy's v1.7.0): it
// parses and orders them, and names the release line each belongs to.
package semver

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Version is a release's version.
type Version struct {
	raw                 string
	major, minor, patch int
	pre                 []string
}

// String is the version as it was written.
func (v Version) String() string { return v.raw }

// Major is its major number.
func (v Version) Major() int { return v.major }

// Minor is its minor number.
func (v Version) Minor() int { return v.minor }

// Patch is its patch number.
func (v Version) Patch() int { return v.patch }

// Parse reads MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD], with or
// without Go's leading v.
func Parse(s string) (Version, error) {
	v := Version{raw: s}
	core := strings.TrimPrefix(s, "v")
	core, _, _ = strings.Cut(core, "+")
	core, pre, hasPre := strings.Cut(core, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return v, fmt.Errorf("%q is not a version MAJOR.MINOR.PATCH", s)
	}
	fields := []*int{&v.major, &v.minor, &v.patch}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || (len(p) > 1 && p[0] == '0') {
			return v, fmt.Errorf("%q is not a version MAJOR.MINOR.PATCH", s)
		}
		*fields[i] = n
	}
	if hasPre {
		if pre == "" {
			return v, fmt.Errorf("%q: empty pre-release", s)
		}
		v.pre = strings.Split(pre, ".")
	}
	return v, nil
}

// Prerelease reports whether the version is a pre-release (a beta, an rc).
func (v Version) Prerelease() bool { return len(v.pre) > 0 }

// Line names the release line the version belongs to: its major version,
// or for 0.x, where every minor version may break, 0.MINOR.
func (v Version) Line() string {
	if v.major == 0 {
		return fmt.Sprintf("0.%d", v.minor)
	}
	return strconv.Itoa(v.major)
}

// compareParsed orders versions as semantic versioning does: a
// pre-release before its release, numeric identifiers numerically.
func compareParsed(a, b Version) int {
	if c := cmp.Or(cmp.Compare(a.major, b.major), cmp.Compare(a.minor, b.minor), cmp.Compare(a.patch, b.patch)); c != 0 {
		return c
	}
	switch {
	case len(a.pre) == 0 && len(b.pre) == 0:
		return 0
	case len(a.pre) == 0:
		return 1
	case len(b.pre) == 0:
		return -1
	}
	for i := 0; i < len(a.pre) && i < len(b.pre); i++ {
		x, y := a.pre[i], b.pre[i]
		nx, errx := strconv.Atoi(x)
		ny, erry := strconv.Atoi(y)
		var c int
		switch {
		case errx == nil && erry == nil:
			c = cmp.Compare(nx, ny)
		case errx == nil:
			c = -1
		case erry == nil:
			c = 1
		default:
			c = strings.Compare(x, y)
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a.pre), len(b.pre))
}

// Compare orders two version strings; one that does not parse
// sorts before every one that does, then by its text.
func Compare(a, b string) int {
	va, erra := Parse(a)
	vb, errb := Parse(b)
	switch {
	case erra != nil && errb != nil:
		return strings.Compare(a, b)
	case erra != nil:
		return -1
	case errb != nil:
		return 1
	}
	return compareParsed(va, vb)
}

// Sort sorts version strings in place, oldest first.
func Sort(vs []string) { slices.SortFunc(vs, Compare) }

// LineOf names the line of a version string ("" when it does not parse).
func LineOf(version string) string {
	v, err := Parse(version)
	if err != nil {
		return ""
	}
	return v.Line()
}
