package stages

import "testing"

// TestLineTokensCloseLetsGo: the spill's places point at every staged
// text's record; once Close is called (after the index is written) they
// keep none, so the records go as the manifest is made. Before, a run
// held every staged record until it returned, beside the manifest and
// the refresh state (about 500 bytes a file at its peak).
func TestLineTokensCloseLetsGo(t *testing.T) {
	for _, tc := range []struct {
		name  string
		texts int
	}{{"none", 0}, {"one", 1}, {"several", 5}} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewLineTokens(t.TempDir(), tc.texts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.texts {
				rec := NewRecord("f"+string(rune('a'+i)), "f", 1)
				if err := s.add(rec, [32]byte{byte(i)}, []byte{1, 2}, 1, 1); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if s.at != nil {
				t.Errorf("after Close the spill holds %d records", len(s.at))
			}
		})
	}
}
