package wireschema

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCopiesMatchShared checks that the embedded copies are the schemas we
// were given, byte for byte.
func TestCopiesMatchShared(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "schemas")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the shared schemas are not beside the repository (%s): %v", dir, err)
	}
	for _, name := range []string{AIMRequest, V1SendMessage, V03, A2UICapabilitiesV10} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := File(name)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("app/wireschema/schemas/%s differs from ../shared/schemas/%s: copy it again", name, name)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	const uuid = "0b7c5b8e-3f7e-4a59-9a55-2f1f4c1d2e3f"
	tests := []struct {
		name   string
		check  func([]byte) error
		doc    string
		wantOK bool
	}{
		{"aim send ok", s.AIMRequest, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`, true},
		{"aim send lowercase role", s.AIMRequest, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"user","parts":[{"text":"hi"}]}}}`, false},
		{"aim send with taskId", s.AIMRequest, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","taskId":"` + uuid + `","parts":[{"text":"hi"}]}}}`, false},
		{"aim get bad uuid", s.AIMRequest, `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"nope"}}`, false},
		{"aim unknown method", s.AIMRequest, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}`, false},
		{"v1 send ok", s.V1SendMessageParams, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`, true},
		{"v1 send no parts", s.V1SendMessageParams, `{"message":{"messageId":"m","role":"ROLE_USER"}}`, false},
		{"v03 send ok", s.V03Request, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`, true},
		{"v03 unknown method", s.V03Request, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}`, false},
		{"caps ok", s.A2UICapabilities, `{"v1.0":{"supportedCatalogIds":["x"]}}`, true},
		{"caps missing v1.0", s.A2UICapabilities, `{"v0.9":{"supportedCatalogIds":["x"]}}`, false},
		{"not json", s.AIMRequest, `{`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.check([]byte(tt.doc))
			if tt.wantOK && err != nil {
				t.Fatalf("want valid, got %v", err)
			}
			if !tt.wantOK {
				if err == nil {
					t.Fatal("want invalid, got valid")
				}
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("error %v does not match ErrInvalid", err)
				}
			}
		})
	}
}
