package secrets

import (
	"bytes"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
)

// commonValue on a line: the value is the first occurrence of want's value
// after the line's last = or :, or the whole line's last word.
func TestCommonValue(t *testing.T) {
	rnd := secrettest.Rand("bcdfghjkmnpqrstvwxz", 7) // no vowel: never a run of default words
	for _, c := range []struct {
		line, value string
		want        bool
	}{
		{"password: admin", "admin", true},
		{"password: Admin@123", "Admin@123", true},
		{"password: pass4321", "pass4321", true},
		{`DEFAULT_PASSWORD = "Pass@word1";`, "Pass@word1", true}, // ASP.NET's samples (eShopOnWeb)
		{"PASSWORD=test_123456", "test_123456", true},
		{"pw = 'rootroot'", "rootroot", true},
		{"pw = 'passw2'", "passw2", true},
		{"pw = 'minioadmin'", "minioadmin", true},
		{"pw = '123123'", "123123", true},
		{"pw = '123321'", "123321", true},
		{"pw = 'zzzz'", "zzzz", true},
		{"pw = '請提供新的密碼.'", "請提供新的密碼.", true},
		{`<host user="gorm" password="gorm"/>`, "gorm", true},
		{"CREATE USER db1 WITH PASSWORD 'db1';", "db1", true},
		{"CREATE USER IF NOT EXISTS 'petclinic'@'%' IDENTIFIED BY 'petclinic';", "petclinic", true}, // spring-petclinic
		{"CREATE TABLE IF NOT EXISTS 'petclinic' (pw) VALUES ('petclinic');", "petclinic", false},
		{"amqp://guest:guest@localhost:5672", "guest", true},
		{"postgres://postgres:postgres@db/app", "postgres", true},

		{"password: " + rnd, rnd, false},
		{"password: admin" + rnd, "admin" + rnd, false},
		{"password: 608115805", "608115805", false},
		{"password: Tr0ub4dor", "Tr0ub4dor", false},
		{"password: ꊐ⌒Ⅳ🤐", "ꊐ⌒Ⅳ🤐", false},
		{"password: 密码" + rnd, "密码" + rnd, false},
		{"password: abab", "abab", false},
		{`<host user="gormx" password="gorm"/>`, "gorm", false},
		{"gorm is the user; password=gorm", "gorm", false},
		{"user=" + "Q" + rnd + "7x password=" + "Q" + rnd + "7x", "Q" + rnd + "7x", false}, // not a name's shape
		{"password=" + strings.Repeat("admin", 13), strings.Repeat("admin", 13), false},    // over maxCommonValue
	} {
		content := []byte(c.line)
		gs := bytes.LastIndex(content, []byte(c.value))
		if strings.HasPrefix(c.line, "amqp:") || strings.HasPrefix(c.line, "postgres:") {
			gs = bytes.LastIndex(content, []byte(":"+c.value+"@")) + 1
		}
		if got := commonValue(content, gs, gs+len(c.value), ""); got != c.want {
			t.Errorf("commonValue(%q, %q) = %v, want %v", c.line, c.value, got, c.want)
		}
	}
}

// commonValue never panics and never looks past the value's line.
func FuzzCommonValue(f *testing.F) {
	f.Add([]byte("user=root password=root\nroot"), 19, 23)
	f.Add([]byte("pw: Admin@123"), 4, 13)
	f.Add([]byte("//a:a@"), 4, 5)
	f.Fuzz(func(t *testing.T, content []byte, gs, ge int) {
		if gs < 0 || ge > len(content) || gs > ge {
			return
		}
		got := commonValue(content, gs, ge, "")
		// Text after the value's line cannot change the answer.
		if nl := bytes.IndexByte(content[ge:], '\n'); nl >= 0 {
			cut := content[:ge+nl]
			if commonValue(cut, gs, ge, "") != got {
				t.Fatalf("commonValue(%q) depends on the next lines", content)
			}
		}
	})
}

// TestPathWord: a password that is a word of its file's path names the sample's own
// product; a value with other bytes, or a word of another path, does not.
func TestPathWord(t *testing.T) {
	for _, c := range []struct {
		value, path string
		want        bool
	}{
		{"gitea", "gitea-postgres/compose.yaml", true},
		{"nextcloud", "nextcloud-redis-mariadb/compose.yaml", true},
		{"cassandra", "databases/cassandra/image/files/cassandra.yaml", true},
		{"wordpress", "wordpress-mysql/compose.yaml", true},
		{"compose", "gitea-postgres/compose.yaml", true},
		{"somewordpress", "wordpress-mysql/compose.yaml", false},
		{"gitea", "postgres/compose.yaml", false},
		{"Gitea", "gitea-postgres/compose.yaml", false},
		{"gitea1", "gitea1/compose.yaml", false},
		{"git", "git/compose.yaml", false},
		{"gitea", "", false},
		{"abcdefghijklmnopq", "abcdefghijklmnopq/x.yaml", false},
	} {
		if got := pathWord([]byte(c.value), c.path); got != c.want {
			t.Errorf("pathWord(%q, %q) = %v, want %v", c.value, c.path, got, c.want)
		}
	}
	// Through a scan: the rule finds the password beside another product's path.
	s := defaultScanner(t)
	content := []byte("services:\n  db:\n    environment:\n      - POSTGRES_PASSWORD=nextcloud\n")
	if fs := s.ScanContent(content, "nextcloud-postgres/compose.yaml"); len(fs) != 0 {
		t.Errorf("nextcloud-postgres/compose.yaml: %d findings, want none", len(fs))
	}
	if fs := s.ScanContent(content, "blog/compose.yaml"); len(fs) != 1 {
		t.Errorf("blog/compose.yaml: %d findings, want the password", len(fs))
	}
}
