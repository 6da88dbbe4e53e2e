package worker

import (
	"github.com/magi-code/magi-code/runner/agent"
	"github.com/magi-code/magi-code/runner/config"
)

// subagents lists the snapshot's enabled subagent profiles for the task
// tool. config.Load has already left out disabled profiles (spec: disabled
// subagent profiles use the shared policy), so none is ever offered.
func subagents(snap *config.Snapshot) []agent.Subagent {
	out := make([]agent.Subagent, 0, len(snap.Subagents))
	for _, p := range snap.Subagents {
		out = append(out, agent.Subagent{Name: p.Name, Description: p.Description, Tools: p.Tools, Model: p.Model, Prompt: p.Prompt})
	}
	return out
}
