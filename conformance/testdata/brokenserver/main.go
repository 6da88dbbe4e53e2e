// Command brokenserver is a deliberately broken protocol server for the
// conformance kit's own tests: it runs a real server (the arguments after
// the flags) and breaks its output in one way, chosen by -mode:
//
//	seq    the third frame repeats the second frame's seq
//	echo   error objects carry the text of the failing request
//	field  every result object gains an unknown field
//	nopersist   input.persisted is never sent
//	notstarted  run.finished says persistence not_started, after the
//	            run's input.persisted and with outcome completed
//	notstarted-only  of each run's events only run.finished is sent, and
//	            it says persistence not_started with outcome completed
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
)

func main() {
	mode := flag.String("mode", "", "seq, echo, field, nopersist, notstarted or notstarted-only")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: brokenserver -mode MODE SERVER ARGS...")
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "brokenserver:", err)
		os.Exit(2)
	}
	br := bufio.NewReaderSize(out, 1<<17)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if line = breakFrame(*mode, n, line); len(line) > 0 {
				_, _ = os.Stdout.Write(line)
			}
		}
		if err != nil {
			break
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
}

func breakFrame(mode string, n int, line []byte) []byte {
	switch mode {
	case "seq":
		if n == 3 {
			return bytes.Replace(line, []byte(`"seq":3,`), []byte(`"seq":2,`), 1)
		}
	case "echo":
		if i := bytes.Index(line, []byte(`"error":{"code":`)); i >= 0 {
			end := bytes.LastIndex(line, []byte("}}"))
			msg := strconv.Quote("cannot handle request " + strconv.Itoa(n) + ": hello <script>")
			return append(append(append([]byte{}, line[:end]...), `,"message":`+msg+"}}\n"...))
		}
	case "field":
		return bytes.Replace(line, []byte(`"result":{`), []byte(`"result":{"debug":true,`), 1)
	case "nopersist":
		if bytes.Contains(line, []byte(`"event":"input.persisted"`)) {
			return nil
		}
	case "notstarted", "notstarted-only":
		if bytes.Contains(line, []byte(`"event":"run.finished"`)) {
			return bytes.Replace(line, []byte(`"persistence":"durable"`), []byte(`"persistence":"not_started"`), 1)
		}
		if mode == "notstarted-only" && bytes.Contains(line, []byte(`"type":"event"`)) {
			return nil
		}
	}
	return line
}
