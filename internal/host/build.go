package host

import (
	"runtime"
	"runtime/debug"
)

// Version and Commit are tierbench's version and git commit, set at build time
// where the binary is built without its git history (a container image's build
// context):
//
//	go build -ldflags "-X tierbench/internal/host.Version=v1.2.0 -X tierbench/internal/host.Commit=$(git rev-parse HEAD)" ./cmd/tierbench
//
// Left empty, BuildInfo takes what Go embedded from the checkout.
var Version, Commit string

// Build is the tierbench binary a run ran: two runs of one study on binaries of
// different commits may differ by the code, not by the machine.
type Build struct {
	// Version is -ldflags' Version, the module's version, or "devel".
	Version string `json:"version"`
	// Commit is the git commit the binary was built from; Modified says the checkout
	// had changes not committed. CommitTime is the commit's time.
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commit_time,omitempty"`
	Modified   bool   `json:"modified,omitempty"`
	Go         string `json:"go"`
}

// BuildInfo is this binary's Build.
func BuildInfo() Build {
	bi, _ := debug.ReadBuildInfo()
	return buildFrom(bi, Version, Commit)
}

// buildFrom makes a Build of the embedded build information (nil: none) and the
// values -ldflags set, which win.
func buildFrom(bi *debug.BuildInfo, version, commit string) Build {
	b := Build{Version: version, Commit: commit, Go: runtime.Version()}
	if bi != nil {
		b.Go = bi.GoVersion
		if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if commit == "" {
					b.Commit = s.Value
				}
			case "vcs.time":
				if commit == "" {
					b.CommitTime = s.Value
				}
			case "vcs.modified":
				b.Modified = commit == "" && s.Value == "true"
			}
		}
	}
	if b.Version == "" {
		b.Version = "devel"
	}
	return b
}

// String is "v1.2.0 (3f2a9c1d0e4b)", "devel (3f2a9c1d0e4b, modified)" or "devel".
func (b Build) String() string {
	if b.Commit == "" {
		return b.Version
	}
	c := b.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if b.Modified {
		c += ", modified"
	}
	return b.Version + " (" + c + ")"
}
