package preload

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
)

// The shim's sources, built on first use with the system's C compiler: cgo links C
// into the Go binary but cannot make a separate shared object in `go build`, and a
// prebuilt binary in the repository would be one more thing to keep in step with
// ring.h. Every tierbench build carries its own sources, so the shim it builds always
// speaks its ring's layout; gcc is on every machine that builds tierbench already
// (mattn/go-sqlite3 is cgo).
var (
	//go:embed shim.c
	shimSource []byte
	//go:embed client.h
	clientHeader []byte
	//go:embed ring.h
	ringHeader []byte
)

// ShimName is the shared object's file name.
const ShimName = "libtierbench-preload.so"

// ErrNoCompiler is wrapped when no C compiler can build the shim.
var ErrNoCompiler = errors.New("the preload shim needs a C compiler")

// Shim returns the path of the shim built from this binary's sources, building it
// into the cache directory the first time. The directory is readable by everyone
// (managed servers run as their own users and must load the file) and writable by
// this user only; one that is not is refused.
func Shim() (string, error) {
	h := sha256.New()
	for _, b := range [][]byte{shimSource, clientHeader, ringHeader, []byte(runtime.GOARCH)} {
		h.Write(b)
	}
	sum := hex.EncodeToString(h.Sum(nil))[:16]
	parent := os.TempDir()
	if !traversable(parent) { // a private TMPDIR: the servers' users could not load it
		parent = "/tmp"
	}
	root := filepath.Join(parent, "tierbench-preload-"+strconv.Itoa(os.Geteuid()))
	dir := filepath.Join(root, sum)
	so := filepath.Join(dir, ShimName)
	for _, d := range []string{root, dir} {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("preload shim: %w", err)
		}
		if err := checkPrivate(d); err != nil {
			return "", err
		}
	}
	if _, err := os.Stat(so); err == nil {
		return so, nil
	}
	cc, err := compiler()
	if err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", fmt.Errorf("preload shim: %w", err)
	}
	defer os.RemoveAll(work)
	for name, b := range map[string][]byte{"shim.c": shimSource, "client.h": clientHeader, "ring.h": ringHeader} {
		if err := os.WriteFile(filepath.Join(work, name), b, 0o644); err != nil {
			return "", fmt.Errorf("preload shim: %w", err)
		}
	}
	out := filepath.Join(work, ShimName)
	cmd := exec.Command(cc, "-O2", "-std=gnu11", "-fPIC", "-shared", "-Wall", "-o", out, "shim.c", "-ldl")
	cmd.Dir = work
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("preload shim: %s failed: %v: %s", cc, err, bytes.TrimSpace(msg))
	}
	if err := os.Chmod(out, 0o755); err != nil {
		return "", fmt.Errorf("preload shim: %w", err)
	}
	// rename: a concurrent build of the same sources ends with one whole file
	if err := os.Rename(out, so); err != nil {
		return "", fmt.Errorf("preload shim: %w", err)
	}
	return so, nil
}

// traversable says whether every directory on the way to dir lets other users through.
func traversable(dir string) bool {
	for p := dir; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if p == filepath.Dir(p) {
			return true
		}
	}
}

func compiler() (string, error) {
	for _, c := range []string{os.Getenv("CC"), "cc", "gcc", "clang"} {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w (cc, gcc or clang in PATH): install gcc (apt-get install gcc), or use --emulator fuse", ErrNoCompiler)
}

// checkPrivate refuses a cache directory another user could write to: a shared object
// from it is loaded into database servers.
func checkPrivate(dir string) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil {
		return fmt.Errorf("preload shim: %w", err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR || int(st.Uid) != os.Geteuid() || st.Mode&0o022 != 0 {
		return fmt.Errorf("preload shim: %s is not a directory of user %d writable by it alone (uid %d, mode %04o): remove it",
			dir, os.Geteuid(), st.Uid, st.Mode&0o7777)
	}
	return nil
}

// BinaryError says why the shim cannot enter a program.
type BinaryError struct {
	Path, Reason string
}

func (e *BinaryError) Error() string {
	return fmt.Sprintf("%s %s: the preload shim cannot be loaded into it (LD_PRELOAD)", e.Path, e.Reason)
}

// CheckBinary says whether the dynamic loader will load the shim into the program at
// path: not into a statically linked one (no loader at all), nor a setuid or setgid
// one (the loader ignores LD_PRELOAD there), nor one of another architecture. A
// script is accepted: its interpreter and what it runs inherit the environment.
func CheckBinary(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return &BinaryError{Path: path, Reason: err.Error()}
	}
	if st.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
		return &BinaryError{Path: path, Reason: "is setuid or setgid"}
	}
	f, err := os.Open(path)
	if err != nil {
		return &BinaryError{Path: path, Reason: err.Error()}
	}
	defer f.Close()
	head := make([]byte, 2)
	if _, err := f.ReadAt(head, 0); err == nil && string(head) == "#!" {
		return nil
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		return &BinaryError{Path: path, Reason: "is neither an ELF program nor a script"}
	}
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "386": elf.EM_386, "riscv64": elf.EM_RISCV}[runtime.GOARCH]
	if want != 0 && ef.Machine != want {
		return &BinaryError{Path: path, Reason: fmt.Sprintf("is built for %v, tierbench for %s", ef.Machine, runtime.GOARCH)}
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			return nil
		}
	}
	return &BinaryError{Path: path, Reason: "is statically linked"}
}
