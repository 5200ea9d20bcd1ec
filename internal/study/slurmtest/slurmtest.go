package slurmtest

import (
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Cluster is a running single-node Slurm cluster.
type Cluster struct {
	// Dir holds its configuration, state, spool and logs.
	Dir string
	// Conf is its slurm.conf; Env what its client commands need (SLURM_CONF).
	Conf string
	Env  []string
	// Node is the name of its one node.
	Node    string
	daemons []*exec.Cmd
}

// programs are what Start runs: the daemons and the client commands tests use.
var programs = []string{"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol", "sinfo"}

// need fails under CI=true, and skips otherwise, when the cluster cannot start.
func need(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// Start starts a cluster of one node with cpus CPUs, and stops it (its jobs
// cancelled first) when the test ends.
func Start(t *testing.T, cpus int) *Cluster {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			if _, err := os.Stat("/usr/sbin/" + p); err != nil {
				need(t, p+" is not installed: run ./scripts/setup (it installs Debian's slurm-wlm and munge)")
			}
		}
	}
	if os.Geteuid() != 0 {
		need(t, "the Slurm test starts slurmd, which runs jobs as their user: run it as root")
	}
	dir := t.TempDir()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	c := &Cluster{Dir: dir, Conf: filepath.Join(dir, "slurm.conf"), Node: host}
	c.Env = append(os.Environ(), "SLURM_CONF="+c.Conf)
	for _, d := range []string{"munge", "state", "spool", "log"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 1024)
	rand.Read(key)
	if err := os.WriteFile(filepath.Join(dir, "munge", "munge.key"), key, 0o400); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "munge", "socket")
	ports := freePorts(t, 2)
	conf := fmt.Sprintf(`ClusterName=tierbench-test
SlurmctldHost=%[1]s
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
AuthType=auth/munge
AuthInfo=socket=%[4]s
CryptoType=crypto/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/log/slurmctld.log
SlurmdLogFile=%[5]s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobRequeue=1
KillWait=30
MinJobAge=3600
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[6]d State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, host, ports[0], ports[1], socket, dir, cpus)
	if err := os.WriteFile(c.Conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.stop)
	c.daemon(t, "munged", "-F", "--force", "--socket="+socket, "--key-file="+filepath.Join(dir, "munge", "munge.key"),
		"--pid-file="+filepath.Join(dir, "munge", "pid"), "--log-file="+filepath.Join(dir, "log", "munged.log"),
		"--seed-file="+filepath.Join(dir, "munge", "seed"))
	c.waitFor(t, "munged's socket", func() bool { _, err := os.Stat(socket); return err == nil })
	c.daemon(t, "slurmctld", "-D", "-f", c.Conf)
	c.daemon(t, "slurmd", "-D", "-f", c.Conf)
	c.waitFor(t, "the node to be idle", func() bool {
		out, err := c.Command("sinfo", "-h", "-N", "-o", "%t").Output()
		return err == nil && strings.TrimSpace(string(out)) == "idle"
	})
	return c
}

// freePorts finds n TCP ports nobody listens on.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// daemon starts a daemon in the foreground, its output in log/NAME.out.
func (c *Cluster) daemon(t *testing.T, name string, args ...string) {
	t.Helper()
	log, err := os.Create(filepath.Join(c.Dir, "log", name+".out"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd := c.Command(name, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c.daemons = append(c.daemons, cmd)
}

// Command is a Slurm or munge program with the cluster's environment.
func (c *Cluster) Command(name string, args ...string) *exec.Cmd {
	path, err := exec.LookPath(name)
	if err != nil {
		path = "/usr/sbin/" + name
	}
	cmd := exec.Command(path, args...)
	cmd.Env = c.Env
	cmd.Dir = c.Dir
	return cmd
}

// Run runs a client command and returns its output; an error fails the test with
// the daemons' logs.
func (c *Cluster) Run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := c.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, c.Logs())
	}
	return strings.TrimSpace(string(out))
}

// Job is what scontrol says of a job (or an array task, JOB_I).
type Job struct {
	State    string
	ExitCode string
	Restarts int
}

// Job reads a job's state, exit code ("75:0": status 75, no signal) and restarts.
func (c *Cluster) Job(t *testing.T, id string) Job {
	t.Helper()
	out := c.Run(t, "scontrol", "show", "job", "-o", id)
	j := Job{}
	for _, f := range strings.Fields(out) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "JobState":
			j.State = v
		case "ExitCode":
			j.ExitCode = v
		case "Restarts":
			j.Restarts, _ = strconv.Atoi(v)
		}
	}
	return j
}

// WaitJob waits until a job's state is one of states and returns it.
func (c *Cluster) WaitJob(t *testing.T, id string, limit time.Duration, states ...string) Job {
	t.Helper()
	var j Job
	c.waitForWithin(t, "job "+id+" to be "+strings.Join(states, " or "), limit, func() bool {
		j = c.Job(t, id)
		for _, s := range states {
			if j.State == s {
				return true
			}
		}
		return false
	})
	return j
}

// WaitEmpty waits until the queue holds no job.
func (c *Cluster) WaitEmpty(t *testing.T, limit time.Duration) {
	t.Helper()
	c.waitForWithin(t, "the queue to empty", limit, func() bool {
		out, err := c.Command("squeue", "-h").Output()
		return err == nil && strings.TrimSpace(string(out)) == ""
	})
}

func (c *Cluster) waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	c.waitForWithin(t, what, time.Minute, ok)
}

func (c *Cluster) waitForWithin(t *testing.T, what string, limit time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s\n%s", limit, what, c.Logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Logs are the daemons' logs, for a failure's message.
func (c *Cluster) Logs() string {
	var b strings.Builder
	paths, _ := filepath.Glob(filepath.Join(c.Dir, "log", "*"))
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) > 30 {
			lines = lines[len(lines)-30:]
		}
		fmt.Fprintf(&b, "--- %s\n%s\n", p, strings.Join(lines, "\n"))
	}
	return b.String()
}

// stop cancels the cluster's jobs, waits for them to end, and stops the daemons it
// started (SIGTERM, then SIGKILL after 10 s).
func (c *Cluster) stop() {
	if len(c.daemons) > 2 {
		c.Command("scancel", "--user=root").Run()
		deadline := time.Now().Add(45 * time.Second)
		for time.Now().Before(deadline) {
			out, err := c.Command("squeue", "-h").Output()
			if err != nil || strings.TrimSpace(string(out)) == "" {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	for i := len(c.daemons) - 1; i >= 0; i-- {
		d := c.daemons[i]
		d.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { d.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			d.Process.Kill()
			<-done
		}
	}
}
