package store

import (
	"context"
	"testing"
)

func TestSettings(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	steps := []struct {
		name   string
		put    *[2]string
		key    string
		want   string
		wantOK bool
	}{
		{name: "absent", key: "theme"},
		{name: "put", put: &[2]string{"theme", "dark"}, key: "theme", want: "dark", wantOK: true},
		{name: "replace", put: &[2]string{"theme", "light"}, key: "theme", want: "light", wantOK: true},
		{name: "empty value is a value", put: &[2]string{"proxy", ""}, key: "proxy", want: "", wantOK: true},
		{name: "other keys untouched", key: "theme", want: "light", wantOK: true},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.put != nil {
				if err := s.PutSetting(ctx, st.put[0], st.put[1]); err != nil {
					t.Fatal(err)
				}
			}
			v, ok, err := s.Setting(ctx, st.key)
			if err != nil || v != st.want || ok != st.wantOK {
				t.Errorf("Setting(%q) = %q, %v, %v; want %q, %v", st.key, v, ok, err, st.want, st.wantOK)
			}
		})
	}
}
