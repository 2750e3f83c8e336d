package secrets

import (
	"encoding/hex"
	"slices"

	"github.com/zeebo/blake3"
)

// Digests returns, sorted, a keyed BLAKE3 digest (16 bytes, hex) of every
// value in the set, so a later run can tell whether it looks for a value an
// earlier one did not, without either run writing a value down. key must
// be 32 bytes and secret (derived from the fingerprint key, which never
// lands in OUT): without it nobody can test a guessed password against a
// digest, as with fingerprints.
func (v *Values) Digests(key []byte) ([]string, error) {
	h, err := blake3.NewKeyed(key)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	out := make([]string, 0, len(v.rules))
	for val := range v.rules {
		d := h.Clone()
		d.WriteString(val)
		var sum [16]byte
		d.Digest().Read(sum[:])
		out = append(out, hex.EncodeToString(sum[:]))
	}
	v.mu.Unlock()
	slices.Sort(out)
	return out, nil
}
