package instance

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"tierbench/internal/rundir"
)

// User is the OS account a server runs as.
type User struct {
	Name     string
	UID, GID uint32
	// Switch is set when tierbench runs as root and starts the server as Name.
	Switch bool
	// Env is added to the environment of every program Command prepares
	// (engine.Config.Env).
	Env []string
}

// ServerUser picks the account for a server. Unprivileged, tierbench runs the server
// as itself. As root, it uses the first of names that exists; when none does, it
// returns root itself with Switch unset, and the caller decides whether the server
// may run as root.
func ServerUser(names ...string) (User, error) {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		name := strconv.Itoa(os.Geteuid())
		if err == nil {
			name = u.Username
		}
		return User{Name: name, UID: uint32(os.Geteuid()), GID: uint32(os.Getegid())}, nil
	}
	for _, n := range names {
		u, err := user.Lookup(n)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil {
			continue
		}
		return User{Name: n, UID: uint32(uid), GID: uint32(gid), Switch: true}, nil
	}
	return User{Name: "root"}, nil
}

// Chown gives the server user each path (not recursively); a no-op unless Switch.
func (u User) Chown(paths ...string) error {
	if !u.Switch {
		return nil
	}
	for _, p := range paths {
		if err := os.Chown(p, int(u.UID), int(u.GID)); err != nil {
			return fmt.Errorf("give %s to user %s: %w", p, u.Name, err)
		}
	}
	return nil
}

// MkdirOwned creates dir (0700; missing parents 0755) for the server user and gives
// it to that user. It reports whether it created dir. Make sure the user can reach
// the parent first (Reach).
func (u User) MkdirOwned(dir string) (bool, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return false, fmt.Errorf("create %s: %w", filepath.Dir(dir), err)
	}
	created := true
	if err := os.Mkdir(dir, 0o700); errors.Is(err, os.ErrExist) {
		created = false
	} else if err != nil {
		return false, fmt.Errorf("create %s: %w", dir, err)
	}
	return created, u.Chown(dir)
}

// UnreachableError says that the server user cannot pass through a directory on the
// way to its files.
type UnreachableError struct {
	User string
	// Dir is the directory that keeps the user out; Mode its permission bits.
	Dir  string
	Mode uint32
	// Why, when set, says why tierbench did not let the user through.
	Why string
}

func (e *UnreachableError) Error() string {
	msg := fmt.Sprintf("the server runs as user %s, which cannot enter %s (mode %04o): "+
		"run chmod o+x %s or choose a directory it can reach", e.User, e.Dir, e.Mode, e.Dir)
	if e.Why != "" {
		msg += " (" + e.Why + ")"
	}
	return msg
}

// CheckReachable reports whether the server user can enter every directory on the way
// to dir, which a root-owned 0700 parent (as os.MkdirTemp makes) prevents. Access
// ACLs count: Reach grants through them.
func (u User) CheckReachable(dir string) error {
	blocked, err := u.blockers(dir)
	if err != nil || len(blocked) == 0 {
		return err
	}
	return blocked[0].err
}

type blocker struct {
	dir string
	st  syscall.Stat_t
	err *UnreachableError
}

// blockers are the directories on the way to dir (dir included) the user cannot
// enter, nearest to the root first.
func (u User) blockers(dir string) ([]blocker, error) {
	if !u.Switch {
		return nil, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	var out []blocker
	for p := abs; ; p = filepath.Dir(p) {
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err == nil {
			acl, err := readACL(p)
			if err != nil {
				return nil, err
			}
			if !u.mayEnter(&st, acl) {
				out = append(out, blocker{p, st, &UnreachableError{User: u.Name, Dir: p, Mode: st.Mode & 0o777}})
			}
		}
		if p == filepath.Dir(p) {
			slices.Reverse(out)
			return out, nil
		}
	}
}

// Reach makes sure the server user can enter every directory on the way to dir. A
// directory that keeps it out is an *UnreachableError, unless it is one of
// traversable or inside one: then the user alone is let through it (an access ACL
// entry granting search, nothing else) and the directory is returned among granted.
// Nothing is changed unless every such directory can be granted.
func (u User) Reach(dir string, traversable []string) (granted []string, err error) {
	blocked, err := u.blockers(dir)
	if err != nil || len(blocked) == 0 {
		return nil, err
	}
	for _, b := range blocked {
		if !within(b.dir, traversable) {
			return nil, b.err
		}
	}
	for _, b := range blocked {
		if err := grantSearch(b.dir, &b.st, u.UID); err != nil {
			b.err.Why = "letting it through with an ACL failed: " + err.Error()
			return granted, b.err
		}
		granted = append(granted, b.dir)
	}
	return granted, nil
}

// within reports whether dir is one of roots or inside one.
func within(dir string, roots []string) bool {
	for _, r := range roots {
		if r == "" {
			continue
		}
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(abs, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

func (u User) sysProcAttr(deathSignal syscall.Signal) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: deathSignal}
	if u.Switch {
		attr.Credential = &syscall.Credential{Uid: u.UID, Gid: u.GID, Groups: []uint32{}}
	}
	return attr
}

// RunDir creates a private directory for the server's socket, pid file and log, owned
// by the server user and locked by this process (rundir.Lock) until the instance
// stops. Its name carries this process's id (PREFIX<pid>-<random>); the directories
// of earlier processes that died without removing theirs (killed with SIGKILL) are
// removed first, with any server still running in them and what leftovers finds
// they left elsewhere (RemoveDead). It lives under $TMPDIR, or /tmp when that path
// would make a socket path longer than the 107 bytes Linux allows.
func (u User) RunDir(prefix string, leftovers func(runDir string)) (string, *rundir.Lock, error) {
	parent := os.TempDir()
	if len(parent) > 60 {
		parent = "/tmp"
	}
	RemoveDead(parent, prefix, leftovers)
	dir, err := os.MkdirTemp(parent, prefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", nil, fmt.Errorf("create run directory: %w", err)
	}
	lock, err := rundir.Acquire(dir, "tierbench (pid "+strconv.Itoa(os.Getpid())+"): a managed server's run directory")
	if err == nil {
		err = u.Chown(dir)
	}
	if err != nil {
		lock.Release()
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("create run directory: %w", err)
	}
	return dir, lock, nil
}
