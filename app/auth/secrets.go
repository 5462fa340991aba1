package auth

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/zalando/go-keyring"
)

// SecretStore keeps secrets (tokens, keys, client secrets) by key. Values
// are opaque bytes. Implementations are safe for concurrent use.
type SecretStore interface {
	// Get returns the value under key, or an error matching ErrSecretNotFound.
	Get(key string) ([]byte, error)
	// Set stores value under key, replacing any previous value.
	Set(key string, value []byte) error
	// Delete removes key; deleting a missing key is not an error.
	Delete(key string) error
}

// KeyringService is the service name aimdesk's entries carry in the OS
// keyring (Secret Service, macOS Keychain, Windows Credential Manager).
const KeyringService = "aimdesk"

// KeyringStore keeps secrets in the OS keyring through
// github.com/zalando/go-keyring. Values are base64-encoded, since some
// backends take text only.
type KeyringStore struct {
	// Service is the keyring service name; "" means KeyringService.
	Service string
}

func (k KeyringStore) service() string {
	if k.Service == "" {
		return KeyringService
	}
	return k.Service
}

// Get implements SecretStore.
func (k KeyringStore) Get(key string) ([]byte, error) {
	v, err := keyring.Get(k.service(), key)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil, ErrSecretNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("auth: keyring: %w", err)
	}
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return nil, fmt.Errorf("auth: keyring entry %q: %w", key, err)
	}
	return b, nil
}

// Set implements SecretStore. Windows limits an entry to 2,560 bytes and
// returns keyring.ErrSetDataTooBig above that.
func (k KeyringStore) Set(key string, value []byte) error {
	if err := keyring.Set(k.service(), key, base64.StdEncoding.EncodeToString(value)); err != nil {
		return fmt.Errorf("auth: keyring: %w", err)
	}
	return nil
}

// Delete implements SecretStore.
func (k KeyringStore) Delete(key string) error {
	err := keyring.Delete(k.service(), key)
	if err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("auth: keyring: %w", err)
	}
	return nil
}

// KeyringAvailable probes the OS keyring by writing, reading and deleting a
// random entry. It fails on headless machines without a Secret Service
// (such as CI), where OpenSecretStore falls back to the encrypted file.
func KeyringAvailable(service string) error {
	var nonce [9]byte
	_, _ = rand.Read(nonce[:])
	key := "probe-" + base64.RawURLEncoding.EncodeToString(nonce[:])
	k := KeyringStore{Service: service}
	if err := k.Set(key, []byte("probe")); err != nil {
		return fmt.Errorf("%w: %w", ErrNoKeyring, err)
	}
	defer k.Delete(key)
	v, err := k.Get(key)
	if err != nil || string(v) != "probe" {
		return fmt.Errorf("%w: the probe entry did not read back", ErrNoKeyring)
	}
	return nil
}

// OpenSecretStore returns the OS keyring when it works, else an encrypted
// FileStore in dir (see FileStore for what that protects against). The
// second result names the store for the settings screen.
func OpenSecretStore(dir string) (SecretStore, string, error) {
	if err := KeyringAvailable(KeyringService); err == nil {
		return KeyringStore{}, "the system keyring", nil
	}
	fs, err := OpenFileStore(FileStoreConfig{Dir: dir})
	if err != nil {
		return nil, "", err
	}
	return fs, "an encrypted file in " + dir, nil
}
