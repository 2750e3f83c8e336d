package extract

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Output summaries: an agent needs to see what a cell printed, not ten
// thousand lines of a training log.
const (
	maxOutputLines = 20
	maxOutputBytes = 2000
)

// nbText is a notebook string: one string or a list of lines.
type nbText string

func (t *nbText) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = nbText(s)
		return nil
	}
	var lines []string
	if err := json.Unmarshal(b, &lines); err != nil {
		return fmt.Errorf("neither a string nor a list of strings")
	}
	*t = nbText(strings.Join(lines, ""))
	return nil
}

type nbOutput struct {
	OutputType string                     `json:"output_type"`
	Name       string                     `json:"name"`
	Text       nbText                     `json:"text"`
	Data       map[string]json.RawMessage `json:"data"`
	Ename      string                     `json:"ename"`
	Evalue     string                     `json:"evalue"`
}

type nbCell struct {
	CellType       string              `json:"cell_type"`
	Source         nbText              `json:"source"`
	Input          nbText              `json:"input"` // nbformat 3
	ExecutionCount *int                `json:"execution_count"`
	PromptNumber   *int                `json:"prompt_number"` // nbformat 3
	Outputs        []nbOutput          `json:"outputs"`
	Attachments    map[string]struct{} `json:"attachments"`
}

type notebook struct {
	Cells      []nbCell `json:"cells"`
	Worksheets []struct {
		Cells []nbCell `json:"cells"`
	} `json:"worksheets"` // nbformat 3
	Metadata struct {
		Kernelspec struct {
			Language string `json:"language"`
		} `json:"kernelspec"`
		LanguageInfo struct {
			Name string `json:"name"`
		} `json:"language_info"`
	} `json:"metadata"`
	NBFormat int `json:"nbformat"`
}

// extractIPYNB writes a Jupyter notebook's cells in order, each behind a
// "--- cell N: type ---" marker: Markdown as it is, code fenced with the
// kernel's language, outputs summarized (text cut to 20 lines, errors as
// their name and value), images and other binary outputs dropped with a
// note saying so.
func extractIPYNB(b *budget, src io.ReaderAt, size int64, out *textWriter) error {
	var nb notebook
	dec := json.NewDecoder(io.NewSectionReader(src, 0, size))
	if err := dec.Decode(&nb); err != nil {
		return unreadable("notebook JSON: %v", err)
	}
	if err := b.alive(); err != nil {
		return err
	}
	cells := nb.Cells
	for _, ws := range nb.Worksheets {
		cells = append(cells, ws.Cells...)
	}
	if nb.NBFormat == 0 && len(cells) == 0 {
		return unreadable("no nbformat and no cells: not a Jupyter notebook")
	}
	lang := nb.Metadata.LanguageInfo.Name
	if lang == "" {
		lang = nb.Metadata.Kernelspec.Language
	}
	for i, c := range cells[:min(len(cells), b.lim.MaxPages)] {
		if err := b.section("cell"); err != nil {
			return err
		}
		if err := nbWriteCell(out, i+1, c, lang); err != nil {
			return err
		}
	}
	if len(cells) > b.lim.MaxPages {
		return cutOff(sectionsLeft("notebook cell", b.lim.MaxPages, len(cells)), "%d cells, more than %d", len(cells), b.lim.MaxPages)
	}
	return out.Err()
}

func nbWriteCell(out *textWriter, n int, c nbCell, lang string) error {
	src := string(c.Source)
	if src == "" {
		src = string(c.Input)
	}
	kind := c.CellType
	if kind == "" {
		kind = "unknown"
	}
	switch kind {
	case "code":
		label := "code"
		if ec := c.ExecutionCount; ec != nil {
			label = fmt.Sprintf("code, In [%d]", *ec)
		} else if pn := c.PromptNumber; pn != nil {
			label = fmt.Sprintf("code, In [%d]", *pn)
		}
		out.Marker("cell", n, label)
		out.Line("```" + lang)
		out.Text(strings.TrimRight(src, "\n"))
		out.EndLine()
		out.Line("```")
		for _, o := range c.Outputs {
			nbWriteOutput(out, o)
		}
	default:
		out.Marker("cell", n, kind)
		out.Text(src)
		out.EndLine()
		if len(c.Attachments) > 0 {
			names := make([]string, 0, len(c.Attachments))
			for name := range c.Attachments {
				names = append(names, name)
			}
			sort.Strings(names)
			out.Linef("[attachments dropped: %s]", strings.Join(names, ", "))
		}
	}
	return out.Err()
}

// textMimes are output representations shown as text, best first.
var textMimes = []string{"text/plain", "text/markdown", "text/latex"}

func nbWriteOutput(out *textWriter, o nbOutput) {
	switch o.OutputType {
	case "stream":
		nbWriteText(out, "Output ("+orDefault(o.Name, "stream")+"):", string(o.Text))
	case "error", "pyerr":
		out.Linef("Error: %s: %s", o.Ename, oneLine(o.Evalue))
	case "execute_result", "display_data", "pyout":
		var dropped []string
		shown := false
		for _, mt := range textMimes {
			raw, ok := o.Data[mt]
			if !ok || shown {
				continue
			}
			var t nbText
			if json.Unmarshal(raw, &t) == nil {
				nbWriteText(out, "Output:", string(t))
				shown = true
			}
		}
		for mt := range o.Data {
			if !strings.HasPrefix(mt, "text/plain") && !strings.HasPrefix(mt, "text/markdown") && !strings.HasPrefix(mt, "text/latex") {
				dropped = append(dropped, mt)
			}
		}
		if len(dropped) > 0 {
			sort.Strings(dropped)
			out.Linef("[output dropped: %s]", strings.Join(dropped, ", "))
		}
		if o.OutputType == "pyout" && !shown && o.Text != "" {
			nbWriteText(out, "Output:", string(o.Text))
		}
	}
}

// nbWriteText writes an output's text fenced, cut to maxOutputLines lines
// and maxOutputBytes bytes with a note of what was left out.
func nbWriteText(out *textWriter, label, s string) {
	s = strings.TrimRight(s, "\n")
	if strings.TrimSpace(s) == "" {
		return
	}
	lines := strings.Split(s, "\n")
	total := len(lines)
	if len(lines) > maxOutputLines {
		lines = lines[:maxOutputLines]
	}
	shown := strings.Join(lines, "\n")
	if len(shown) > maxOutputBytes {
		shown = shown[:maxOutputBytes]
		shown = strings.ToValidUTF8(shown, "")
	}
	out.Line(label)
	out.Line("```text")
	out.Text(shown)
	out.EndLine()
	out.Line("```")
	if cut := total - (strings.Count(shown, "\n") + 1); cut > 0 || len(shown) < len(strings.Join(lines, "\n")) {
		out.Linef("[output cut: %d of %d lines shown]", strings.Count(shown, "\n")+1, total)
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
