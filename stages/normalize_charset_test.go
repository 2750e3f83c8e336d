package stages

import (
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// TestNormalizeCharsetInName checks that the stage hands the file's name
// to textenc: vim's keymaps are lists of lone letters, which no language
// model can judge, and only the name says "cp1250" (refused before).
func TestNormalizeCharsetInName(t *testing.T) {
	const keymap = "\" Vim Keymap file for Slovak\nloadkeymap\n" +
		"=a\tá\n+c\tč\n+d\tď\n=e\té\n+e\tě\n=i\tí\n+l\tľ\n=l\tĺ\n+n\tň\n=o\tó\n+o\tô\n+r\tř\n=r\tŕ\n+s\tš\n+t\tť\n=u\tú\n+u\tů\n=y\tý\n+z\tž\n"
	content, err := charmap.Windows1250.NewEncoder().String(keymap)
	if err != nil {
		t.Fatal(err)
	}
	rec, staged, err := normalizeOne(t, "runtime/keymap/slovak_cp1250.vim", []byte(content), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if staged != keymap || rec.Encoding != "windows-1250" {
		t.Errorf("staged %v as %q (%s), want windows-1250", rec.Staged, staged, rec.Reason)
	}
}

// TestMisdeclaredWarnsOnce: legacy texts whose declared charset their
// bytes contradict are read by detection and named in one run warning,
// with their count and the first by path; valid UTF-8 under an old
// declaration is not named (this repository's own docs quote charsets).
func TestMisdeclaredWarnsOnce(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	gbk, _ := simplifiedchinese.GBK.NewEncoder().String("<html><head><meta charset=\"iso-8859-1\"></head><body>用户手册，第一章：安装与配置说明。</body></html>\n")
	files := map[string]string{"b.html": gbk, "a.html": gbk, "ok.html": "<meta charset=utf-8>plain\n",
		"converted.html": "<meta charset=\"iso-8859-1\"><p>Mise à jour, déjà vu, naïve café.</p>\n"}
	writeTree(t, src, files)
	env := &Env{Src: openRoot(t, src), TreeDir: out, Rules: defaultRules(t), MaxTextBytes: 1 << 20}
	for _, name := range []string{"b.html", "a.html", "ok.html", "converted.html"} {
		rec := NewRecord(name, name, int64(len(files[name])))
		if err := process(env, rec); err != nil {
			t.Fatal(err)
		}
		if (name == "a.html" || name == "b.html") && (!rec.Staged || rec.Encoding != "gbk") {
			t.Fatalf("%s: staged %v as %q", name, rec.Staged, rec.Encoding)
		}
	}
	ws := env.Warnings()
	if len(ws) != 1 || !strings.Contains(ws[0], "2 files") || !strings.Contains(ws[0], "a.html names iso-8859-1, read as gbk") {
		t.Errorf("warnings: %q", ws)
	}
}
