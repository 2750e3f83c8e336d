package extract

import (
	"bytes"
	"errors"
	"path"
	"slices"
	"strings"
)

// maxSideParts bounds the parts of one kind read beside a document's main
// part (headers, footers, slide layouts and masters): Word writes up to
// three headers and three footers a section, and a document of many
// sections may repeat them; the rest are left out.
const maxSideParts = 64

// ooxmlRel is one internal relationship of a part.
type ooxmlRel struct {
	id     string
	typ    string // the last segment of the type URI: "header", "chart", "footnotes"
	target string // the part it points to, resolved
}

// relList reads a part's internal relationships in the order of its .rels
// part (as many as a package may have parts); a part without one has none.
func (z *zipDoc) relList(part string) ([]ooxmlRel, error) {
	dir, base := path.Split(part)
	name := dir + "_rels/" + base + ".rels"
	if !z.has(name) {
		return nil, nil
	}
	var out []ooxmlRel
	for e, err := range z.starts(name) {
		if err != nil {
			return nil, err
		}
		if e.Name.Local == "Relationship" && attr(e, "TargetMode") != "External" && len(out) < maxZipEntries {
			out = append(out, ooxmlRel{attr(e, "Id"), path.Base(attr(e, "Type")), resolvePart(dir, attr(e, "Target"))})
		}
	}
	return out, nil
}

// contentTypes reads [Content_Types].xml's overrides: part name (lower
// case, no leading '/') to content type. A package without one has none.
func (z *zipDoc) contentTypes() (map[string]string, error) {
	types := map[string]string{}
	if !z.has("[Content_Types].xml") {
		return types, nil
	}
	for e, err := range z.starts("[Content_Types].xml") {
		if err != nil {
			return nil, err
		}
		if e.Name.Local == "Override" && len(types) < maxZipEntries {
			types[strings.ToLower(strings.TrimPrefix(attr(e, "PartName"), "/"))] = attr(e, "ContentType")
		}
	}
	return types, nil
}

// partOrder sorts part names as people number them: header2.xml before
// header10.xml.
func partOrder(parts []string) {
	slices.SortFunc(parts, func(a, b string) int {
		for a != "" && b != "" {
			da, db := digitRun(a), digitRun(b)
			if da > 0 && db > 0 {
				na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
				if c := len(na) - len(nb); c != 0 {
					return c
				}
				if c := strings.Compare(na, nb); c != 0 {
					return c
				}
				a, b = a[da:], b[db:]
				continue
			}
			if a[0] != b[0] {
				return int(a[0]) - int(b[0])
			}
			a, b = a[1:], b[1:]
		}
		return len(a) - len(b)
	})
}

// digitRun is the length of the run of ASCII digits s starts with.
func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// renderText runs write into a text of its own and returns it: for text
// that is compared before it is written (headers, deduplicated) or that
// goes into a table cell. The text is bounded by the text limit.
func renderText(b *budget, write func(out *textWriter) error) (string, error) {
	var buf bytes.Buffer
	out := newTextWriter(&buf, b.lim.MaxTextBytes)
	if err := write(out); err != nil {
		return "", err
	}
	if err := out.Close(); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// besideMain forgives a part beside a document's main one (a header, a
// note, a chart, an imported chunk, a picture) for being unreadable: the
// document is read without the rest of it. Limits and other errors stand.
func besideMain(err error) error {
	var ref *Refusal
	if errors.As(err, &ref) && ref.Reason == ReasonUnreadable {
		return nil
	}
	return err
}
