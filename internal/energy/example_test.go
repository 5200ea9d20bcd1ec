package energy_test

import (
	"fmt"
	"math"
	"os"
	"time"

	"tierbench/internal/energy"
)

// Example records ten seconds of a two-vCPU virtual machine without RAPL (the
// testdata host), its CPU busy in a square wave, beside an emulated disk from the
// storage section, and prints the summary a run ends with.
func Example() {
	rec, err := energy.New(energy.Config{SysRoot: "testdata/sys-vm", ProcRoot: "testdata/proc-epyc-vm"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rec.Close()
	start := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	rec.Sample(start, math.NaN())
	for s := 1; s <= 10; s++ {
		u := 0.1
		if s%2 == 0 {
			u = 0.9
		}
		rec.Sample(start.Add(time.Duration(s)*time.Second), u)
	}
	sec, err := rec.Finish(energy.Inputs{
		Windows: []energy.Window{{Label: "run", Start: start, End: start.Add(10 * time.Second), Queries: 22}},
		Devices: []energy.Device{{Name: "data", Spec: "hdd-7200", Joules: 840, IdleJoules: 750, Seconds: 100}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	energy.WriteSummary(os.Stdout, sec, "run")
	// Output:
	// Energy, run (10.0 s; CO2 at 475 g/kWh, world average, CodeCarbon's fallback (Our World in Data / Ember))
	//   component     how                   energy J [low-high]  avg W  peak W
	//   cpu           modelled (model)      22.34 [11.43-33.75]  2.23   3.7
	//   dram          modelled (model)      62.72 [25-100]       6.27   6.27
	//   storage:data  modelled (datasheet)  84                   8.4    8.4
	//   total         modelled              169.1 [120.4-217.8]  16.9   18.4
	//   storage:data: apportioned: the device's mount-to-unmount average, 8.4 W, over the window
	//   total 0.04696 Wh, 0.02231 g CO2, 7.685 J per query
	//   the total is not the whole system's: it leaves out base (see below)
	//   cpu model (amd epyc): P = 0.406 + (4.06 - 0.406) x u W; 2 vCPUs x 2.03 W TDP per hardware thread (a virtual machine's share of the sockets)
	//   not available on this host: RAPL (CPU package and DRAM energy counters): no /sys/class/powercap: the kernel offers no power capping here (a virtual machine, whose hypervisor hides the counters, or a kernel without the intel_rapl_msr driver loaded)
	//   not counted: base power (motherboard, fans, NIC, power-supply loss): give --base-watts
}
