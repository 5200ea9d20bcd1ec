package engine

import "fmt"

// Versioner is implemented by drivers that can say which version of their engine a
// run would get, without starting it: a managed server's binary, the linked SQLite.
// A study reuses a loaded database (a snapshot) only on the version that loaded it.
type Versioner interface {
	InstalledVersion() (string, error)
}

// InstalledVersion is the version of engine name that a run would get, as its driver
// says it ("" and no error when the driver does not say).
func InstalledVersion(name string) (string, error) {
	d, err := DriverOf(name)
	if err != nil {
		return "", err
	}
	v, ok := d.(Versioner)
	if !ok {
		return "", nil
	}
	version, err := v.InstalledVersion()
	if err != nil {
		return "", fmt.Errorf("%s: the installed version: %w", name, err)
	}
	return version, nil
}
