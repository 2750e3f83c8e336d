package stages

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// header is a real file header, built at test time.
type header struct {
	name    string
	content []byte
	mimes   []string // acceptable MIME types, from mimetype or from file(1)
}

func zipOf(t testing.TB, entries ...string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.Create(e)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("<?xml version=\"1.0\"?><x/>"))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gzipOf(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func tarOf(t testing.TB) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	body := []byte("hello\n")
	tw.WriteHeader(&tar.Header{Name: "a.txt", Mode: 0o644, Size: int64(len(body))})
	tw.Write(body)
	tw.Close()
	return buf.Bytes()
}

func utf16le(s string) []byte {
	out := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

func elfHead(t testing.TB) []byte {
	b, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Skip("no /bin/true to take an ELF header from")
	}
	return b[:min(len(b), 8192)]
}

func headers(t testing.TB) []header {
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"), make([]byte, 64)...)
	jpeg := append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"), make([]byte, 64)...)
	sqlite := append([]byte("SQLite format 3\x00\x10\x00\x01\x01\x00@  \x00\x00\x00\x01"), make([]byte, 200)...)
	docx := zipOf(t, "[Content_Types].xml", "_rels/.rels", "word/document.xml")
	return []header{
		{"a.png", png, []string{"image/png"}},
		{"a.jpg", jpeg, []string{"image/jpeg"}},
		{"a.gif", append([]byte("GIF89a\x01\x00\x01\x00\x80\x00\x00"), make([]byte, 32)...), []string{"image/gif"}},
		{"a.pdf", []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"), []string{"application/pdf"}},
		{"a.zip", zipOf(t, "a.txt"), []string{"application/zip"}},
		{"a.gz", gzipOf([]byte("hello hello hello\n")), []string{"application/gzip", "application/x-gzip"}},
		{"a.tar", tarOf(t), []string{"application/x-tar"}},
		{"a.docx", docx, []string{"application/vnd.openxmlformats-officedocument.wordprocessingml.document"}},
		{"a.sqlite", sqlite, []string{"application/vnd.sqlite3", "application/x-sqlite3"}},
		{"a.xz", append([]byte{0xFD, '7', 'z', 'X', 'Z', 0x00, 0x00, 0x04}, make([]byte, 32)...), []string{"application/x-xz"}},
		{"a.7z", append([]byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C, 0x00, 0x04}, make([]byte, 32)...), []string{"application/x-7z-compressed"}},
		{"A.class", append([]byte{0xCA, 0xFE, 0xBA, 0xBE, 0x00, 0x00, 0x00, 0x34}, make([]byte, 32)...), []string{"application/x-java-applet", "application/x-java-applet; charset=binary"}},
		{"a.wasm", append([]byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}, make([]byte, 32)...), []string{"application/wasm"}},
		{"tool", elfHead(t), []string{"application/x-executable", "application/x-elf", "application/x-sharedlib", "application/x-pie-executable"}},
		{"main.go", []byte("package main\n\nfunc main() {}\n"), []string{"text/plain", "text/x-go", "text/x-c"}},
		{"a.json", []byte(`{"a": [1, 2, 3], "b": "c"}`), []string{"application/json", "text/plain"}},
		{"run.sh", []byte("#!/bin/sh\necho hi\n"), []string{"text/x-shellscript", "text/plain"}},
		{"u16.txt", utf16le("hello, world\n"), []string{"text/plain"}},
	}
}

// TestSniffMatchesFile checks our content types against file(1) on the
// same bytes: both must land in the accepted set of each header.
func TestSniffMatchesFile(t *testing.T) {
	fileCmd, err := exec.LookPath("file")
	if err != nil {
		t.Skip("file(1) not installed")
	}
	dir := t.TempDir()
	env := &Env{Src: openRoot(t, dir), Rules: defaultRules(t)}
	for _, h := range headers(t) {
		t.Run(h.name, func(t *testing.T) {
			must(t, os.WriteFile(filepath.Join(dir, h.name), h.content, 0o644))
			rec := NewRecord(h.name, h.name, int64(len(h.content)))
			env.Sniff(context.Background(), rec)
			ours, _, _ := strings.Cut(rec.Mime, ";")
			out, err := exec.Command(fileCmd, "--mime-type", "-b", filepath.Join(dir, h.name)).Output()
			if err != nil {
				t.Fatal(err)
			}
			theirs := strings.TrimSpace(string(out))
			if !accepts(h.mimes, ours) {
				t.Errorf("mimetype says %q, want one of %q", rec.Mime, h.mimes)
			}
			if !accepts(h.mimes, theirs) {
				t.Errorf("file(1) says %q, want one of %q (fixture broken?)", theirs, h.mimes)
			}
			if rec.ExtMismatch {
				t.Errorf("%s flagged ext_mismatch with content %s", h.name, rec.Mime)
			}
		})
	}
}

func accepts(set []string, m string) bool {
	for _, s := range set {
		if s == m || strings.HasPrefix(m, "text/") && s == "text/plain" {
			return true
		}
	}
	return false
}

// TestTriageDisguised: content, not the name, decides; a disagreement is
// flagged.
func TestTriageDisguised(t *testing.T) {
	all := map[string][]byte{}
	for _, h := range headers(t) {
		all[h.name] = h.content
	}
	tests := []struct {
		name     string
		content  []byte
		category string
		reason   string
		mismatch bool
	}{
		{"notes.txt", all["a.zip"], "data", "archive", true},
		{"database", all["a.sqlite"], "data", "database", true},
		{"image.dat", all["a.png"], "junk", "binary-media", true},
		{"photo.jpg", []byte("just some text, not a photo\n"), "text", "", true},
		{"pic.png", all["a.jpg"], "junk", "binary-media", true},
		{"report.pdf", all["a.zip"], "data", "archive", true},
		{"a.png", all["a.png"], "junk", "binary-media", false},
		{"b.jpeg", all["a.jpg"], "junk", "binary-media", false},
		{"c.docx", all["a.docx"], "document", "office", false},
		{"d.pdf", all["a.pdf"], "document", "pdf", false},
		{"e.tar.gz", all["a.gz"], "data", "archive", false},
		{"f.sqlite3", all["a.sqlite"], "data", "database", false},
		{"g.ibd", append([]byte{0, 0, 0, 0, 1, 2, 3}, make([]byte, 100)...), "data", "database", false},
		{"tool", all["tool"], "junk", "compiled", false},
		{"libx.so", all["tool"], "junk", "compiled", false},
		{"A.class", all["A.class"], "junk", "compiled", false},
		{"dump.sql", []byte("-- MySQL dump 10.13  Distrib 8.0.36\nINSERT INTO t VALUES (1);\n"), "data", "dump", false},
		{"schema.sql", []byte("CREATE TABLE t (id INT PRIMARY KEY);\n"), "source", "", false},
		{"backup.bak", []byte("anything\n"), "data", "backup", false},
		{"main.go", all["main.go"], "source", "", false},
		{"run.sh", all["run.sh"], "source", "", false},
		{"README.md", []byte("# Title\n\nSome prose.\n"), "text", "", false},
		{"config.yaml", []byte("a: 1\nb: [2, 3]\n"), "text", "", false},
		{"Makefile", []byte("all:\n\tgo build\n"), "source", "", false},
		{"u16.txt", all["u16.txt"], "text", "", false},
		{"app.min.js", []byte("var a=1;" + strings.Repeat("x", 100)), "junk", "minified", false},
		{"bundle.js", []byte(strings.Repeat("var a=1;", 200)), "junk", "minified", false},
		{".DS_Store", []byte("\x00\x00\x00\x01Bud1"), "junk", "system-file", false},
		{"x.swp", []byte("b0VIM 8.2"), "junk", "temp", false},
		{"empty.go", nil, "junk", "empty", false},
		{"vendor/github.com/x/y.go", all["main.go"], "junk", "vendored", false},
		{"font.woff2", []byte("wOF2\x00\x01\x00\x00" + strings.Repeat("\x00", 40)), "junk", "font", false},
		{"random.bin", []byte{0x01, 0x02, 0x03, 0x00, 0xff, 0xfe}, "data", "opaque", false},
		{"noext", []byte{0x01, 0x02, 0x03, 0x00, 0xff, 0xfe}, "junk", "binary", false},
		{"package-lock.json", []byte("{}\n"), "junk", "lockfile", false},
		// A checkout without git-lfs: the screenshot's pointer, not the
		// screenshot. A file that only mentions the spec is text.
		{"expected-screenshots/home.png", []byte("version https://git-lfs.github.com/spec/v1\noid sha256:" + strings.Repeat("4d7a", 16) + "\nsize 84977\n"), "junk", "lfs-pointer", true},
		{"model.bin", []byte("version https://git-lfs.github.com/spec/v1\noid sha256:" + strings.Repeat("0f", 32) + "\nsize 12\n"), "junk", "lfs-pointer", false},
		{"docs/lfs.md", []byte("version https://git-lfs.github.com/spec/v1\nis the first line of a pointer.\n"), "text", "", false},
		{".gitignore", []byte("*.log\n"), "text", "", false},
		{".github/workflows/ci.yml", []byte("on: push\n"), "text", "", false},
		{"third_party/lib/x.c", []byte("int x;\n"), "junk", "vendored", false},
		{"pkg/testdata/input.go", []byte("package x\n"), "source", "", false},
		{"types/index.d.ts", []byte("export declare const x: number;\n"), "source", "", false},
		{"Jenkinsfile", []byte("pipeline { agent any }\n"), "source", "", false},
		{"src/api.js", []byte("export const get = (url) => fetch(url).then((r) => r.json()).catch((e) => { console.error(e); throw e; }) // helper for the api layer\nexport default get;\n"), "source", "", false},
		{"gen/bundle.js", []byte("// @generated by protoc-gen-js. DO NOT EDIT.\nexport const x = 1;\n"), "junk", "generated", false},
		// webpack's preambles, as matomo commits its plugins' bundles.
		{"plugins/CoreHome/vue/dist/CoreHome.umd.js", []byte("(function webpackUniversalModuleDefinition(root, factory) {\n\tif(typeof exports === 'object' && typeof module === 'object')\n\t\tmodule.exports = factory(require(\"vue\"));\n})(self, function() {});\n"), "junk", "generated", false},
		{"dist/main.js", []byte("/******/ (() => { // webpackBootstrap\n/******/ \tvar __webpack_modules__ = ({});\n"), "junk", "generated", false},
		{"src/build.js", []byte("// Builds the bundles with webpack.\nconst webpack = require('webpack');\nmodule.exports = { entry: './src/index.js' };\n"), "source", "", false},
		{"zversion.go", []byte("// Code generated by go tool dist; DO NOT EDIT.\n\npackage sys\n"), "junk", "generated", false},
	}
	dir := t.TempDir()
	env := &Env{Src: openRoot(t, dir), Rules: defaultRules(t)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, filepath.FromSlash(tt.name))
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			must(t, os.WriteFile(p, tt.content, 0o644))
			rec := NewRecord(tt.name, filepath.FromSlash(tt.name), int64(len(tt.content)))
			env.Sniff(context.Background(), rec)
			if rec.Category != tt.category || rec.Reason != tt.reason || rec.ExtMismatch != tt.mismatch {
				t.Errorf("%s (%s) = %s/%s mismatch=%v, want %s/%s mismatch=%v",
					tt.name, rec.Mime, rec.Category, rec.Reason, rec.ExtMismatch, tt.category, tt.reason, tt.mismatch)
			}
		})
	}
}

// FuzzClassify: sniffing arbitrary bytes under arbitrary names never panics
// and always lands in one of the five categories.
func FuzzClassify(f *testing.F) {
	f.Add("a.txt", []byte("hello"))
	f.Add("x.png", []byte("\x89PNG\r\n\x1a\n"))
	f.Add("noext", []byte{0, 1, 2})
	dir := f.TempDir()
	env := &Env{Src: openRoot(f, dir), Rules: defaultRules(f)}
	f.Fuzz(func(t *testing.T, name string, content []byte) {
		base := filepath.Base(name)
		if base == "." || base == "/" || base == ".." || strings.ContainsAny(base, "/\x00") || len(base) > 200 {
			return
		}
		must(t, os.WriteFile(filepath.Join(dir, "f"), content, 0o644))
		rec := NewRecord(base, "f", int64(len(content)))
		if err := env.Sniff(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
		switch rec.Category {
		case "source", "text", "document", "data", "junk":
		default:
			t.Fatalf("category %q for %q", rec.Category, base)
		}
	})
}
