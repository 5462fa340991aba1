package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// holdEnv makes the test binary a helper process that opens the store at
// the given path, prints "ready" and waits until its stdin closes or it is
// killed (TestOpenLockedByAnotherProcess).
const holdEnv = "AIMDESK_STORE_TEST_HOLD"

func TestMain(m *testing.M) {
	if path := os.Getenv(holdEnv); path != "" {
		os.Exit(holdHelper(path))
	}
	os.Exit(m.Run())
}

func holdHelper(path string) int {
	s, err := Open(context.Background(), path)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	defer s.Close()
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/tmp/cfg")
	t.Setenv("HOME", "/tmp/home")
	p, err := DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := os.UserConfigDir()
	if want := filepath.Join(dir, "aimdesk", "aimdesk.db"); p != want {
		t.Errorf("DefaultPath() = %q, want %q", p, want)
	}
}

func TestOpenCreatesPrivateFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg", "aimdesk")
	path := filepath.Join(dir, "aimdesk.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Path() != path {
		t.Errorf("Path() = %q, want %q", s.Path(), path)
	}
	for _, tc := range []struct {
		name string
		want os.FileMode
	}{
		{filepath.Dir(dir), 0o700},
		{dir, 0o700},
		{path, 0o600},
		{path + "-wal", 0o600},
		{path + ".lock", 0o600},
	} {
		t.Run(filepath.Base(tc.name), func(t *testing.T) {
			fi, err := os.Stat(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tc.want {
				t.Errorf("mode = %v, want %v", got, tc.want)
			}
		})
	}

	ctx := context.Background()
	var mode string
	if err := s.w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	for _, tc := range []struct {
		pragma string
		reader bool
		want   int64
	}{
		{"foreign_keys", false, 1},
		{"foreign_keys", true, 1},
		{"busy_timeout", false, busyTimeout.Milliseconds()},
		{"busy_timeout", true, busyTimeout.Milliseconds()},
		{"query_only", true, 1},
		{"query_only", false, 0},
		{"synchronous", false, 1}, // NORMAL
		{"user_version", false, int64(SchemaVersion())},
		{"application_id", false, applicationID},
	} {
		t.Run(fmt.Sprintf("%s/reader=%v", tc.pragma, tc.reader), func(t *testing.T) {
			db := s.w
			if tc.reader {
				db = s.r
			}
			if got := pragmaInt(t, db, tc.pragma); got != tc.want {
				t.Errorf("PRAGMA %s = %d, want %d", tc.pragma, got, tc.want)
			}
		})
	}
}

func TestOpenEmptyFile(t *testing.T) {
	// A zero-length file is a valid empty SQLite database: a crash right
	// after the first start can leave one.
	path := filepath.Join(t.TempDir(), "aimdesk.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open(empty file): %v", err)
	}
	defer s.Close()
	putAgent(t, s, "a")
}

// randomBytes returns n reproducible pseudo-random bytes.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestOpenDamaged(t *testing.T) {
	tests := []struct {
		name  string
		write func(t *testing.T, path string)
	}{
		{"random bytes", func(t *testing.T, path string) {
			writeFile(t, path, randomBytes(1, 64<<10))
		}},
		{"text file", func(t *testing.T, path string) {
			writeFile(t, path, []byte("these are not the bytes you are looking for\n"))
		}},
		{"header only", func(t *testing.T, path string) {
			writeFile(t, path, append([]byte("SQLite format 3\x00"), randomBytes(2, 84)...))
		}},
		{"another program's database", func(t *testing.T, path string) {
			db := rawDB(t, path)
			if _, err := db.Exec("CREATE TABLE photos (id INTEGER PRIMARY KEY, blob BLOB)"); err != nil {
				t.Fatal(err)
			}
			_ = db.Close()
		}},
		{"another application id", func(t *testing.T, path string) {
			db := rawDB(t, path)
			if _, err := db.Exec("PRAGMA application_id = 1234"); err != nil {
				t.Fatal(err)
			}
			_ = db.Close()
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "aimdesk.db")
			tc.write(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}

			_, err = Open(ctx, path)
			wantIs(t, err, ErrDamaged)
			var oe *OpenError
			if !errors.As(err, &oe) || oe.Path != path {
				t.Fatalf("error %T %v is not an *OpenError for %s", err, err, path)
			}
			if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "move it aside") {
				t.Errorf("message does not name the file and the way out: %q", msg)
			}

			moved, err := MoveAside(path)
			if err != nil {
				t.Fatalf("MoveAside: %v", err)
			}
			if after, err := os.ReadFile(moved); err != nil || string(after) != string(before) {
				t.Errorf("moved file %s differs from the damaged one (err %v)", moved, err)
			}
			s, err := Open(ctx, path)
			if err != nil {
				t.Fatalf("Open after MoveAside: %v", err)
			}
			defer s.Close()
			if agents, err := s.Agents(ctx); err != nil || len(agents) != 0 {
				t.Errorf("fresh store Agents() = %v, %v; want none", agents, err)
			}
		})
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestOpenCorrupted damages a real database in several ways. Open must
// either refuse it with ErrDamaged or open it, and then Check must report
// ErrDamaged; no call may panic, and MoveAside must get the app going.
func TestOpenCorrupted(t *testing.T) {
	ctx := context.Background()
	fixture := filepath.Join(t.TempDir(), "fixture.db")
	func() {
		s, err := Open(ctx, fixture)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		putAgent(t, s, "a")
		putConversation(t, s, "a", "c")
		bulkMessages(t, s, "c", 2000, testParts(300))
	}()
	good, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	pages := len(good) / page
	t.Logf("fixture: %d bytes, %d pages", len(good), pages)

	tests := []struct {
		name    string
		corrupt func(b []byte) []byte
	}{
		{"truncated to half", func(b []byte) []byte { return b[:pages/2*page] }},
		{"truncated mid-page", func(b []byte) []byte { return b[:pages/2*page+1234] }},
		{"truncated to one page", func(b []byte) []byte { return b[:page] }},
		{"garbage over a data page", func(b []byte) []byte {
			copy(b[pages/2*page:], randomBytes(3, page))
			return b
		}},
		{"garbage over the last page", func(b []byte) []byte {
			copy(b[(pages-1)*page:], randomBytes(4, page))
			return b
		}},
		{"garbage over the schema page", func(b []byte) []byte {
			copy(b[100:page], randomBytes(5, page-100))
			return b
		}},
		{"zeroed index pages", func(b []byte) []byte {
			for p := 2; p < pages; p += 7 {
				clear(b[p*page : (p+1)*page])
			}
			return b
		}},
		{"broken magic", func(b []byte) []byte {
			copy(b, "SQLite format 2\x00")
			return b
		}},
		{"bad page size", func(b []byte) []byte {
			b[16], b[17] = 0x12, 0x34
			return b
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "aimdesk.db")
			writeFile(t, path, tc.corrupt(append([]byte(nil), good...)))

			damaged := false
			s, err := Open(ctx, path)
			if err != nil {
				var oe *OpenError
				if !errors.As(err, &oe) {
					t.Fatalf("Open error %T is not an *OpenError: %v", err, err)
				}
				damaged = errors.Is(err, ErrDamaged)
				t.Logf("Open: %v", err)
			} else {
				// Every call must return, with data or an error.
				_, errA := s.Agents(ctx)
				_, errL := s.LastMessages(ctx, "c", 200)
				_, errM := s.Messages(ctx, "c", 1, 0)
				_, errN := s.MessageCount(ctx, "c")
				errW := s.AppendMessage(ctx, &Message{ConversationID: "c", Role: "ROLE_USER", State: "done"})
				errC := s.Check(ctx)
				t.Logf("Agents: %v; LastMessages: %v; Messages: %v; MessageCount: %v; AppendMessage: %v; Check: %v",
					errA, errL, errM, errN, errW, errC)
				damaged = errors.Is(errC, ErrDamaged)
				if err := s.Close(); err != nil {
					t.Logf("Close: %v", err)
				}
			}
			if !damaged {
				t.Errorf("neither Open nor Check reported ErrDamaged")
			}

			if _, err := MoveAside(path); err != nil {
				t.Fatalf("MoveAside: %v", err)
			}
			s, err = Open(ctx, path)
			if err != nil {
				t.Fatalf("Open after MoveAside: %v", err)
			}
			_ = s.Close()
		})
	}
}

func TestCheckHealthy(t *testing.T) {
	s := openTest(t)
	putAgent(t, s, "a")
	putConversation(t, s, "a", "c")
	appendMessages(t, s, "c", 100, testParts(300))
	if err := s.Check(context.Background()); err != nil {
		t.Fatalf("Check on a healthy store: %v", err)
	}
}

func TestOpenLocked(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "aimdesk.db")
	first, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	second, err := Open(ctx, path)
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("second Open took %v, want < 2s", elapsed)
	}
	if err == nil {
		_ = second.Close()
		t.Fatal("second Open of the same path succeeded")
	}
	wantIs(t, err, ErrLocked)
	if msg := err.Error(); !strings.Contains(msg, "another aimdesk") || !strings.Contains(msg, strconv.Itoa(os.Getpid())) {
		t.Errorf("message does not say who holds it: %q", msg)
	}

	_, err = MoveAside(path)
	wantIs(t, err, ErrLocked)

	// The first store is unaffected, and once closed the path opens again.
	putAgent(t, first, "a")
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	again, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	defer again.Close()
	if _, err := again.Agent(ctx, "a"); err != nil {
		t.Errorf("Agent after reopen: %v", err)
	}
}

// TestOpenLockedByAnotherProcess holds the store in a child process: Open
// here fails with ErrLocked naming the child, and once the child is killed
// (no Close, as in a crash) the lock is gone.
func TestOpenLockedByAnotherProcess(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "aimdesk.db")
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		t.Fatalf("helper said %q, %v", line, err)
	}

	ctx := context.Background()
	_, err = Open(ctx, path)
	wantIs(t, err, ErrLocked)
	if !strings.Contains(err.Error(), strconv.Itoa(cmd.Process.Pid)) {
		t.Errorf("message does not name process %d: %v", cmd.Process.Pid, err)
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after the holder died: %v", err)
	}
	_ = s.Close()
}

func TestOpenTooNew(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "aimdesk.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	putAgent(t, s, "a")
	_ = s.Close()

	newer := int64(SchemaVersion() + 1)
	db := rawDB(t, path)
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", newer)); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()

	_, err = Open(ctx, path)
	wantIs(t, err, ErrTooNew)
	if msg := err.Error(); !strings.Contains(msg, "newer version of aimdesk") || !strings.Contains(msg, "Update aimdesk") {
		t.Errorf("message does not give the way out: %q", msg)
	}
	db = rawDB(t, path)
	if got := pragmaInt(t, db, "user_version"); got != newer {
		t.Errorf("user_version = %d after the refused Open, want %d untouched", got, newer)
	}
}

func TestOpenCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "aimdesk.db"))
	if err == nil {
		_ = s.Close()
		t.Fatal("Open with a canceled context succeeded")
	}
	wantIs(t, err, context.Canceled)
}

func TestOpenErrorMessages(t *testing.T) {
	tests := []struct {
		err  error
		want []string
	}{
		{ErrDamaged, []string{"damaged", "move it aside"}},
		{&lockedError{pid: 42}, []string{"in use by another aimdesk", "Close the other aimdesk", "process 42"}},
		{fmt.Errorf("%w: schema version 9", ErrTooNew), []string{"newer version", "Update aimdesk", "schema version 9"}},
		{fmt.Errorf("%w: permission denied", ErrReadOnly), []string{"cannot write", "/x/aimdesk", "permission denied"}},
		{errors.New("boom"), []string{"could not open", "boom"}},
	}
	for _, tc := range tests {
		t.Run(tc.err.Error(), func(t *testing.T) {
			msg := (&OpenError{Path: "/x/aimdesk/aimdesk.db", Err: tc.err}).Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q lacks %q", msg, w)
				}
			}
		})
	}
}

// TestOpenBusyDatabase has another connection (as another program would)
// hold the write lock without aimdesk's lock file: Open gives up with
// ErrLocked after its short busy timeout instead of hanging.
func TestOpenBusyDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "aimdesk.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()

	db := rawDB(t, path)
	tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()

	start := time.Now()
	s, err = Open(ctx, path)
	elapsed := time.Since(start)
	if err == nil {
		_ = s.Close()
		t.Fatal("Open succeeded while another connection held the write lock")
	}
	wantIs(t, err, ErrLocked)
	// openBusyTimeout plus slack for a loaded machine under -race.
	if elapsed > 3*time.Second {
		t.Errorf("Open took %v to give up, want about %v", elapsed, openBusyTimeout)
	}
	t.Logf("after %v: %v", elapsed.Round(time.Millisecond), err)
}

// TestAttackLooseDatabaseModes: a database (and its WAL) left 0644 by an
// older version or copied in, in an aimdesk folder left 0755, let other
// local users read the conversations and the audit log. Opening tightens
// them; a shared folder chosen with --data keeps its mode.
func TestAttackLooseDatabaseModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes")
	}
	ctx := context.Background()
	base := t.TempDir()
	dir := filepath.Join(base, "aimdesk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "aimdesk.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, path, path + "-wal"} {
		_ = os.Chmod(p, 0o755)
	}
	if err := os.WriteFile(path+"-wal", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(path, 0o644)
	_ = os.Chmod(dir, 0o755)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	st, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600, path + "-wal": 0o600, base: 0o755} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", p, got, want)
		}
	}
}
