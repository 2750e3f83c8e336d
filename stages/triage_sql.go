package stages

import (
	"bytes"
	"fmt"
	"strconv"
)

// sqlMarkerBytes is how far into a file a dump tool's header is looked for.
const sqlMarkerBytes = 4 << 10

// sqlDump tells a dump from a schema by the sniffed head (sql.toml): it
// returns why the file is a dump, or "" for a schema, migration or script.
// A dump has a dump tool's header, COPY ... FROM stdin data, or bulk
// INSERTs; CREATE/ALTER statements with a few seed rows are source.
func (e *Env) sqlDump(head []byte) string {
	q := &e.Rules.Triage.SQL
	top := head[:min(len(head), sqlMarkerBytes)]
	for _, m := range q.DumpMarkers {
		if bytes.Contains(top, []byte(m)) {
			return "dump header " + strconv.Quote(m)
		}
	}
	var insertBytes, stmtBytes, rows int
	inStatement, inInsert := false, false
	for rest := head; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 || bytes.HasPrefix(t, []byte("--")) || bytes.HasPrefix(t, []byte("#")) {
			continue
		}
		if !inStatement {
			inStatement = true
			inInsert = hasPrefixFold(t, "INSERT") || hasPrefixFold(t, "REPLACE")
			if hasPrefixFold(t, "COPY") && bytes.Contains(bytes.ToLower(t), []byte("from stdin")) {
				return "COPY ... FROM stdin data"
			}
		}
		stmtBytes += len(t)
		if inInsert {
			insertBytes += len(t)
			rows += bytes.Count(t, []byte("),"))
		}
		if t[len(t)-1] == ';' {
			if inInsert {
				rows++
			}
			inStatement, inInsert = false, false
		}
	}
	switch {
	case q.BulkRows > 0 && rows >= q.BulkRows:
		return fmt.Sprintf("bulk INSERT: %d rows in the first %d bytes", rows, len(head))
	case q.BulkHeadBytes > 0 && len(head) >= q.BulkHeadBytes && insertBytes*2 > stmtBytes:
		return fmt.Sprintf("INSERT statements are %d%% of the first %d bytes", insertBytes*100/max(stmtBytes, 1), len(head))
	}
	return ""
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && bytes.EqualFold(b[:len(prefix)], []byte(prefix))
}
