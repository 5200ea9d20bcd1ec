package monitor

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"
)

// WriteCSV writes the samples of the JSON lines file jsonl as CSV to path: one row a
// sample, the columns time, elapsed_s and mark, then every value and every counter any
// sample has, by name; a series a sample lacks is an empty cell. It reads jsonl twice
// rather than holding the samples, and writes path atomically.
func WriteCSV(jsonl, path string) error {
	var names []string
	seen := map[string]bool{}
	err := eachSample(jsonl, func(s *Sample) error {
		for _, m := range []map[string]float64{s.Values, s.Counters} {
			for k := range m {
				if !seen[k] {
					seen[k] = true
					names = append(names, k)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(names)
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("monitor: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	bw := bufio.NewWriter(tmp)
	w := csv.NewWriter(bw)
	if err := w.Write(append([]string{"time", "elapsed_s", "mark"}, names...)); err != nil {
		tmp.Close()
		return fmt.Errorf("monitor: %s: %w", path, err)
	}
	row := make([]string, 3+len(names))
	err = eachSample(jsonl, func(s *Sample) error {
		row[0], row[1], row[2] = s.Time.Format(time.RFC3339Nano), strconv.FormatFloat(s.ElapsedS, 'f', -1, 64), s.Mark
		for i, n := range names {
			v, ok := s.Values[n]
			if !ok {
				v, ok = s.Counters[n]
			}
			row[3+i] = ""
			if ok {
				row[3+i] = strconv.FormatFloat(v, 'f', -1, 64)
			}
		}
		return w.Write(row)
	})
	w.Flush()
	if err == nil {
		err = w.Error()
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("monitor: %s: %w", path, err)
	}
	return nil
}

// ReadSamples decodes metrics.jsonl (for reports rebuilt offline).
func ReadSamples(path string) ([]Sample, error) {
	var out []Sample
	err := eachSample(path, func(s *Sample) error {
		out = append(out, *s)
		return nil
	})
	return out, err
}

// eachSample calls f for every sample of a JSON lines file; an error names the line.
func eachSample(path string, f func(*Sample) error) error {
	file, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("monitor: %w", err)
	}
	defer file.Close()
	dec := json.NewDecoder(bufio.NewReader(file))
	for line := 1; ; line++ {
		var s Sample
		if err := dec.Decode(&s); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("monitor: %s, line %d: %w", path, line, err)
		}
		if err := f(&s); err != nil {
			return fmt.Errorf("monitor: %s, line %d: %w", path, line, err)
		}
	}
}
