package engine

import "testing"

func TestMaxConnections(t *testing.T) {
	cases := []struct {
		name     string
		sessions int
		settings map[string]string
		def      int
		want     int
	}{
		{"unknown sessions", 0, nil, 100, 0},
		{"default is enough", 90, nil, 100, 0},
		{"exactly the default", 100 - SpareConnections, nil, 100, 0},
		{"one more than fits", 91, nil, 100, 91 + SpareConnections},
		{"2000 users", 2000, nil, 151, 2010},
		{"user set it (postgres spelling)", 2000, map[string]string{"max_connections": "50"}, 100, 0},
		{"user set it (mariadbd spelling)", 2000, map[string]string{" Max-Connections": "3000"}, 151, 0},
		{"other settings do not count", 500, map[string]string{"work_mem": "64MB"}, 100, 510},
	}
	for _, c := range cases {
		cfg := Config{Sessions: c.sessions, Settings: c.settings}
		if got := cfg.MaxConnections(c.def); got != c.want {
			t.Errorf("%s: MaxConnections(%d) with %d sessions = %d, want %d", c.name, c.def, c.sessions, got, c.want)
		}
	}
}
