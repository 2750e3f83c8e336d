package secrets

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/repoprep/repoprep/internal/secrets/secrettest"
)

// TestJudgeAssignments reads lines the way their files read them: the same text is a
// password in YAML and a variable in JavaScript.
func TestJudgeAssignments(t *testing.T) {
	s := defaultScanner(t)
	pw := secrettest.Rand("abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ", 6) + "4" + secrettest.Rand("abcdefghjkmnpqrstuvwxyz", 5)
	word := "hunterwolf"
	for _, tc := range []struct {
		path, text string
		want       string // the secret that must be found; "" for nothing
	}{
		// Identifiers, calls and code.
		{"app/user.js", "user.password = passphrase;", ""},
		{"app/user.js", "changePassword: function (old, neu) {", ""},
		{"app/views/users/_form.html.erb", "<%= f.password_field :password_confirmation %>", ""},
		{"app/models/user.rb", "validates :password, length: { minimum: 8 }", ""},
		// Elixir templates of code (Phoenix's generators) read as the code they make.
		{"priv/templates/phx.gen.auth/settings_controller.ex.eex", "        render(conn, :edit, password_changeset: changeset)", ""},
		{"priv/templates/phx.gen.auth/test_cases.exs.eex", "  Accounts.update_user_password(user, %{password: too_long})", ""},
		{"priv/templates/phx.gen.auth/test_cases.exs.eex", "  assert {:ok, {user, [%{token: ^hashed_token}]}} =", ""},
		{"lib/app_web/live/user_live.html.heex", `<.input field={@form[:password]} type="password" value={@password} />`, ""},
		{"priv/templates/phx.gen.auth/test_cases.exs.eex", `  %{password: "` + pw + `"}`, pw},
		// A Go template's action is code (Helm's _helpers.tpl), a %s value a format (Django's
		// site), a URL with a name at its end no token (an Ansible playbook).
		{"charts/pushgateway/templates/_helpers.tpl", `{{- $password := index .Values.webConfiguration.basicAuthUsers $user }}`, ""},
		{"charts/app/templates/secret.yaml", `{{- $password := "` + pw + `" }}`, pw},
		{"accounts/views.py", `    key = "user_vital_status:%s" % hashlib.md5(username).hexdigest()`, ""},
		{"nodejs-role/playbook.yml", `        key: "https://rpms.remirepo.net/RPM-GPG-KEY-remi2018"`, ""},
		// PHP: a string interpolated, a password concatenated (Laravel's DbCommand).
		{"src/Illuminate/Validation/Concerns/FormatsMessages.php", `        $key = "validation.{$lowerRule}.{$type}";`, ""},
		{"src/Illuminate/Database/Console/DbCommand.php", `            'password' => '--password='.$connection['password'],`, ""},
		// Basic credentials anybody could guess, in a web framework's tests (gin).
		{"auth_test.go", `		value: "Basic YWRtaW46cGFzc3dvcmQ=",`, ""},
		{"auth_test.go", `		value: "Basic Zm9vOmJhcg==",`, ""},
		// SQLAlchemy: Oracle's scott/tiger is a default; a quoted snake-case name in a
		// doc's code is a name (it was masked in 50 places by the value pass).
		{"setup.cfg", "postgresql = postgresql+psycopg://scott:tiger@127.0.0.1:5432/test", ""},
		{"doc/build/orm/queryguide/api.rst", `                identity_token="test_schema_2",`, ""},
		{"docs/config.md", `    api_key="` + pw + `",`, pw},
		// The examples the OAuth RFCs publish, in a library that implements them (authlib).
		{"authlib/oauth2/rfc6749/grants/authorization_code.py", `        "access_token":"2YotnFZFEjr1zCsicMWpAA",`, ""},
		{"authlib/oauth2/rfc6749/grants/base.py", `    Authorization: Basic czZCaGRSa3F0MzpnWDFmQmF0M2JW`, ""},
		{"authlib/oauth1/rfc5849/signature.py", `        oauth_token="kkk9d7dh3k39sjv7",`, ""},
		// A style sheet's selector, a template's stand-in, a test's weak password
		// (keycloak-quickstarts, full-stack-fastapi-template).
		{"themes/admin/resources/css/styles.css", `input[type="password"]:hover {`, ""},
		{".env", "POSTGRES_PASSWORD=changethis", ""},
		{"frontend/tests/sign-up.spec.ts", `    const password = "weak"`, ""},
		// Swift builds a string from \(...): a template, not a value (Alamofire's tests).
		{"Tests/AuthenticationInterceptorTests.swift", `TestCredential(accessToken: "a\(refreshCount)", refreshToken: "a\(refreshCount)")`, ""},
		{"src/Login.java", "String password = getPassword();", ""},
		{"src/login.py", "password = " + word, ""},
		{"config/db.yaml", "password: " + word, word},
		{".env", "DB_PASSWORD=" + word, word},
		{"src/login.py", "password = '" + pw + "'", pw},
		{"README.md", "Set `password: " + pw + "` in the file.", pw},
		// Hashes, paths, references, labels.
		{"users.yaml", "password: $2a$10$" + secrettest.Rand(b64Alphabet[:62], 53), ""},
		{"users.yaml", "password: '$argon2id$v=19$m=65536,t=3,p=4$" + secrettest.Rand(b64Alphabet, 22) + "$" + secrettest.Rand(b64Alphabet, 43) + "'", ""},
		{"settings.py", "PASSWORD_HASHERS_DEFAULT = 'pbkdf2_sha256$600000$" + secrettest.Rand(b64Alphabet[:62], 22) + "$" + secrettest.Rand(b64Alphabet, 43) + "'", ""},
		{"docker-compose.yml", "POSTGRES_PASSWORD_FILE=/run/secrets/postgres_password", ""},
		{"docker-compose.yml", "POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}", ""},
		{"config/locales/de.yml", "  password: Passwort", ""},
		{"config/locales/es.yml", "  password: Contraseña", ""},
		{"src/i18n.ts", `  password: "Kennwort",`, ""},
		{"app.ini", "password = %(db_pass)s", ""},
		// YAML reads # as a comment only after a space.
		{"config/db.yaml", "password: Hq7zKp2mXv9L#8035", "Hq7zKp2mXv9L#8035"},
		{"config/db.yaml", "password: Hq7zKp2mXv9L #8035", "Hq7zKp2mXv9L"},
		// Keys that hold no password.
		{"config.yaml", "password_min_length: 12345678x", ""},
		{"settings.py", "PASSWORD_RESET_TIMEOUT = 259200", ""},
		{"config.yaml", "passenger_ruby: /usr/bin/ruby" + pw, ""},
		// Names, references and placeholders that are no value (vite, Caddy).
		{"auth/caddyfile.go", "\t\t\tPassword: b64Pwd,", ""},
		{"auth/caddyfile.go", "\tPassword: user2Name,", ""},
		{"docs/auth.md", "Set `password: user2Name` in the file.", ""},
		{"vars_test.go", `vars: map[string]any{"secret": "{env.CADDY_VARS_TEST_SECRET}"},`, ""},
		{"acme_test.go", `MACKey: "{env.CADDY_TEST_EAB_MAC_KEY}",`, ""},
		{"Caddyfile", "basic_auth { admin {env.ADMIN_PASSWORD_HASH} }", ""},
		{"test-package-e/index.js", "const key = '$$excludedDependencyInstanceCount'", ""},
		{"Makefile", "\tPASSWORD=$$DEPLOY_PASSWORD ./deploy.sh", ""},
		{"acme_test.go", `{"newNonce":"https://acme.localhost:9443/acme/local/new-nonce"}`, ""},
		{"config.yaml", "password: <PASSWORD>", ""},
		{"app.ini", "password = %(" + word + ")s", ""},
		// Shell assignments quoted in prose hold values; member access in C does not.
		{"README.md", "docker run -e SUPERVISOR_PASSWORD=Sunset42 image", "Sunset42"},
		{"README.md", "Set password = Sunset42 in the form.", ""},
		{"lib/pop3.c", "  pop3->passwd = conn->passwd;", ""},
		{"Mailer.php", "            'password'      => Yii::$app->store->get('email', 'smtp_password'),", ""},
		// A typed declaration, and a setter's one argument, assign their value.
		{"Settings.scala", `  val password: String = "` + pw + `"`, pw},
		{"JmxTest.java", `jmxConfig.setPassword("` + pw + `");`, pw},
		{"cli.py", `keyring.set_password("pgcli", key, "` + pw + `")`, ""},
		{"check.py", `if checkPassword("` + pw + `"):`, ""},
		{"form.md", `<Field name="password" :rules="rules" />`, ""},
		{"abide.js", "// generic password: upper-case, lower-case, number/special character", ""},
		{"IntegrationTest.java", `private static final String PASSWORD = "integration-test";`, ""},
		{"config.yaml", "password: integration-test", "integration-test"},
		// A key inside a string literal is text: its bare value is a value.
		{"NacosTest.java", `props.load("shenyu.sync.nacos.password=` + word + `");`, word},
		{"login.js", `{"password": passphrase}`, ""},
		{"auth_test.py", "assert cfg['password'] == '" + pw + "'", pw},
		{"Config.java", `private static final String PASSWORD      = "` + pw + `";`, pw},
		{"Tests.m", `NSString *password = @"` + pw + `";`, pw},
		// A value made of its setting's own words names the setting.
		{"config.yaml", `passphrase: "SECRET_PASSPHRASE"`, ""},
		{".env", "DB_PASS=DB_PASS", ""},
		{"settings.py", `SECRET_KEY = "SECRET_KEY"`, ""},
		// A service's default password is public (commonValue) ...
		{"config.yaml", "postgres_password: postgres", ""},
		{"config.yaml", "admin_pass: Admin@123", ""},
		{"docker-compose.yml", "MYSQL_ROOT_PASSWORD: root", ""},
		{"cfg.xml", `<host user="gorm" password="gorm"/>`, ""},
		// ... but a default word with a random part is a password.
		{"config.yaml", "admin_pass: admin" + pw[:3], "admin" + pw[:3]},
		// A random value that happens to read like a name stays a value where it is quoted.
		{"src/login.py", "password = 'user2Name'", "user2Name"},
		// An encrypted key is useless without its passphrase.
		{"key.pem", "-----BEGIN RSA PRIVATE KEY" + "-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,AB12\n\n" + secrettest.Rand(b64Alphabet, 64) + "\n-----END RSA PRIVATE KEY" + "-----", ""},
	} {
		t.Run(fmt.Sprintf("%s %s", tc.path, tc.text), func(t *testing.T) {
			fs := s.ScanContent([]byte(tc.text), tc.path)
			var got []string
			for _, f := range fs {
				got = append(got, tc.text[f.Start:f.End])
			}
			switch {
			case tc.want == "" && len(fs) > 0:
				t.Errorf("found %q (%s), want nothing", got, fs[0].Rule)
			case tc.want != "" && (len(fs) != 1 || got[0] != tc.want):
				t.Errorf("found %q, want %q", got, tc.want)
			}
		})
	}
}

// TestJWKMembers: d, p, q, dp, dq, qi and k are private only in a JSON Web Key, an
// object with a kty member, in JSON or a JavaScript literal, before or after them.
func TestJWKMembers(t *testing.T) {
	s := defaultScanner(t)
	d := secrettest.Rand(b64Alphabet[:62]+"-_", 43)
	for _, tc := range []struct {
		path, text string
		want       string
	}{
		{"jwk.json", `{"kty":"EC","crv":"P-256","x":"` + d[:20] + `","d":"` + d + `"}`, d},
		{"jwk.json", "{\n  \"kty\": \"OKP\",\n  \"crv\": \"Ed25519\",\n  \"d\": \"" + d + "\"\n}", d},
		{"jwks.json", `{"keys":[{"kty":"oct","k":"` + d + `"}]}`, d},
		{"jwk.test.mjs", "const ec = {\n  crv: 'P-256',\n  d: '" + d + "',\n  kty: 'EC',\n};", d},
		{"plot.js", "const opts = { d: '" + d + "', fill: 'none' };", ""},
		{"svg.json", `{"d":"` + d + `","kind":"path"}`, ""},
		{"jwk.json", `{"kty":"EC","x":"` + d + `"}`, ""},
		{"jwk.json", `[{"kty":"EC"}, {"d":"` + d + `"}]`, ""},
	} {
		t.Run(tc.text, func(t *testing.T) {
			var got []string
			for _, f := range s.ScanContent([]byte(tc.text), tc.path) {
				got = append(got, tc.text[f.Start:f.End])
			}
			if want := []string{tc.want}; tc.want == "" && len(got) > 0 || tc.want != "" && fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("found %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDigitName: identifiers with a number inside are names when they read as words.
func TestDigitName(t *testing.T) {
	for v, want := range map[string]bool{
		"b64Pwd": true, "user2Name": true, "sha256Sum": true, "oauth2Token": true, "x509CertPEM": true,
		"utf8Buf": true, "hexPKCS8TestPKCS1Key": true, "PmLkum4eaevg": false, "Xk29fLq": false, "hK7mPq2x": false, "aB3xQ9zL2mN8pR4t": false,
		"abc123": false, "password": false,
	} {
		if got := digitName([]byte(v)); got != want {
			t.Errorf("digitName(%q) = %v, want %v", v, got, want)
		}
	}
	// Random letters and digits seldom read as a name: 0.87% of them on
	// average (170-179 of 20,000 in five runs, a standard deviation of about
	// 13), so the bound is 1.25%: six deviations above, where 1% failed
	// one run in a few hundred.
	named := 0
	const n = 20000
	for range n {
		if digitName([]byte(secrettest.Rand(b64Alphabet[:62], 8+len(secrettest.Rand("01234567", 1))))) {
			named++
		}
	}
	if named*400 > n*5 {
		t.Errorf("%d of %d random values read as names", named, n)
	}
}

func TestNormalizeKey(t *testing.T) {
	for in, want := range map[string]string{
		"dbPassword": "db_password", "DB-PASSWORD": "db_password", "db.password": "db_password",
		"DBPassword": "db_password", "spring.datasource.password": "spring_datasource_password",
		"$pwd": "pwd", "PASSWORD_FILE": "password_file", "passwordField": "password_field",
	} {
		if got := normalizeKey([]byte(in)); got != want {
			t.Errorf("normalizeKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestValuePass: the matcher finds every copy of a value across block boundaries, never a
// short value glued inside a longer word, and merges overlapping values.
func TestValuePass(t *testing.T) {
	s := defaultScanner(t)
	vals := NewValues()
	long := secrettest.Rand(b64Alphabet[:62], 40)
	vals.Add("generic-api-key", []byte(long))
	vals.Add("internal-ipv4", []byte("10.0.0.1"))
	vals.Add("generic-api-key", []byte("tiny")) // too short to look for
	m := s.Matcher(vals)
	if m.Len() != 2 {
		t.Fatalf("matcher holds %d values, want 2", m.Len())
	}
	var b strings.Builder
	var want []int64
	for i := range 5000 {
		fmt.Fprintf(&b, "line %d tiny 10.0.0.12 x10.0.0.1 ", i)
		if i%700 == 3 {
			want = append(want, int64(b.Len()))
			b.WriteString(long)
		}
		if i%1100 == 7 {
			want = append(want, int64(b.Len()))
			b.WriteString("(10.0.0.1)"[1:9])
		}
		b.WriteString("\n")
	}
	for _, block := range []int{64, 1000, 1 << 20} {
		spans, err := m.find(strings.NewReader(b.String()), block)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, sp := range spans {
			got = append(got, sp.start)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("block %d: found at %v, want %v", block, got, want)
		}
	}
}

// FuzzValuePass: the streaming value pass finds, at any block size, exactly the
// occurrences a plain search finds (for a value long enough to need no boundary check).
func FuzzValuePass(f *testing.F) {
	f.Add([]byte("abcdefghijklmnopqrstuvwxyz0123456789"), []byte("xx abcdefghijklmnopqrstuvwxyz0123456789 yy"), uint16(7))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), []byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), uint16(3))
	s := defaultScanner(f)
	f.Fuzz(func(t *testing.T, value, content []byte, block uint16) {
		if len(value) < shortValueBytes || len(value) > maxValueBytes || bytes.ContainsAny(value, "\n\r") ||
			bytes.Contains(value, []byte(`\n`)) || len(bytes.TrimSpace(value)) != len(value) || identRE.Match(value) ||
			camelOrSnakeRE.Match(value) {
			return
		}
		vals := NewValues()
		vals.Add("r", value)
		m := s.Matcher(vals)
		spans, err := m.find(bytes.NewReader(content), int(block)%4096+1)
		if err != nil {
			t.Fatal(err)
		}
		// The plain search, with overlapping occurrences merged as find merges them.
		var want [][2]int64
		for i := 0; i+len(value) <= len(content); i++ {
			if bytes.Equal(content[i:i+len(value)], value) {
				if n := len(want); n > 0 && int64(i) < want[n-1][1] {
					want[n-1][1] = int64(i + len(value))
					continue
				}
				want = append(want, [2]int64{int64(i), int64(i + len(value))})
			}
		}
		if len(spans) != len(want) {
			t.Fatalf("found %d spans, a plain search %d", len(spans), len(want))
		}
		for i, sp := range spans {
			if sp.start != want[i][0] || sp.end != want[i][1] {
				t.Fatalf("span %d = [%d,%d), want %v", i, sp.start, sp.end, want[i])
			}
		}
	})
}

func TestWordyName(t *testing.T) {
	for v, want := range map[string]bool{
		"testP256PrivateKey": true, "DefaultTimeout": true, "MAX_RETRIES": true, "encodeUserPassword": true,
		"JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP": false, "aB3xQ9zL2mN8pR4t": false, "Xk3j9Qz7Lp2Mv8Nw": false,
	} {
		if got := wordyName([]byte(v)); got != want {
			t.Errorf("wordyName(%q) = %v, want %v", v, got, want)
		}
	}
}
