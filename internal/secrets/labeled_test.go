package secrets

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
	"github.com/repoprep/repoprep/rules"
)

// The labeled corpus of `make bench-secrets`: every rule's examples (positives) and
// counterexamples (negatives), freshly expanded, each put in many code contexts, plus
// realistic negatives nobody would call a secret (identifiers, hashes, translations,
// environment references, paths, placeholders, public keys). Every planted line is
// labeled; a finding on a positive line is a true positive, one anywhere else a false
// positive. The same tree goes through gitleaks when REPOPREP_GITLEAKS names it.

// labeledContext puts one labeled text into a file of some type. wrap returns the
// lines to write; the label sits on the first of them.
type labeledContext struct {
	ext  string
	wrap func(text string) string
}

var labeledContexts = []labeledContext{
	{".txt", func(s string) string { return s }},
	{".env", func(s string) string { return s }},
	{".yaml", func(s string) string {
		return "  " + strings.ReplaceAll(s, "\n", "\n  ")
	}},
	{".py", func(s string) string { return "# " + strings.ReplaceAll(s, "\n", "\n# ") }},
	{".go", func(s string) string { return "\tconfig := `" + s + "`" }},
	{".js", func(s string) string { return "const cfg = `" + s + "`;" }},
	{".json", func(s string) string { b, _ := json.Marshal(s); return `  "value": ` + string(b) + "," }},
	{".md", func(s string) string { return "```\n" + s + "\n```" }},
	{".sh", func(s string) string { return "export " + strings.ReplaceAll(s, "\n", "\n# ") }},
	{".xml", func(s string) string { return "<value>" + s + "</value>" }},
}

// realisticNegatives are lines every repository has and no scanner should report; they
// are templates like the rules' (fresh hashes and ids each run).
var realisticNegatives = []string{
	// identifiers and code
	"password = user.password", "user.password = passphrase;", "changePassword: function (old, neu) {",
	"<%= f.password_field :password_confirmation %>", "token = request.headers.get('Authorization')",
	"api_key = os.environ['API_KEY']", "secret = settings.SECRET_KEY", `const passwordField = "password";`,
	"if (password.length < minPasswordLength) return false;", "self.token = token", "def get_token(self, secret_name):",
	"String password = getPassword();", "$password = $request->input('password');", "password: String,",
	"private static final String TOKEN_HEADER = \"X-Auth-Token\";", "secretKeyRef:\n  name: db-credentials\n  key: password",
	"key = cache_key(user_id, {{digit:6}})", "keyName: primaryKey{{digit:2}}", "tokenizer = AutoTokenizer.from_pretrained(model_name)",
	// hashes and ids
	"sha256: {{hex:64}}", "commit {{hex:40}}", "\"integrity\": \"sha512-{{b64:86}}==\"", "github.com/x/y v1.{{int:0-9}}.0 h1:{{b64:43}}=",
	"id: {{hex:8}}-{{hex:4}}-{{hex:4}}-{{hex:4}}-{{hex:12}}", "etag: \"{{hex:32}}\"", "password_hash: $2a$10${{b64url:53}}",
	"hashed_password = 'pbkdf2_sha256$600000${{alnum:22}}${{b64:43}}='", "password: '$argon2id$v=19$m=65536,t=3,p=4${{b64:22}}${{b64:43}}'",
	"checksum = \"{{hex:40}}\"", "request_id: {{hex:32}}", "\"nonce\": \"{{digit:6}}\"",
	// translations and labels
	"password: Passwort", "password: Contraseña", "\"password\": \"Mot de passe\",", "password: 密码", "  password_label: \"Enter your password\"",
	"reset_password: Reset password", "\"token\": \"Jeton\",", "secret: Geheimnis",
	// environment and template references
	"password: ${DB_PASSWORD}", "DB_PASSWORD=$POSTGRES_PASSWORD", "password = %DB_PASS%", "password: \"{{ .Values.db.password }}\"",
	"api_key: <%= ENV['API_KEY'] %>", "token: ${{ secrets.GITHUB_TOKEN }}", "secret_key = os.getenv(\"SECRET_KEY\")",
	"password: !vault |", "client_secret: {{ vault_client_secret }}", "password = env('DB_PASSWORD', default='')",
	// paths and files
	"POSTGRES_PASSWORD_FILE=/run/secrets/postgres_password", "key_path: ./certs/server.key", "token_file = ~/.config/app/token",
	"ssl_key: /etc/ssl/private/server.key", "secret_file: secrets/prod.enc.yaml",
	// placeholders
	"api_key = \"<your-api-key>\"", "API_KEY=YOUR_API_KEY_HERE", "password: changeme", "token: xxxxxxxxxxxxxxxxxxxxxxxx",
	"secret = \"********\"", "AWS_SECRET_ACCESS_KEY=...", "password = 'password'", "api_key: your-api-key",
	// public material
	"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{{b64:43}} user@host", "-----BEGIN PUBLIC KEY{{s:-----}}\n{{b64:64}}\n-----END PUBLIC KEY{{s:-----}}",
	"-----BEGIN CERTIFICATE{{s:-----}}\n{{b64:64}}\n{{b64:64}}\n-----END CERTIFICATE{{s:-----}}", "pk_live_{{alnum:24}}",
	// numbers, versions, addresses that are not private
	"version: 10.{{int:0-9}}.{{int:0-9}}.{{int:0-9}}", "dns: 8.8.8.8", "timeout: 1700000000000", "port: 10443",
	"x = y + 12345678901", "PASSWORD_RESET_TIMEOUT = 259200", "password_min_length: 12",
}

// labeled is one planted line: where, and the kind it must be found as; "" for a
// negative, skipKind for a rule's counterexample (negative for that rule only, so it is
// left out of the score: "TOKEN=" and twenty random characters is not a Cloudflare token
// but is a generic one).
type labeled struct {
	file string
	line int
	kind string
	rule string
	text string // for a negative, its template, to list what was falsely reported
}

const skipKind = "skip"

// buildLabeledCorpus writes the corpus under dir and returns its labels.
func buildLabeledCorpus(t *testing.T, dir string, rounds int) []labeled {
	rs, err := rules.DefaultSecretRules()
	if err != nil {
		t.Fatal(err)
	}
	type item struct{ text, kind, rule string }
	var items []item
	for range rounds {
		for _, r := range rs {
			for _, ex := range r.Examples {
				items = append(items, item{secrettest.Expand(ex), r.Kind, r.ID})
			}
			for _, cx := range r.Counterexamples {
				items = append(items, item{secrettest.Expand(cx), skipKind, r.ID})
			}
		}
		for _, n := range realisticNegatives {
			items = append(items, item{secrettest.Expand(n), "", n})
		}
	}
	filler := []string{"", "func compute(values []int) int { return len(values) }", "    result = helper(i, 3)  # step",
		"  name: service", "SELECT id FROM users WHERE id = 1;", "<div class=\"row\">Loading</div>"}
	var labels []labeled
	for ci, c := range labeledContexts {
		var b strings.Builder
		line := 1
		nfile := 0
		flush := func() {
			name := filepath.Join(dir, fmt.Sprintf("c%02d", ci), fmt.Sprintf("f%03d%s", nfile, c.ext))
			os.MkdirAll(filepath.Dir(name), 0o755)
			if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			b.Reset()
			line = 1
			nfile++
		}
		for i, it := range items {
			f := filler[i%len(filler)]
			b.WriteString(f + "\n\n")
			line += 2
			rel := filepath.ToSlash(filepath.Join(fmt.Sprintf("c%02d", ci), fmt.Sprintf("f%03d%s", nfile, c.ext)))
			text := c.wrap(it.text)
			at := line
			if strings.HasPrefix(text, "```\n") {
				at++ // the fence is a line of its own
			}
			labels = append(labels, labeled{rel, at, it.kind, it.rule, it.rule})
			b.WriteString(text + "\n\n")
			line += strings.Count(text, "\n") + 2
			if b.Len() > 64<<10 {
				flush()
			}
		}
		flush()
	}
	return labels
}

// score counts, per kind, positives found and findings that are false, from the lines
// each tool reported ("file:line" -> true).
type score struct {
	positives, found, falses int
}

func scoreLines(labels []labeled, hits map[string]bool, kinds []string) map[string]*score {
	out := map[string]*score{}
	for _, k := range kinds {
		out[k] = &score{}
	}
	positive := map[string]string{}
	for _, l := range labels {
		key := fmt.Sprintf("%s:%d", l.file, l.line)
		if l.kind == skipKind {
			positive[key] = skipKind
			continue
		}
		if l.kind != "" {
			positive[key] = l.kind
			out[l.kind].positives++
			if hits[key] {
				out[l.kind].found++
			}
		}
	}
	all := &score{}
	for key := range hits {
		if _, ok := positive[key]; !ok {
			all.falses++
		}
	}
	out["all"] = all
	return out
}

func (s *score) recall() float64 { return float64(s.found) / float64(max(1, s.positives)) }

// TestLabeledCorpus is `make bench-secrets`: recall and precision per kind on the labeled
// corpus, for repoprep and (with REPOPREP_GITLEAKS) gitleaks on the same tree.
func TestLabeledCorpus(t *testing.T) {
	if os.Getenv("REPOPREP_BENCH_SECRETS") == "" {
		t.Skip("set REPOPREP_BENCH_SECRETS=1 (make bench-secrets), or =list to list every miss and false finding")
	}
	dir := t.TempDir()
	labels := buildLabeledCorpus(t, dir, 3)
	kinds := []string{rules.KindCredential, rules.KindPII}
	s := defaultScanner(t)
	ours := map[string]bool{}
	oursByKind := map[string]map[string]bool{}
	for _, k := range kinds {
		oursByKind[k] = map[string]bool{}
	}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fs, err := s.ScanFileAs(p, filepath.ToSlash(rel), false)
		for _, f := range fs {
			key := fmt.Sprintf("%s:%d", filepath.ToSlash(rel), f.Line)
			ours[key] = true
			oursByKind[f.Kind][key] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	report := func(tool string, hits map[string]bool) {
		sc := scoreLines(labels, hits, kinds)
		tp := sc[rules.KindCredential].found + sc[rules.KindPII].found
		t.Logf("%-9s credential recall %5.1f%% (%d/%d)  pii recall %5.1f%% (%d/%d)  precision %5.1f%% (%d true, %d false)",
			tool, 100*sc[rules.KindCredential].recall(), sc[rules.KindCredential].found, sc[rules.KindCredential].positives,
			100*sc[rules.KindPII].recall(), sc[rules.KindPII].found, sc[rules.KindPII].positives,
			100*float64(tp)/float64(max(1, tp+sc["all"].falses)), tp, sc["all"].falses)
	}
	npos, nneg := 0, 0
	for _, l := range labels {
		switch l.kind {
		case "":
			nneg++
		case skipKind:
		default:
			npos++
		}
	}
	t.Logf("corpus: %d labeled lines (%d positive, %d realistic negatives; counterexamples and filler between them) in %d contexts", len(labels), npos, nneg, len(labeledContexts))
	report("repoprep", ours)
	// Per kind precision: false findings of our own kind.
	for _, k := range kinds {
		sc := scoreLines(labels, oursByKind[k], kinds)
		t.Logf("repoprep  %-10s precision %5.1f%% (%d false)", k, 100*float64(sc[k].found)/float64(max(1, sc[k].found+sc["all"].falses)), sc["all"].falses)
	}
	if os.Getenv("REPOPREP_BENCH_SECRETS") == "list" {
		logMisses(t, labels, ours)
	}
	if bin := os.Getenv("REPOPREP_GITLEAKS"); bin != "" {
		theirs, _ := runGitleaks(t, bin, dir)
		report("gitleaks", theirs)
		// gitleaks has no PII rules: its precision on credentials alone.
		sc := scoreLines(labels, theirs, kinds)
		t.Logf("gitleaks  credential precision %5.1f%%", 100*float64(sc[rules.KindCredential].found)/float64(max(1, sc[rules.KindCredential].found+sc["all"].falses)))
	}
}

// logMisses lists, per rule, the positives missed and the lines falsely reported.
func logMisses(t *testing.T, labels []labeled, hits map[string]bool) {
	missed := map[string]int{}
	falseByRule := map[string]int{}
	pos := map[string]bool{}
	for _, l := range labels {
		key := fmt.Sprintf("%s:%d", l.file, l.line)
		switch {
		case l.kind == skipKind:
		case l.kind != "":
			pos[key] = true
			if !hits[key] {
				missed[l.rule+" "+filepath.Ext(l.file)]++
			}
		case hits[key]:
			falseByRule[l.text+" "+filepath.Ext(l.file)]++
		}
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range missed {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		t.Logf("  missed %-40s %d", k, missed[k])
	}
	keys = keys[:0]
	for k := range falseByRule {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t.Logf("  false  %-40s %d", k, falseByRule[k])
	}
}
