package secrets

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The fingerprint key. A fingerprint keyed with a constant lets anyone holding secrets.json
// or the SARIF test guesses against it: every internal address and phone number, and
// common passwords, fall to a few seconds of trying. Keyed with a secret that never lands
// in OUT, a fingerprint is stable for its owner (baselines and SARIF alert tracking work
// across runs) and useless to everyone else.

// KeyFileName is the key's file under the user's configuration directory.
const KeyFileName = "repoprep/fingerprint.key"

// DefaultKeyFile is where a user's key lives: KeyFileName under os.UserConfigDir
// ($XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support on macOS,
// %AppData% on Windows).
func DefaultKeyFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("fingerprint key: %w", err)
	}
	return filepath.Join(dir, filepath.FromSlash(KeyFileName)), nil
}

// LoadKey returns the key in file, creating the file on first use: 32 bytes from
// crypto/rand written as hex, mode 0600, in a directory made 0700. Two runs creating it at
// once agree on one key (the file appears whole or not at all, and the loser reads the
// winner's).
func LoadKey(file string) ([]byte, error) {
	key, err := readKey(file)
	var pathErr *fs.PathError
	switch {
	case err == nil:
		return key, nil
	case errors.Is(err, os.ErrNotExist):
	case errors.As(err, &pathErr): // unreadable, or a file where a directory should be
		return nil, fmt.Errorf("fingerprint key: %w", err)
	default:
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return nil, fmt.Errorf("fingerprint key: %w", err)
	}
	var raw [32]byte
	rand.Read(raw[:])
	tmp, err := os.CreateTemp(filepath.Dir(file), ".fingerprint-*")
	if err != nil {
		return nil, fmt.Errorf("fingerprint key: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(hex.EncodeToString(raw[:]) + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("fingerprint key: %w", err)
	}
	// Link, not rename: it fails when another run made the file first, and then that
	// run's key is the one.
	if err := os.Link(tmp.Name(), file); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("fingerprint key: %w", err)
	}
	return readKey(file)
}

func readKey(file string) ([]byte, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	key := bytes.TrimSpace(b)
	if len(key) < 16 {
		return nil, fmt.Errorf("fingerprint key %s: %d bytes, want at least 16; delete it to make a new one", file, len(key))
	}
	return key, nil
}
