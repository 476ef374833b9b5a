package middleware_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sakemcp/sake-go/sake/protocol"
)

// BenchmarkBudgetHTTP measures what the middleware costs where a server
// pays it: the CPU time of a server process (internal/budgetserver, built
// by the benchmark and started twice, bare and through the middleware)
// per tools/call over Streamable HTTP, the caller's CPU left out. Each
// iteration sends a block of calls to the bare server and a block to the
// other (which goes first alternates), over one keep-alive connection
// each, one call at a time, reading each server's CPU time from /proc
// before and after its block; the metric "x-bare" is
// the median of the blocks' ratios, "bare-cpu-ns/call" the median of the
// bare server's CPU time per call. Both eras; the sets are those of
// BenchmarkBudget, and "bare" against a second bare server shows the
// method's own spread. Run it with -benchtime 100x; with BUDGET_PROFILES
// set to a directory, each server writes a CPU profile there.
func BenchmarkBudgetHTTP(b *testing.B) {
	if _, ok := serverCPU(os.Getpid()); !ok {
		b.Skip("the CPU time of another process is read from /proc, which this system does not have")
	}
	bin := buildBudgetServer(b)
	const block = 200
	for _, era := range []struct{ name, version string }{{"modern", protocol.ModernVersion}, {"legacy", protocol.LegacyVersion}} {
		for _, set := range []string{"bare", "unlogged", "sink", "logged"} {
			b.Run(era.name+"/"+set, func(b *testing.B) {
				bare := startBudgetServer(b, bin, "bare", era.version)
				other := startBudgetServer(b, bin, set, era.version)
				bare.run(b, block)
				other.run(b, block)
				var ratios, perCall []float64
				for i := 0; b.Loop(); i++ {
					// Which server goes first changes from pair to
					// pair, so that neither always follows the other.
					var base, with time.Duration
					if i%2 == 0 {
						base, with = bare.run(b, block), other.run(b, block)
					} else {
						with, base = other.run(b, block), bare.run(b, block)
					}
					ratios = append(ratios, float64(with)/float64(base))
					perCall = append(perCall, float64(base)/block)
				}
				b.ReportMetric(median(ratios), "x-bare")
				b.ReportMetric(median(perCall), "bare-cpu-ns/call")
			})
		}
	}
}

func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// buildBudgetServer builds internal/budgetserver into a directory that
// lasts as long as b.
func buildBudgetServer(b *testing.B) string {
	goBin, err := exec.LookPath("go")
	if err != nil {
		b.Skip("the go command is needed to build internal/budgetserver")
	}
	bin := filepath.Join(b.TempDir(), "budgetserver")
	if out, err := exec.Command(goBin, "build", "-o", bin, "./internal/budgetserver").CombinedOutput(); err != nil {
		b.Fatalf("go build ./internal/budgetserver: %v\n%s", err, out)
	}
	return bin
}

// budgetServer is a running internal/budgetserver and a caller of it.
type budgetServer struct {
	pid     int
	url     string
	client  *http.Client
	version string
	session string
	body    []byte
}

// startBudgetServer starts the server with a middleware set and, in the
// legacy era, opens a session; it stops when the benchmark ends.
func startBudgetServer(b *testing.B, bin, set, version string) *budgetServer {
	b.Helper()
	args := []string{"-set", set}
	if dir := os.Getenv("BUDGET_PROFILES"); dir != "" {
		args = append(args, "-cpuprofile", filepath.Join(dir, set+"-"+version+".pprof"))
	}
	cmd := exec.Command(bin, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = stdin.Close() // the server exits when its input closes
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("budgetserver -set %s: %v", set, err)
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 1}
	b.Cleanup(tr.CloseIdleConnections)
	s := &budgetServer{pid: cmd.Process.Pid, url: strings.TrimSpace(line), client: &http.Client{Transport: tr}, version: version}
	if version == protocol.ModernVersion {
		s.body = benchCall
		return s
	}
	resp := s.post(b, "initialize", []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`), http.StatusOK)
	s.session = resp.Get("Mcp-Session-Id")
	s.post(b, "notifications/initialized", []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), http.StatusAccepted)
	s.body = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
	return s
}

// run sends n calls and returns the server's CPU time for them.
func (s *budgetServer) run(b *testing.B, n int) time.Duration {
	start, ok := serverCPU(s.pid)
	if !ok {
		b.Fatalf("no CPU time for process %d", s.pid)
	}
	for range n {
		s.post(b, "tools/call", s.body, http.StatusOK)
	}
	end, _ := serverCPU(s.pid)
	return end - start
}

// post sends one message and checks the status; it returns the response's
// header.
func (s *budgetServer) post(b *testing.B, method string, body []byte, status int) http.Header {
	req, err := http.NewRequest(http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", s.version)
	if s.version == protocol.ModernVersion {
		req.Header.Set("Mcp-Method", method)
		req.Header.Set("Mcp-Name", "echo")
	} else if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != status || (status == http.StatusOK && bytes.Contains(got, []byte(`"error"`))) {
		b.Fatalf("%s: status %d: %s", method, resp.StatusCode, got)
	}
	return resp.Header
}

// serverCPU is the CPU time (user and system) that process pid has used
// on all its threads: the sum of the first field of every thread's
// /proc/PID/task/TID/schedstat (nanoseconds), or, where the kernel keeps
// no schedstat, utime+stime of /proc/PID/stat (clock ticks, taken as the
// usual 100 a second).
func serverCPU(pid int) (time.Duration, bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	tasks, err := os.ReadDir(dir + "/task")
	if err == nil {
		var sum time.Duration
		ok := true
		for _, t := range tasks {
			raw, err := os.ReadFile(dir + "/task/" + t.Name() + "/schedstat")
			if err != nil {
				ok = false
				break
			}
			f := strings.Fields(string(raw))
			if len(f) == 0 {
				ok = false
				break
			}
			ns, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				ok = false
				break
			}
			sum += time.Duration(ns)
		}
		if ok {
			return sum, true
		}
	}
	raw, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name, in parentheses, may hold spaces: fields are
	// counted after its closing parenthesis.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * (time.Second / 100), true
}
