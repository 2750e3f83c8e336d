package extract

import (
	"testing"

	xt "github.com/repoprep/repoprep/internal/extract/extracttest"
)

// The legacy readers are fuzzed inside a valid Compound File, where their
// parsing is: mutating the container itself would mostly exercise mscfb.
// The property is fuzzCheck's: text or a refusal, clean text, and no
// panic in our code.

func FuzzDOC(f *testing.F) {
	for _, doc := range [][]byte{
		legacyDOC(f),
		xt.DOC(f, []xt.DOCPara{{Cells: []string{"a", "b"}}, {Text: "\x13\x13\x14x\x15"}}, xt.DOCOptions{Footnotes: []string{"n"}}),
	} {
		s := cfbStreams(f, doc)
		f.Add(s["WordDocument"], s["1Table"])
	}
	f.Fuzz(func(t *testing.T, wd, table []byte) {
		// Both table streams: the FIB's flag picks one.
		doc := xt.CFB(t, xt.CFBStream{Name: "WordDocument", Data: wd}, xt.CFBStream{Name: "0Table", Data: table}, xt.CFBStream{Name: "1Table", Data: table})
		fuzzCheck(t, DOC, doc, false)
	})
}

func FuzzXLS(f *testing.F) {
	for _, xls := range [][]byte{legacyXLS(f, xt.XLSOptions{SSTChunk: 40}), legacyXLS(f, xt.XLSOptions{})} {
		f.Add(cfbStreams(f, xls)["Workbook"])
	}
	f.Fuzz(func(t *testing.T, wb []byte) {
		fuzzCheck(t, XLS, xt.CFB(t, xt.CFBStream{Name: "Workbook", Data: wb}), false)
	})
}

func FuzzPPT(f *testing.F) {
	for _, ppt := range [][]byte{legacyPPT(f, xt.PPTOptions{}), legacyPPT(f, xt.PPTOptions{Stale: "old"})} {
		s := cfbStreams(f, ppt)
		f.Add(s["PowerPoint Document"], s["Current User"])
	}
	f.Fuzz(func(t *testing.T, ppd, user []byte) {
		ppt := xt.CFB(t, xt.CFBStream{Name: "PowerPoint Document", Data: ppd}, xt.CFBStream{Name: "Current User", Data: user})
		fuzzCheck(t, PPT, ppt, false)
	})
}
