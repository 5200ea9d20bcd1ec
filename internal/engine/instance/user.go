package instance

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
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

// MkdirOwned creates dir (0700; missing parents 0755) for the server user, gives it
// to that user and checks the user can reach it.
func (u User) MkdirOwned(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(dir), err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := u.Chown(dir); err != nil {
		return err
	}
	return u.CheckReachable(filepath.Dir(dir))
}

// CheckReachable reports whether the server user can enter every directory on the way
// to dir, which a root-owned 0700 parent (as os.MkdirTemp makes) prevents.
func (u User) CheckReachable(dir string) error {
	if !u.Switch {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for p := abs; ; p = filepath.Dir(p) {
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err == nil {
			mode := st.Mode & 0o777
			var ok bool
			switch {
			case st.Uid == u.UID:
				ok = mode&0o100 != 0
			case st.Gid == u.GID:
				ok = mode&0o010 != 0
			default:
				ok = mode&0o001 != 0
			}
			if !ok {
				return fmt.Errorf("the server runs as user %s, which cannot enter %s (mode %04o): "+
					"run chmod o+x %s or choose a directory it can reach", u.Name, p, mode, p)
			}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func (u User) sysProcAttr(deathSignal syscall.Signal) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: deathSignal}
	if u.Switch {
		attr.Credential = &syscall.Credential{Uid: u.UID, Gid: u.GID, Groups: []uint32{}}
	}
	return attr
}

// RunDir creates a private directory for the server's socket, pid file and log, owned
// by the server user. It lives under $TMPDIR, or /tmp when that path would make a
// socket path longer than the 107 bytes Linux allows.
func (u User) RunDir(prefix string) (string, error) {
	parent := os.TempDir()
	if len(parent) > 60 {
		parent = "/tmp"
	}
	dir, err := os.MkdirTemp(parent, prefix)
	if err != nil {
		return "", fmt.Errorf("create run directory: %w", err)
	}
	if err := u.Chown(dir); err != nil {
		os.Remove(dir)
		return "", err
	}
	return dir, nil
}
