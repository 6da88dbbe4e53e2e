package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// The ACP front door (`magi-code acp`) beside other ACP agents, in the same
// pass: each run starts every agent fresh, one after the other, so that
// their figures share the machine's state. The other agents
// (claude-agent-acp and codex-acp at the versions pinned in
// interop/acp/peers/package.json) need an account for a prompt, so only
// their start-up is measurable offline: spawn to the initialize answer and
// the RSS right after it. magi-code's prompt figures use the fixture
// provider.
//
// Figures, per agent NAME (magi-code, claude-agent-acp, codex-acp):
//   - acp.NAME.to_init_response: process start to the initialize answer;
//   - acp.NAME.idle_rss: VmRSS of the spawned process and of every process
//     under it, after initialize (a node launcher's native child counts);
//   - acp.NAME.init_ratio: this agent's to_init_response over magi-code's in
//     the same run (median of the per-run ratios).
//
// magi-code only:
//   - acp.magi-code.first_chunk: session/prompt written to the first
//     agent_message_chunk read;
//   - acp.magi-code.chunks_per_s, acp.magi-code.mb_per_s: agent_message_chunk
//     frames (and output bytes) per second from the first chunk to the
//     prompt's answer, a reader that keeps up;
//   - acp.magi-code.cpu_per_chunk: the child's CPU over the turn divided by
//     its chunks (/proc, 10 ms resolution over a turn of seconds);
//   - acp.magi-code.stall_rss_growth: VmRSS growth once the client stops
//     reading in the middle of a 100 MB flood (max over 3 s, or until exit),
//     with acp.magi-code.stall_exited (1 when it exited within those 3 s),
//     and then stall_exit_after_stop and stall_exit_code.

// acpPeers is the directory of the other agents' launchers (node_modules/.bin
// of interop/acp/peers); empty or missing: magi-code alone.
var acpPeers = "interop/acp/peers/node_modules/.bin"

// acpPeerNames are the launchers measured beside magi-code.
var acpPeerNames = []string{"claude-agent-acp", "codex-acp"}

const acpInitialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true,"_meta":{"terminal_output":true}},"clientInfo":{"name":"magi-code-bench","version":"0"}}}` + "\n"

// acpStallFor is how long the stalled client is watched.
const acpStallFor = 3 * time.Second

// acpStart spawns an agent and reads its initialize answer; it returns the
// child and the time from start to that answer.
func acpStart(w *workspace, name string, args ...string) (*child, time.Duration, error) {
	c, err := startCmd(w, name, args...)
	if err != nil {
		return nil, 0, err
	}
	if err := c.send([]byte(acpInitialize)); err != nil {
		c.kill()
		return nil, 0, err
	}
	if _, err := acpResponse(c, "0", nil); err != nil {
		c.kill()
		return nil, 0, err
	}
	return c, time.Since(c.started), nil
}

// acpResponse reads lines until the response whose id is id (its JSON
// text); other lines go to other. An error response is an error.
func acpResponse(c *child, id string, other func([]byte)) (json.RawMessage, error) {
	for {
		l, err := c.line()
		if err != nil {
			return nil, fmt.Errorf("waiting for response %s: %w", id, err)
		}
		// Notifications are most lines: classify them without decoding.
		if bytes.Contains(l, []byte(`"method":"session/update"`)) {
			if other != nil {
				other(l)
			}
			continue
		}
		var m struct {
			ID     json.RawMessage
			Method string
			Result json.RawMessage
			Error  *struct{ Code int }
		}
		if err := json.Unmarshal(l, &m); err != nil {
			return nil, fmt.Errorf("an output line that is not JSON: %.80q", l)
		}
		if m.Method != "" || string(m.ID) != id {
			if other != nil {
				other(l)
			}
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("response %s: error %d", id, m.Error.Code)
		}
		return m.Result, nil
	}
}

// acpSession opens a session in w's cwd and returns its id.
func acpSession(c *child, w *workspace) (string, error) {
	if err := c.send([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":` + strconv.Quote(w.cwd) + `,"mcpServers":[]}}` + "\n")); err != nil {
		return "", err
	}
	res, err := acpResponse(c, "1", nil)
	if err != nil {
		return "", err
	}
	var s struct{ SessionID string }
	if err := json.Unmarshal(res, &s); err != nil || s.SessionID == "" {
		return "", fmt.Errorf("session/new answer %s", res)
	}
	return s.SessionID, nil
}

func acpPrompt(c *child, sid string) error {
	return c.send([]byte(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"flood"}]}}` + "\n"))
}

func runACP(bin string) (*result, error) {
	r := &result{}
	w, err := newWorkspace(floodScript(floodCheckRepeat))
	if err != nil {
		return nil, err
	}
	defer w.remove()

	// Start-up of every agent, one after the other.
	c, own, err := acpStart(w, bin, "acp")
	if err != nil {
		return nil, fmt.Errorf("magi-code: %w", err)
	}
	r.addSpread("acp.magi-code.to_init_response", ms(own), "ms")
	r.add("acp.magi-code.idle_rss", float64(treeRSS(c.pid()))/1024, "MiB")
	if err := acpFlood(c, w, r); err != nil {
		c.kill()
		return nil, err
	}
	c.closeAndWait(5 * time.Second)
	node, nodeErr := findNode()
	for _, name := range acpPeerNames {
		launcher, err := filepath.Abs(filepath.Join(acpPeers, name))
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(launcher); err != nil || nodeErr != nil {
			r.note("%s not measured: %s is not installed (npm ci --prefix interop/acp/peers) or node is missing", name, launcher)
			continue
		}
		p, d, err := acpStart(w, node, launcher)
		if err != nil {
			r.note("%s: %v", name, err)
			continue
		}
		r.addSpread("acp."+name+".to_init_response", ms(d), "ms")
		r.add("acp."+name+".init_ratio", float64(d)/float64(own), "x")
		r.add("acp."+name+".idle_rss", float64(treeRSS(p.pid()))/1024, "MiB")
		p.kill()
		<-p.exited
		p.stdin.Close()
		p.stdout.Close()
	}
	if err := acpStall(bin, r); err != nil {
		return nil, err
	}
	return r, nil
}

// findNode looks node up on PATH.
func findNode() (string, error) {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		p := filepath.Join(dir, "node")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", errors.New("node not found")
}

// acpFlood runs one prompt whose fixture reply is 8 MB of 100-byte deltas,
// with a reader that keeps up.
func acpFlood(c *child, w *workspace, r *result) error {
	sid, err := acpSession(c, w)
	if err != nil {
		return err
	}
	cpu0, err := procCPU(c.pid())
	if err != nil {
		return err
	}
	read0 := c.read - int64(c.n-c.off)
	sent := time.Now()
	if err := acpPrompt(c, sid); err != nil {
		return err
	}
	var first time.Time
	chunks := 0
	res, err := acpResponse(c, "2", func(l []byte) {
		if bytes.Contains(l, []byte(`"sessionUpdate":"agent_message_chunk"`)) {
			if chunks == 0 {
				first = time.Now()
			}
			chunks++
		}
	})
	if err != nil {
		return err
	}
	end := time.Now()
	cpu1, err := procCPU(c.pid())
	if err != nil {
		return err
	}
	if chunks == 0 {
		return fmt.Errorf("the flood prompt sent no agent_message_chunk (answer %s)", res)
	}
	bytesRead := c.read - int64(c.n-c.off) - read0
	r.addSpread("acp.magi-code.first_chunk", ms(first.Sub(sent)), "ms")
	span := end.Sub(first).Seconds()
	r.addSpread("acp.magi-code.chunks_per_s", float64(chunks)/span, "chunks/s")
	r.add("acp.magi-code.mb_per_s", float64(bytesRead)/1e6/span, "MB/s")
	r.add("acp.magi-code.chunks", float64(chunks), "chunks")
	r.addSpread("acp.magi-code.cpu_per_chunk", us(cpu1-cpu0)/float64(chunks), "us")
	return nil
}

// acpStall starts a 100 MB flood, stops reading after the first chunk and
// watches the child's RSS for acpStallFor or until it exits.
func acpStall(bin string, r *result) error {
	w, err := newWorkspace(floodScript(floodFullRepeat))
	if err != nil {
		return err
	}
	defer w.remove()
	c, _, err := acpStart(w, bin, "acp")
	if err != nil {
		return err
	}
	defer func() {
		c.kill()
		<-c.exited
		c.stdin.Close()
		c.stdout.Close()
	}()
	sid, err := acpSession(c, w)
	if err != nil {
		return err
	}
	if err := acpPrompt(c, sid); err != nil {
		return err
	}
	for {
		l, err := c.line()
		if err != nil {
			return fmt.Errorf("output ended before the first chunk: %w", err)
		}
		if bytes.Contains(l, []byte(`"sessionUpdate":"agent_message_chunk"`)) {
			break
		}
	}
	stop := time.Now()
	rss0, err := procStatus(c.pid(), "VmRSS")
	if err != nil {
		return err
	}
	rssMax := rss0
	tick := time.NewTicker(stallSample)
	defer tick.Stop()
	deadline := time.After(acpStallFor)
	exited := 0.0
watch:
	for {
		select {
		case <-c.exited:
			exited = 1
			r.add("acp.magi-code.stall_exit_after_stop", ms(c.exitAt.Sub(stop)), "ms")
			r.add("acp.magi-code.stall_exit_code", float64(c.cmd.ProcessState.ExitCode()), "code")
			break watch
		case <-deadline:
			break watch
		case <-tick.C:
			if rss, err := procStatus(c.pid(), "VmRSS"); err == nil {
				rssMax = max(rssMax, rss)
			}
		}
	}
	r.addSpread("acp.magi-code.stall_rss_growth", float64(rssMax-rss0)/1024, "MiB")
	r.add("acp.magi-code.stall_exited", exited, "bool")
	return nil
}

// treeRSS sums VmRSS (KiB) over pid and every process whose parent chain
// reaches it (/proc).
func treeRSS(pid int) int64 {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(string(f[1]))
		parent[p] = pp
	}
	var total int64
	for p := range parent {
		for q, hops := p, 0; q > 0 && hops < 64; q, hops = parent[q], hops+1 {
			if q == pid {
				if rss, err := procStatus(p, "VmRSS"); err == nil {
					total += rss
				}
				break
			}
		}
	}
	return total
}
