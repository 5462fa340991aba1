package auth

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// ErrSecretCorrupt: a stored secret cannot be decrypted (the key file was
// lost or replaced, the machine changed, or the file was tampered with).
// Signing in again replaces it.
var ErrSecretCorrupt = errors.New("auth: a stored secret cannot be read; sign in again")

const (
	fileMagic   = "AIMS1"
	fileExt     = ".sec"
	keyFileSize = 32
)

// FileStoreConfig configures an encrypted file store.
type FileStoreConfig struct {
	// Dir holds one file per secret; it is created 0700 (and tightened to
	// 0700 if it exists with wider permissions). Required.
	Dir string
	// KeyFile holds 32 random bytes, created 0600 on first use. "" means
	// <user cache dir>/aimdesk/secret-store.key, a place backups usually
	// skip, or Dir/.key where there is no cache dir.
	KeyFile string
	// MachineSecret returns machine- and user-specific bytes mixed into the
	// key (so a copied secrets folder and key file do not open on another
	// machine or account); nil means the OS machine id, the user id and the
	// home folder.
	MachineSecret func() []byte
}

// FileStore keeps secrets encrypted with AES-256-GCM in files readable by
// the user only (0600 in a 0700 folder). The key is HKDF-SHA256 of a
// separate 0600 key file and machine/user material.
//
// What this protects against: casual reading of the folder, and copies of
// it (backups, synced folders, a stolen disk image without the key file or
// from another machine). What it does not protect against: malware or any
// process running as the same user, which can read the key file and the
// machine id as easily as aimdesk does. See docs/security.md.
type FileStore struct {
	dir  string
	aead cipher.AEAD
	mu   sync.Mutex
}

// OpenFileStore creates the folder and the key file if needed.
func OpenFileStore(cfg FileStoreConfig) (*FileStore, error) {
	if cfg.Dir == "" {
		return nil, errors.New("auth: FileStoreConfig.Dir is required")
	}
	if err := ensurePrivateDir(cfg.Dir); err != nil {
		return nil, err
	}
	keyPath := cfg.KeyFile
	if keyPath == "" {
		if cache, err := os.UserCacheDir(); err == nil {
			keyPath = filepath.Join(cache, "aimdesk", "secret-store.key")
		} else {
			keyPath = filepath.Join(cfg.Dir, ".key")
		}
	}
	if err := ensurePrivateDir(filepath.Dir(keyPath)); err != nil {
		return nil, err
	}
	fileKey, err := loadOrCreateKey(keyPath)
	if err != nil {
		return nil, err
	}
	material := cfg.MachineSecret
	if material == nil {
		material = machineSecret
	}
	key, err := hkdf.Key(sha256.New, fileKey, material(), "aimdesk secret store v1", 32)
	if err != nil {
		return nil, fmt.Errorf("auth: derive key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	return &FileStore{dir: cfg.Dir, aead: aead}, nil
}

func ensurePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("auth: secret folder: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("auth: secret folder: %w", err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil { // #nosec G302 -- a folder needs x; 0700 is owner-only
			return fmt.Errorf("auth: secret folder %s is readable by others and cannot be fixed: %w", dir, err)
		}
	}
	return nil
}

func loadOrCreateKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path) // #nosec G304 -- the configured key file
	if errors.Is(err, fs.ErrNotExist) {
		k := make([]byte, keyFileSize)
		if _, err := rand.Read(k); err != nil {
			return nil, fmt.Errorf("auth: key file: %w", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600) // #nosec G304 -- the configured key file
		if errors.Is(err, fs.ErrExist) {
			return loadOrCreateKey(path) // another process made it first
		}
		if err != nil {
			return nil, fmt.Errorf("auth: key file: %w", err)
		}
		_, werr := f.Write(k)
		serr := f.Sync()
		cerr := f.Close()
		if err := errors.Join(werr, serr, cerr); err != nil {
			_ = os.Remove(path)
			return nil, fmt.Errorf("auth: key file: %w", err)
		}
		return k, nil
	}
	if err != nil {
		return nil, fmt.Errorf("auth: key file: %w", err)
	}
	if len(b) != keyFileSize {
		return nil, fmt.Errorf("%w: the key file %s is not %d bytes", ErrSecretCorrupt, path, keyFileSize)
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			_ = os.Chmod(path, 0o600)
		}
	}
	return b, nil
}

// machineSecret is the default MachineSecret: /etc/machine-id (or D-Bus's
// copy) where it exists, the user id and the home folder.
func machineSecret() []byte {
	var b bytes.Buffer
	for _, p := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id"} {
		if id, err := os.ReadFile(p); err == nil { // #nosec G304 -- fixed system paths
			b.Write(bytes.TrimSpace(id))
			break
		}
	}
	b.WriteString("|uid=" + strconv.Itoa(os.Getuid()))
	if home, err := os.UserHomeDir(); err == nil {
		b.WriteString("|home=" + home)
	}
	return b.Bytes()
}

func (s *FileStore) fileName(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:16]) + fileExt
}

func (s *FileStore) aad(name string) []byte { return []byte(fileMagic + ":" + name) }

type fileRecord struct {
	Key   string `json:"k"`
	Value []byte `json:"v"`
}

// Get implements SecretStore.
func (s *FileStore) Get(key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.read(s.fileName(key))
	if err != nil {
		return nil, err
	}
	if rec.Key != key {
		return nil, fmt.Errorf("%w: the file for %q holds another key", ErrSecretCorrupt, key)
	}
	return rec.Value, nil
}

func (s *FileStore) read(name string) (*fileRecord, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, name)) // #nosec G304 -- name is a hex digest made here
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrSecretNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("auth: secret file: %w", err)
	}
	ns := s.aead.NonceSize()
	if len(b) < len(fileMagic)+ns+s.aead.Overhead() || string(b[:len(fileMagic)]) != fileMagic {
		return nil, fmt.Errorf("%w: %s is not a secret file", ErrSecretCorrupt, name)
	}
	b = b[len(fileMagic):]
	plain, err := s.aead.Open(nil, b[:ns], b[ns:], s.aad(name))
	if err != nil {
		return nil, fmt.Errorf("%w: %s does not decrypt", ErrSecretCorrupt, name)
	}
	var rec fileRecord
	if err := json.Unmarshal(plain, &rec); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrSecretCorrupt, name, err)
	}
	return &rec, nil
}

// Set implements SecretStore. The file is written to a temporary file and
// renamed, so a crash never leaves half a secret.
func (s *FileStore) Set(key string, value []byte) error {
	plain, err := json.Marshal(fileRecord{Key: key, Value: value})
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	name := s.fileName(key)
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	out := append([]byte(fileMagic), nonce...)
	out = s.aead.Seal(out, nonce, plain, s.aad(name))
	s.mu.Lock()
	defer s.mu.Unlock()
	tmp, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("auth: secret file: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		_ = tmp.Close()
		return fmt.Errorf("auth: secret file: %w", err)
	}
	_, werr := tmp.Write(out)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("auth: secret file: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(s.dir, name)); err != nil {
		return fmt.Errorf("auth: secret file: %w", err)
	}
	return nil
}

// Delete implements SecretStore.
func (s *FileStore) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := os.Remove(filepath.Join(s.dir, s.fileName(key)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("auth: secret file: %w", err)
	}
	return nil
}

// Keys lists the keys stored (files that do not decrypt are skipped).
func (s *FileStore) Keys() ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("auth: secret folder: %w", err)
	}
	var out []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), fileExt) {
			continue
		}
		if rec, err := s.read(e.Name()); err == nil {
			out = append(out, rec.Key)
		}
	}
	return out, nil
}

// Dir is the folder the secrets are kept in.
func (s *FileStore) Dir() string { return s.dir }
