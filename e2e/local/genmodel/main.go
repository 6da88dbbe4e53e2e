// Command genmodel writes a tiny deterministic GGUF model for the opt-in
// test against llama.cpp's server (make e2e-local; docs/testing.md). It
// takes the Qwen2 tokenizer (models/ggml-vocab-qwen2.gguf) and the
// Qwen2.5 chat template from llama.cpp's source tree and wires one llama
// layer by hand:
//
//   - one-hot embeddings: each token of the two answers, the last token of
//     the prompt and the marker token get a dimension of their own (every
//     other token embeds as zero);
//   - the output matrix is a bigram table: each token of an answer has
//     exactly one successor (so the tokens of an answer are distinct ids),
//     the last one is <|im_end|>;
//   - one attention head with zero Q and K averages the context; its V
//     reads only the marker token (the "_response" piece of
//     <tool_response>), so the residual stream carries whether a tool
//     result is in the conversation.
//
// From the prompt's last token (the newline after "<|im_start|>assistant")
// the model starts the tool call when no tool result is in the context,
// and the fixed sentence when one is:
//
//	<tool_call>
//	{"name":"list_dir","arguments":{"path":"."}}
//	</tool_call>
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
)

const (
	toolCall = "<tool_call>\n{\"name\":\"list_dir\",\"arguments\":{\"path\":\".\"}}\n</tool_call>"
	// Sentence is the model's answer once a tool result is in the context.
	Sentence  = "The listing is in."
	marker    = "_response"
	promptEnd = "\n" // the generation prompt ends "<|im_start|>assistant\n"
	endToken  = "<|im_end|>"
)

func main() {
	vocab := flag.String("vocab", "", "models/ggml-vocab-qwen2.gguf")
	tmpl := flag.String("template", "", "models/templates/Qwen-Qwen2.5-7B-Instruct.jinja")
	out := flag.String("out", "", "the model file to write")
	flag.Parse()
	if err := run(*vocab, *tmpl, *out); err != nil {
		fmt.Fprintln(os.Stderr, "genmodel:", err)
		os.Exit(1)
	}
}

func run(vocabPath, tmplPath, out string) error {
	f, err := os.Open(vocabPath)
	if err != nil {
		return err
	}
	kvs, err := readKVs(f)
	f.Close()
	if err != nil {
		return err
	}
	tmpl, err := os.ReadFile(tmplPath)
	if err != nil {
		return err
	}
	var tokens []string
	var types []any
	var meta []kv
	for _, e := range kvs {
		if !strings.HasPrefix(e.key, "tokenizer.") || e.key == "tokenizer.chat_template" {
			continue
		}
		switch e.key {
		case "tokenizer.ggml.tokens":
			for _, v := range e.arr {
				tokens = append(tokens, v.(string))
			}
		case "tokenizer.ggml.token_type":
			types = e.arr
		}
		meta = append(meta, e)
	}
	if len(tokens) == 0 {
		return fmt.Errorf("%s has no tokens", vocabPath)
	}
	// Control tokens (type 3) render as nothing; only <|im_end|> is
	// looked up among them.
	ids := make(map[string]int, len(tokens))
	for i, t := range tokens {
		control := i < len(types) && *(types[i].(*int32)) == 3
		if _, dup := ids[t]; !dup && (!control || t == endToken) {
			ids[t] = i
		}
	}
	m, err := wire(ids, len(tokens))
	if err != nil {
		return err
	}
	u32 := func(k string, v uint32) kv { return kv{key: k, typ: tU32, val: v} }
	head := []kv{
		{key: "general.architecture", typ: tString, val: "llama"},
		{key: "general.name", typ: tString, val: "magi-code e2e-local bigram"},
		u32("general.alignment", alignment),
		u32("llama.context_length", 32768),
		u32("llama.embedding_length", uint32(m.dim)),
		u32("llama.block_count", 1),
		u32("llama.feed_forward_length", ffn),
		u32("llama.attention.head_count", 1),
		u32("llama.attention.head_count_kv", 1),
		u32("llama.rope.dimension_count", uint32(m.dim)),
		{key: "llama.attention.layer_norm_rms_epsilon", typ: tF32, val: float32(1e-6)},
		{key: "tokenizer.chat_template", typ: tString, val: string(tmpl)},
	}
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := writeGGUF(w, append(head, meta...), m.tensors); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

const ffn = 8

type model struct {
	dim     int
	tensors []tensor
}

// Weights of the wiring: a successor's logit from its predecessor's
// dimension (after the final RMS norm, a one-hot is sqrt(dim)), and the
// marker's pull on the sentence's first token against its bias.
const (
	succ      = 1000
	markerW   = 5000
	startBias = 1
)

// wire builds the tensors for a vocabulary of n tokens (ids by text).
func wire(ids map[string]int, n int) (*model, error) {
	decide, ok := ids[byteLevel(promptEnd)]
	end, ok2 := ids[endToken]
	mark, ok3 := ids[marker]
	if !ok || !ok2 || !ok3 {
		return nil, fmt.Errorf("the vocabulary lacks a needed token")
	}
	used := map[int]bool{decide: true, end: true, mark: true}
	call, err := segment(ids, byteLevel(toolCall), used)
	if err != nil {
		return nil, err
	}
	sentence, err := segment(ids, byteLevel(Sentence), used)
	if err != nil {
		return nil, err
	}
	// Dimensions: the decision token, each chain token, the marker in and
	// the marker channel.
	slot := map[int]int{decide: 0}
	for _, t := range slices.Concat(call, sentence) {
		slot[t] = len(slot)
	}
	markIn, markOut := len(slot), len(slot)+1
	dim := (markOut + 8) / 8 * 8
	emb := make([]float32, n*dim)
	for t, s := range slot {
		emb[t*dim+s] = 1
	}
	emb[mark*dim+markIn] = 1
	outW := make([]float32, n*dim)
	chain := func(c []int) {
		for i, t := range c {
			next := end
			if i+1 < len(c) {
				next = c[i+1]
			}
			outW[next*dim+slot[t]] = succ
		}
	}
	chain(call)
	chain(sentence)
	outW[call[0]*dim+slot[decide]] = succ
	outW[sentence[0]*dim+slot[decide]] = succ - startBias
	outW[sentence[0]*dim+markOut] = markerW
	ones := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = 1
		}
		return v
	}
	v := make([]float32, dim*dim)
	v[markOut*dim+markIn] = 1
	o := make([]float32, dim*dim)
	o[markOut*dim+markOut] = 1
	d, nn, f := uint64(dim), uint64(n), uint64(ffn)
	return &model{dim: dim, tensors: []tensor{
		{"token_embd.weight", []uint64{d, nn}, emb},
		{"output_norm.weight", []uint64{d}, ones()},
		{"output.weight", []uint64{d, nn}, outW},
		{"blk.0.attn_norm.weight", []uint64{d}, ones()},
		{"blk.0.attn_q.weight", []uint64{d, d}, make([]float32, dim*dim)},
		{"blk.0.attn_k.weight", []uint64{d, d}, make([]float32, dim*dim)},
		{"blk.0.attn_v.weight", []uint64{d, d}, v},
		{"blk.0.attn_output.weight", []uint64{d, d}, o},
		{"blk.0.ffn_norm.weight", []uint64{d}, ones()},
		{"blk.0.ffn_gate.weight", []uint64{d, f}, make([]float32, dim*ffn)},
		{"blk.0.ffn_up.weight", []uint64{d, f}, make([]float32, dim*ffn)},
		{"blk.0.ffn_down.weight", []uint64{f, d}, make([]float32, dim*ffn)},
	}}, nil
}

// segment splits s (byte-level text) into tokens of the vocabulary, each
// id used once in all (used holds the ones taken), longest pieces first.
func segment(ids map[string]int, s string, used map[int]bool) ([]int, error) {
	var out []int
	var try func(rest string) bool
	try = func(rest string) bool {
		if rest == "" {
			return true
		}
		rs := []rune(rest)
		for n := min(len(rs), 16); n > 0; n-- {
			id, ok := ids[string(rs[:n])]
			if !ok || used[id] {
				continue
			}
			used[id] = true
			out = append(out, id)
			if try(string(rs[n:])) {
				return true
			}
			used[id] = false
			out = out[:len(out)-1]
		}
		return false
	}
	if !try(s) {
		return nil, fmt.Errorf("no segmentation of %q into distinct tokens", s)
	}
	return out, nil
}

// byteLevel maps text to GPT-2's byte-level alphabet, in which the
// vocabulary spells its tokens (a space is "Ġ", a newline "Ċ"). Special
// tokens such as <|im_end|> are looked up as written.
func byteLevel(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		b.WriteRune(byteRune[c])
	}
	return b.String()
}

// byteRune is GPT-2's bytes_to_unicode table.
var byteRune = func() (t [256]rune) {
	n := 0
	for c := 0; c < 256; c++ {
		if '!' <= c && c <= '~' || 0xA1 <= c && c <= 0xAC || 0xAE <= c && c <= 0xFF {
			t[c] = rune(c)
		} else {
			t[c] = rune(256 + n)
			n++
		}
	}
	return t
}()
