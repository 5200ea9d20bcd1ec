package instance

import (
	"strings"
	"sync"

	"tierbench/internal/engine"
)

var (
	checkedMu sync.Mutex
	checked   = map[string]error{}
)

// CheckSettingsOnce runs check (a server program parsing settings, which takes tens to
// hundreds of milliseconds) once for each program and set of settings in this process,
// and returns its result every time after: a study validates many cells that share
// their settings.
func CheckSettingsOnce(program string, settings map[string]string, check func() error) error {
	var key strings.Builder
	key.WriteString(program)
	for _, k := range engine.SortedSettings(settings) {
		key.WriteString("\x00" + k + "=" + settings[k])
	}
	checkedMu.Lock()
	defer checkedMu.Unlock()
	if err, ok := checked[key.String()]; ok {
		return err
	}
	err := check()
	checked[key.String()] = err
	return err
}
