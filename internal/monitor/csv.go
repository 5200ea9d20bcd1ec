package monitor

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"tierbench/internal/metrics"
)

// WriteCSV writes the samples of the JSON lines file jsonl as CSV to path: one row a
// sample, the columns time, elapsed_s and mark, then every value and every counter any
// sample has, by name; a series a sample lacks is an empty cell. It reads jsonl twice
// rather than holding the samples, and writes path atomically. A torn last line (a
// run killed while it wrote) is left out and described by the TornLine returned.
func WriteCSV(jsonl, path string) (*metrics.TornLine, error) {
	var names []string
	seen := map[string]bool{}
	torn, err := eachSample(jsonl, func(s *Sample) error {
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
		return nil, err
	}
	sort.Strings(names)
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("monitor: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	bw := bufio.NewWriter(tmp)
	w := csv.NewWriter(bw)
	if err := w.Write(append([]string{"time", "elapsed_s", "mark"}, names...)); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("monitor: %s: %w", path, err)
	}
	row := make([]string, 3+len(names))
	_, err = eachSample(jsonl, func(s *Sample) error {
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
		return nil, fmt.Errorf("monitor: %s: %w", path, err)
	}
	return torn, nil
}

// ReadSamples decodes metrics.jsonl (for reports rebuilt offline). A last line cut
// short (a run killed while it wrote) is left out and described by the TornLine
// returned.
func ReadSamples(path string) ([]Sample, *metrics.TornLine, error) {
	var out []Sample
	torn, err := eachSample(path, func(s *Sample) error {
		out = append(out, *s)
		return nil
	})
	return out, torn, err
}

// eachSample calls f for every sample of a JSON lines file but a torn last line,
// which it returns; an error names the line.
func eachSample(path string, f func(*Sample) error) (*metrics.TornLine, error) {
	torn, err := metrics.ReadJSONLines(path, func(_ int, s *Sample) error { return f(s) })
	if err != nil {
		return nil, fmt.Errorf("monitor: %w", err)
	}
	return torn, nil
}
