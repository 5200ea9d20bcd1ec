package study

import (
	"fmt"
	"slices"
	"strings"

	"tierbench/internal/placement"
)

// A placement study declares its tiers once (params: {tier: [fast=nvme, slow=hdd-7200]})
// and moves a class between them with a factor (data: [fast, slow]). The command
// line refuses a tier that holds nothing, rightly for one command, so each cell's
// commands leave out the tiers that cell places nothing on, as long as another cell
// of the study places something there: a tier no cell uses is still the mistake the
// command line names.

// tierName is the name of a --tier value (NAME=PROFILE or NAME=DIR).
func tierName(value string) string {
	name, _, _ := strings.Cut(value, "=")
	return strings.TrimSpace(name)
}

// usedTiers are the tiers a cell places a class on: the values of its --data, --wal
// and --temp.
func usedTiers(c *Cell) map[string]bool {
	used := map[string]bool{}
	for _, class := range placement.AllClasses {
		for _, v := range c.Values[string(class)] {
			used[strings.TrimSpace(v)] = true
		}
	}
	return used
}

// dropUnusedTiers removes from each cell the tiers it places nothing on that another
// cell uses, and says which in a note; the cells it changes get their fingerprint
// again.
func dropUnusedTiers(cells []Cell) []string {
	anywhere := map[string]bool{}
	for i := range cells {
		for name := range usedTiers(&cells[i]) {
			anywhere[name] = true
		}
	}
	dropped := map[string][]string{} // tier value -> cells that left it out
	var order []string
	for i := range cells {
		c := &cells[i]
		tiers, ok := c.Values["tier"]
		if !ok {
			continue
		}
		used := usedTiers(c)
		kept := tiers[:0:0]
		for _, t := range tiers {
			if name := tierName(t); !used[name] && anywhere[name] {
				if _, seen := dropped[t]; !seen {
					order = append(order, t)
				}
				dropped[t] = append(dropped[t], c.ID)
				continue
			}
			kept = append(kept, t)
		}
		if len(kept) == len(tiers) {
			continue
		}
		if len(kept) == 0 {
			delete(c.Values, "tier")
		} else {
			c.Values["tier"] = kept
		}
		c.Fingerprint = fingerprint(*c)
	}
	var notes []string
	for _, t := range order {
		ids := dropped[t]
		named := slices.Clone(ids)
		more := ""
		if len(named) > maxNamed {
			named, more = named[:maxNamed], fmt.Sprintf(" and %d more", len(ids)-maxNamed)
		}
		cells := fmt.Sprintf("%d cells, whose commands leave", len(ids))
		if len(ids) == 1 {
			cells = "1 cell, whose commands leave"
		}
		notes = append(notes, fmt.Sprintf("tier %s holds nothing in %s it out: %s%s", t, cells, strings.Join(named, ", "), more))
	}
	return notes
}
