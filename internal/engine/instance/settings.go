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

// CheckSettings has the server program that find finds parse settings (parse), once
// for each program and set of settings in this process, and returns its verdict every
// time after: a study validates many cells that share their settings, and a parse
// takes tens to hundreds of milliseconds. No settings, or no program installed (opening
// the engine then says what to install), is nil.
func CheckSettings(settings map[string]string, find func() (string, error), parse func(program string) error) error {
	if len(settings) == 0 {
		return nil
	}
	program, err := find()
	if err != nil {
		return nil
	}
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
	err = parse(program)
	checked[key.String()] = err
	return err
}
