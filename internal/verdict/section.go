package verdict

import (
	"fmt"
	"io"
	"strings"

	"tierbench/internal/monitor"
)

// Section is the verdict section of a result: each level's (or window's) verdict,
// and the run's, which is its headline level's.
type Section struct {
	// Thresholds are those the verdicts were judged by.
	Thresholds Thresholds `json:"thresholds"`
	// Window, Users, Primary and Headline are those of the headline verdict: the
	// level whose numbers the result's headline reports.
	Window   string    `json:"window"`
	Users    int       `json:"users,omitempty"`
	Primary  Rule      `json:"primary"`
	Headline string    `json:"headline"`
	Levels   []Verdict `json:"levels"`
}

// NewSection gathers verdicts judged by th; headline is the index of the one the
// result's headline reports (-1 for none).
func NewSection(th Thresholds, verdicts []Verdict, headline int) *Section {
	s := &Section{Thresholds: th, Levels: verdicts, Primary: Unknown, Headline: Unknown.Title()}
	if headline >= 0 && headline < len(verdicts) {
		v := verdicts[headline]
		s.Window, s.Users, s.Primary, s.Headline = v.Window, v.Users, v.Primary, v.Headline
	}
	return s
}

// Level is the verdict of the level of users users, nil if none.
func (s *Section) Level(users int) *Verdict {
	if s == nil {
		return nil
	}
	for i := range s.Levels {
		if s.Levels[i].Users == users {
			return &s.Levels[i]
		}
	}
	return nil
}

// alsoShown is how many findings besides the primary the lines name.
const alsoShown = 2

// WriteLines prints the headline verdict for people, the other findings that fired,
// and for a sweep (or a run of several windows: TPC-H's tests) each level's (window's)
// primary with the share of the users' time it explains.
func WriteLines(w io.Writer, s *Section) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "verdict, %s: %s\n", s.Window, s.Headline)
	if v := s.headline(); v != nil {
		for i, f := range v.Fired() {
			if i == 0 {
				continue
			}
			if i > alsoShown {
				break
			}
			fmt.Fprintf(w, "  also %s, %.0f%% of the users' time: %s\n", f.Rule.Title(), f.ExplainsPct, f.Text)
		}
		if len(v.NotJudged) > 0 {
			fmt.Fprintf(w, "  not judged: %s\n", strings.Join(v.NotJudged, "; "))
		}
	}
	if len(s.Levels) > 1 {
		var parts []string
		by := "level"
		for _, v := range s.Levels {
			if users, ok := monitor.LevelUsers(v.Window); !ok || users != v.Users {
				by = "window" // TPC-H's tests, the file workload's phases
			}
		}
		for _, v := range s.Levels {
			part := v.Window + " " + v.Primary.Title()
			if fired := v.Fired(); len(fired) > 0 {
				part += fmt.Sprintf(" (%.0f%%)", fired[0].ExplainsPct)
			}
			parts = append(parts, part)
		}
		fmt.Fprintf(w, "  by %s: %s\n", by, strings.Join(parts, ", "))
	}
}

func (s *Section) headline() *Verdict {
	for i := range s.Levels {
		if s.Levels[i].Window == s.Window {
			return &s.Levels[i]
		}
	}
	return nil
}
