package rundir

import (
	"fmt"
	"os"
)

// EnsureWritable creates dir if needed and proves it is writable before any work
// starts; its errors name flag.
func EnsureWritable(flag, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s %s: cannot create the directory (%v): choose a directory you can write to", flag, dir, unwrapPathError(err))
	}
	probe, err := os.CreateTemp(dir, ".tierbench-probe-*")
	if err != nil {
		return fmt.Errorf("%s %s: directory is not writable (%v): choose a directory you can write to", flag, dir, unwrapPathError(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
