package twin

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// probeTable is the probes as a table: measured with its spread, the model, the error
// and the fields each probe sets.
func probeTable(probes []ProbeResult) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "PROBE\tMETRIC\tMEASURED\tCV\tMODEL\tERROR\tREQUESTS\t FITS")
	for _, p := range probes {
		fits := p.Fits
		if fits == "" {
			fits = "(check)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f%%\t%.1f\t%+.1f%%\t%d\t %s\n",
			p.Probe, p.Metric, p.Measured, p.CVPct, p.Model, p.ErrorPct, p.Requests, fits)
	}
	tw.Flush()
	// tabwriter pads the last column too; the FITS column reads better left-aligned
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		out.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return out.String()
}

// WriteText prints the fit for people: where and how long, the probes, and the file.
func (res *FitResult) WriteText(w io.Writer, file string) error {
	fmt.Fprintf(w, "device %s under %s: fitted in %.0f s (%d rounds of each probe, a %s working set)\n\n",
		res.Where.Describe(), res.Where.Dir, res.Wall.Seconds(), res.Rounds, bytesText(res.Size))
	io.WriteString(w, probeTable(res.Probes))
	fmt.Fprintf(w, "\nCV: the rounds' coefficient of variation, the device's own spread.\n")
	fmt.Fprintf(w, "MODEL: the fitted profile's figure for the same requests in virtual time; commit-8k\n")
	fmt.Fprintf(w, "  (a buffered write and fdatasync) goes through pagecache(%s,...), and fits nothing.\n", res.Name)
	_, err := fmt.Fprintf(w, "\nprofile %s written to %s\n", res.Name, file)
	return err
}
