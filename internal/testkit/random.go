package testkit

import "crypto/rand"

// Alphabets for RandomString: credential shapes take their characters
// from one of these.
const (
	AlphaNum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	Upper32  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567" // AWS key IDs, base32
)

// RandomString makes n characters of alphabet at run time, for
// credential-shaped fixtures: nothing secret-looking is committed.
func RandomString(alphabet string, n int) string {
	b := make([]byte, n)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
