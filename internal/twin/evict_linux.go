package twin

import (
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// evict writes back and drops from the page cache every file under dir, so that a run
// on the real device starts with none of its database in memory, as a run on the twin
// starts with an empty pagecache(...) model. Only these files are dropped: the rest of
// the host's page cache (other programs') stays. Files it cannot open are skipped; it
// returns how many it dropped.
func evict(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		fd := int(f.Fd())
		// dirty pages cannot be dropped: write them back first
		unix.Fdatasync(fd)
		if unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED) == nil {
			n++
		}
		return nil
	})
	return n
}
