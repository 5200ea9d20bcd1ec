package instance

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// needRoot skips a test that switches users, except under CI=true, where it fails.
func needRoot(t *testing.T) User {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true: this test runs servers' users and needs root")
		}
		t.Skip("needs root")
	}
	u, err := ServerUser("postgres", "mysql", "nobody")
	if err != nil || !u.Switch {
		t.Fatalf("no server user to switch to: %+v, %v", u, err)
	}
	return u
}

// canEnter runs cd DIR as uid/gid in a real process.
func canEnter(t *testing.T, uid, gid uint32, dir string) bool {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", `cd "$0"`, dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid, Groups: []uint32{}}}
	return cmd.Run() == nil
}

// TestReachGrantsInsideTraversable: as root, a 0700 directory from mktemp -d keeps the
// server's user out. When it is one the user gave tierbench (traversable), Reach lets
// that user alone through it with an ACL entry; a closed directory outside them is
// an error naming it, and nothing is changed then.
func TestReachGrantsInsideTraversable(t *testing.T) {
	u := needRoot(t)
	root, err := os.MkdirTemp("", "tierbench-acl-") // 0700, as mktemp -d
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	out := filepath.Join(root, "out")
	db := filepath.Join(out, "db")
	if err := os.MkdirAll(db, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(out, 0o700); err != nil {
		t.Fatal(err)
	}

	// The root's parent is closed and not the user's to open: an error, nothing changed.
	_, err = u.Reach(db, []string{out})
	var ue *UnreachableError
	if !errors.As(err, &ue) || ue.Dir != root || ue.User != u.Name || ue.Mode != 0o700 {
		t.Fatalf("Reach through a closed parent: %v", err)
	}
	for _, d := range []string{root, out} {
		if acl, err := readACL(d); acl != nil || err != nil {
			t.Errorf("%s got an ACL %v (%v) from a refused Reach", d, acl, err)
		}
	}

	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if canEnter(t, u.UID, u.GID, db) {
		t.Fatal("the server user enters a 0700 directory: the test proves nothing")
	}
	granted, err := u.Reach(db, []string{out})
	if err != nil || len(granted) != 1 || granted[0] != out {
		t.Fatalf("Reach: granted %v, %v; want %s", granted, err, out)
	}
	if !canEnter(t, u.UID, u.GID, db) {
		t.Errorf("user %s cannot enter %s after the grant", u.Name, db)
	}
	if err := u.CheckReachable(db); err != nil {
		t.Errorf("CheckReachable after the grant: %v", err)
	}
	// Only that user: others stay out, and the mode's other bits are unchanged.
	const someone = 54321
	if canEnter(t, someone, someone, db) {
		t.Errorf("uid %d enters %s too", someone, db)
	}
	st, err := os.Stat(out)
	if err != nil || st.Mode().Perm() != 0o710 {
		t.Errorf("mode %v (%v), want 0710: the group bits show the ACL mask (--x), others none", st.Mode().Perm(), err)
	}
	// Granting again changes nothing.
	if granted, err := u.Reach(db, []string{out}); len(granted) != 0 || err != nil {
		t.Errorf("second Reach: %v, %v", granted, err)
	}
}

// TestGrantSearchKeepsOthersOut: a mask that withholds search from an entry that has
// it would lift that entry too: the grant is refused and the ACL left alone.
func TestGrantSearchKeepsOthersOut(t *testing.T) {
	u := needRoot(t)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	// group r-x, but the mask lets the group read only.
	acl := []aclItem{{aclUserObj, 7, aclNoID}, {aclGroupObj, 5, aclNoID}, {aclMask, 4, aclNoID}, {aclOther, 0, aclNoID}}
	if err := unix.Setxattr(dir, aclXattr, encodeACL(acl), 0); err != nil {
		t.Skipf("no ACLs on %s: %v", dir, err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	if err := grantSearch(dir, &st, u.UID); err == nil {
		t.Error("granted, lifting the group's search too")
	}
	got, err := readACL(dir)
	if err != nil || len(got) != len(acl) {
		t.Errorf("ACL after the refusal: %v, %v", got, err)
	}
}
