package extract

import (
	"encoding/xml"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// maxChartPoints and maxChartSeries bound the data of one chart written
// as its table; the rest is counted in a closing line. Real charts plot
// tens to a few thousand points in a handful of series.
const (
	maxChartPoints = 20_000
	maxChartSeries = 1_000
)

// writeChart writes a DrawingML chart part (c:chartSpace, in DOCX, PPTX
// and XLSX alike) from the caches the chart keeps of its data: a line
// "Chart: <title>", its axis titles, then a Markdown table of its data,
// one row per category and one column per series:
//
//	Chart: Sales by region
//	Axis: Quarter
//
//	|  | 2025 | 2026 |
//	| --- | --- | --- |
//	| EMEA | 4.2 | 5.1 |
//
// The values are the cached ones, numbers as General shows them (the
// chart's own number format is not applied).
// A chart in a table cell (nested) writes its table's rows as lines of
// cells joined by " ; ", as a table nested in a cell is written.
func writeChart(z *zipDoc, part string, out *textWriter, nested bool) error {
	s, err := z.xml(part)
	if err != nil {
		return err
	}
	defer s.Close()
	c := &chartReader{b: z.b}
	if err := walkXML(s, c.start, c.end, c.text); err != nil {
		return err
	}
	return c.write(out, nested)
}

// chartSeries is one data series of a chart: its name and its points by
// index.
type chartSeries struct {
	name       string
	cats, vals map[int]string
}

// chartReader is the state of one pass over a chart part. It keeps the
// path of element names open around the current token, so "a c:v in a
// c:pt in the c:cat of a c:ser" is a question about the path.
type chartReader struct {
	b      *budget
	path   []string // local names of the open elements, maxXMLDepth at most
	deep   int      // elements open below maxXMLDepth, not in path
	extra  bool     // in a series beyond maxChartSeries
	title  strings.Builder
	titles []string // the chart's title, then axis titles
	axes   []string
	series []*chartSeries
	points int // points kept, against maxChartPoints
	cut    int // points beyond maxChartPoints
	idx    int // the idx of the open c:pt
	inText bool
	value  strings.Builder
}

// at reports whether the open element at depth i (from the root) is
// named name.
func (c *chartReader) at(i int, name string) bool {
	return i >= 0 && i < len(c.path) && c.path[i] == name
}

// seriesDepth is the depth of the open c:ser, -1 outside one.
func (c *chartReader) seriesDepth() int {
	for i := len(c.path) - 1; i >= 0; i-- {
		if c.path[i] == "ser" {
			return i
		}
	}
	return -1
}

func (c *chartReader) start(e xml.StartElement) error {
	if len(c.path) >= maxXMLDepth {
		c.deep++
		return nil
	}
	c.path = append(c.path, e.Name.Local)
	switch e.Name.Local {
	case "title":
		c.title.Reset()
	case "ser":
		if c.extra = len(c.series) >= maxChartSeries; c.extra {
			c.cut++
			return nil
		}
		c.series = append(c.series, &chartSeries{cats: map[int]string{}, vals: map[int]string{}})
	case "pt":
		c.idx, _ = strconv.Atoi(attr(e, "idx"))
	case "t", "v":
		c.inText = true
		c.value.Reset()
	case "p":
		if c.in("title") && c.title.Len() > 0 {
			c.title.WriteByte(' ')
		}
	}
	return nil
}

// in reports whether an element named name is open.
func (c *chartReader) in(name string) bool { return slices.Contains(c.path, name) }

func (c *chartReader) text(t []byte) error {
	if !c.inText {
		return nil
	}
	c.value.Write(t)
	return c.b.hold(c.value.Len())
}

func (c *chartReader) end(e xml.EndElement) error {
	if c.deep > 0 {
		c.deep--
		return nil
	}
	if len(c.path) == 0 {
		return nil
	}
	depth := len(c.path) - 1
	c.path = c.path[:depth]
	switch e.Name.Local {
	case "ser":
		c.extra = false
	case "t", "v":
		c.inText = false
		return c.got(c.value.String())
	case "title":
		t := oneLine(c.title.String())
		switch {
		case t == "":
		case c.at(depth-1, "chart"):
			c.titles = append(c.titles, t)
		case depth >= 1 && strings.HasSuffix(c.path[depth-1], "Ax"): // catAx, valAx, dateAx, serAx
			c.axes = append(c.axes, t)
		}
	}
	return nil
}

// got places the text of a t or v by where it sits: a title's text, a
// series name, a category or a value.
func (c *chartReader) got(s string) error {
	if c.in("title") {
		c.title.WriteString(s)
		return c.b.hold(c.title.Len())
	}
	ser := c.seriesDepth()
	if ser < 0 || len(c.series) == 0 || c.extra {
		return nil
	}
	cur := c.series[len(c.series)-1]
	switch {
	case c.at(ser+1, "tx"):
		if cur.name == "" {
			cur.name = oneLine(s)
		}
	case !c.at(len(c.path)-1, "pt"):
		// formatCode, ptCount...: not data
	case c.at(ser+1, "cat"), c.at(ser+1, "xVal"):
		return c.point(cur.cats, s, true)
	case c.at(ser+1, "val"), c.at(ser+1, "yVal"):
		return c.point(cur.vals, s, false)
	}
	return nil
}

// point keeps one data point. Categories in levels (a multi-level axis)
// join, innermost first, as "Q1 / 2025". A number from a number cache is
// written as General shows it (4.4000000000000004 is 4.4).
func (c *chartReader) point(m map[int]string, s string, joins bool) error {
	if c.in("numCache") || c.in("numLit") {
		if v, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			// As General shows it: Excel's 15 significant digits.
			v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 15, 64), 64)
			s = generalNumber(strconv.FormatFloat(v, 'f', -1, 64), v)
		}
	}
	if old, ok := m[c.idx]; ok {
		if joins && old != "" {
			m[c.idx] = old + " / " + s
		}
		return nil
	}
	if c.points >= maxChartPoints {
		c.cut++
		return nil
	}
	c.points++
	m[c.idx] = s
	return c.b.cell(1)
}

func (c *chartReader) write(out *textWriter, nested bool) error {
	if len(c.titles) == 0 && len(c.axes) == 0 && c.points == 0 && !slices.ContainsFunc(c.series, func(s *chartSeries) bool { return s.name != "" }) {
		return out.Err() // a chart with nothing to say in words
	}
	out.Blank()
	if len(c.titles) > 0 {
		out.Line("Chart: " + strings.Join(c.titles, " / "))
	} else {
		out.Line("Chart")
	}
	for _, a := range c.axes {
		out.Line("Axis: " + a)
	}
	// Rows: every point index any series has, in order.
	var idxs []int
	seen := map[int]bool{}
	for _, s := range c.series {
		for _, m := range []map[int]string{s.cats, s.vals} {
			for i := range m {
				if !seen[i] {
					seen[i] = true
					idxs = append(idxs, i)
				}
			}
		}
	}
	slices.Sort(idxs)
	var tb table
	head := []string{""}
	for i, s := range c.series {
		name := s.name
		if name == "" {
			name = fmt.Sprintf("Series %d", i+1)
		}
		head = append(head, name)
	}
	if err := tb.add(head, c.b); err != nil {
		return err
	}
	for _, i := range idxs {
		row := []string{""}
		for _, s := range c.series {
			if row[0] == "" {
				row[0] = s.cats[i]
			}
			row = append(row, s.vals[i])
		}
		if err := tb.add(row, c.b); err != nil {
			return err
		}
	}
	switch {
	case len(idxs) > 0 && nested:
		for _, row := range tb.rows {
			if row[0] == "" {
				row = row[1:]
			}
			out.Line(strings.Join(row, " ; "))
		}
	case len(idxs) > 0:
		if err := tb.write(out); err != nil {
			return err
		}
	case len(c.series) > 0:
		out.Line("Series: " + strings.Join(head[1:], ", "))
	}
	if c.cut > 0 {
		out.Linef("[chart data cut: %d more points or series]", c.cut)
	}
	out.Blank()
	return out.Err()
}

// maxXMLDepth bounds the element path kept by readers that keep one.
const maxXMLDepth = 256

// writeDiagram writes the text of a SmartArt diagram from its data model
// part (dgm:dataModel): each node's paragraphs, a line each, in the order
// the model lists them. The connectors between nodes (parTrans, sibTrans)
// and the layout's own points carry no text of the document's.
func writeDiagram(z *zipDoc, part string, out *textWriter) error {
	s, err := z.xml(part)
	if err != nil {
		return err
	}
	defer s.Close()
	var para strings.Builder
	inText, keep := false, true
	out.Blank()
	err = walkXML(s,
		func(e xml.StartElement) error {
			switch e.Name.Local {
			case "pt":
				t := attr(e, "type")
				keep = t == "" || t == "node" || t == "asst"
			case "p":
				para.Reset()
			case "t":
				// a:t holds the text; dgm:t is the text body around it.
				inText = !strings.HasSuffix(e.Name.Space, "/diagram")
			case "br":
				para.WriteByte('\n')
			}
			return nil
		},
		func(e xml.EndElement) error {
			switch e.Name.Local {
			case "t":
				inText = false
			case "p":
				if keep && strings.TrimSpace(para.String()) != "" {
					return out.Line(para.String())
				}
			}
			return nil
		},
		func(t []byte) error {
			if inText {
				para.Write(t)
				return z.b.hold(para.Len())
			}
			return nil
		})
	if err != nil {
		return err
	}
	out.Blank()
	return out.Err()
}
