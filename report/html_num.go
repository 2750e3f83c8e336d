package report

import (
	"fmt"
	"html"
	"html/template"
	"strconv"
	"strings"

	"github.com/repoprep/repoprep/internal/numfmt"
)

// Every figure on report.html is written by one of the functions below as
//
//	<data value="RAW" data-src="SOURCE">shown</data>
//
// so a test (and a reader with the browser's inspector) can tell where it
// came from and check it against that file. SOURCE is
//
//	FILE ":" EXPR [ "|minus:" INT ]
//
// FILE is report (report.json), files (files.json), secrets (secrets.json)
// or instructions (instructions.json). EXPR is a JSON path into the file
// (audit.tokens, audit.categories[0].files, refresh.not_reused.changed) or,
// for files and secrets, an aggregate over its entries (files.json's files,
// secrets.json's findings):
//
//	count(PREDS)          entries matching every predicate
//	sum(FIELD;PREDS)      the sum of a numeric field over them
//	distinct(FIELD;PREDS) the number of distinct values of a field
//
// PREDS is empty or predicates joined by ',': FIELD (true, or non-empty),
// !FIELD (false, or empty), FIELD=VALUE (a string field equal to VALUE; a
// value's '%', ',', ')', ';' and '|' are written %XX). "|minus:N" takes N
// away: the "and N more" under a list cut at N rows.

// figure is one <data> element: raw is the value as the JSON holds it.
func figure(raw, src, shown string) template.HTML {
	return template.HTML(`<data value="` + html.EscapeString(raw) + `" data-src="` + html.EscapeString(src) + `">` + html.EscapeString(shown) + `</data>`)
}

// numInt is a count (files, tokens, findings) with thousands separators.
func numInt[N int | int64](n N, src string) template.HTML {
	return figure(strconv.FormatInt(int64(n), 10), src, numfmt.Int(n))
}

// numBytes is a size, shown in binary units, its value in bytes.
func numBytes(n int64, src string) template.HTML {
	return figure(strconv.FormatInt(n, 10), src, numfmt.Bytes(n))
}

// numSeconds is a time in seconds, shown to the hundredth.
func numSeconds(s float64, src string) template.HTML {
	return figure(strconv.FormatFloat(s, 'f', -1, 64), src, fmt.Sprintf("%.2f s", s))
}

// srcReport names a field of report.json.
func srcReport(path string, args ...any) string { return "report:" + fmt.Sprintf(path, args...) }

// srcAgg names an aggregate over files.json's or secrets.json's entries.
func srcAgg(file, fn, field string, preds ...string) string {
	var b strings.Builder
	b.WriteString(file + ":" + fn + "(")
	if field != "" {
		b.WriteString(field + ";")
	}
	b.WriteString(strings.Join(preds, ","))
	b.WriteString(")")
	return b.String()
}

// eq is the predicate FIELD=VALUE with VALUE escaped.
func eq(field, value string) string { return field + "=" + escapeSrcValue(value) }

// minus is src less n: the rows a list leaves out.
func minus(src string, n int) string { return src + "|minus:" + strconv.Itoa(n) }

var srcValueEscaper = strings.NewReplacer("%", "%25", ",", "%2C", ")", "%29", ";", "%3B", "|", "%7C")

func escapeSrcValue(s string) string { return srcValueEscaper.Replace(s) }
