package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/magi-code/magi-code/client/human"
	"github.com/magi-code/magi-code/client/mission"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/runner/auth"
	"github.com/magi-code/magi-code/runner/config"
)

// account runs login, logout and model: the credential and model
// choices the protocol leaves to Mission Control.
func account(l launch) int {
	env := runner.ProcessEnv()
	switch l.mode {
	case modeLogin:
		provider := l.provider
		if provider == "" {
			fmt.Print("provider (openai, anthropic, openrouter or a [providers.NAME] table's name): ")
			provider = strings.TrimSpace(readLine())
		}
		p, known := credentialProvider(env, provider)
		switch {
		case !known:
			return 2
		case p.KeyLess():
			// A local server (ollama, lmstudio, llamacpp, or a table
			// without api_key_env): nothing to store.
			fmt.Printf("%s needs no key (it names no api_key_env); nothing stored\n", provider)
			return 0
		}
		key, err := readSecret(provider + " API key (not shown): ")
		if err != nil || key == "" {
			fmt.Fprintln(os.Stderr, "magi-code: login: no key read; nothing stored")
			return 1
		}
		if err := storeKey(env, provider, key); err != nil {
			fmt.Fprintln(os.Stderr, "magi-code: login:", err)
			return 1
		}
		fmt.Printf("stored the %s API key in auth.json (mode 0600)\n", provider)
	case modeLogout:
		if _, known := credentialProvider(env, l.provider); !known {
			return 2
		}
		err := removeKey(env, l.provider)
		if errors.Is(err, auth.ErrNoEntry) {
			fmt.Fprintf(os.Stderr, "magi-code: logout: no stored credential for %s\n", l.provider)
			return 1
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "magi-code: logout:", err)
			return 1
		}
		fmt.Printf("removed the stored %s credential\n", l.provider)
	case modeModel:
		if _, known := config.LookupProvider(config.Env(env), l.provider); l.provider != "" && !known {
			fmt.Fprintln(os.Stderr, "magi-code: usage: model: unknown provider (one of "+strings.Join(config.BuiltinProviders(), ", ")+", or a [providers.NAME] table's name)")
			return 2
		}
		if l.name != "" {
			if err := setModel(env, l.provider, l.name); err != nil {
				fmt.Fprintln(os.Stderr, "magi-code: model:", err)
				return 1
			}
		}
		d, err := config.Describe(config.Env(env))
		if err != nil {
			fmt.Fprintln(os.Stderr, "magi-code: model:", err)
			return 1
		}
		fmt.Println(selectionText(d))
	}
	return 0
}

// errUnknownProvider is the usage error of login and logout for a name
// the settings do not define (the fixture has no credential).
const errUnknownProvider = "magi-code: usage: unknown provider (openai, anthropic, openrouter, or a [providers.NAME] table's name)"

// credentialProvider returns the effective definition of a provider
// login and logout may name (any remote one the settings know), or prints
// errUnknownProvider.
func credentialProvider(env runner.Env, name string) (config.RemoteProvider, bool) {
	p, known := config.LookupProvider(config.Env(env), name)
	if !known || name == config.FixtureProvider {
		fmt.Fprintln(os.Stderr, errUnknownProvider)
		return p, false
	}
	return p, true
}

// selectionText is the effective provider and model and whether a turn
// could start with them.
func selectionText(d config.Description) string {
	get := func(key string) string {
		for _, v := range d.Values {
			if v.Key == key {
				return strings.Trim(v.Value, `"`) + " (" + v.Source + ")"
			}
		}
		return "none"
	}
	ready := "ready"
	if d.Readiness != "" {
		ready = "not ready: " + human.Readiness(string(d.Readiness))
	}
	return fmt.Sprintf("provider %s, model %s: %s", get("provider"), get("model"), ready)
}

// storeKey stores an API key in $MC_HOME/auth.json.
func storeKey(env runner.Env, provider, key string) error {
	home, err := config.Env(env).HomeDir()
	if err != nil {
		return err
	}
	return auth.SetKey(context.Background(), home, provider, key)
}

// removeKey removes provider's entry from $MC_HOME/auth.json and keeps the
// others (auth.ErrNoEntry when it has none): logout and Mission Control's
// /logout.
func removeKey(env runner.Env, provider string) error {
	home, err := config.Env(env).HomeDir()
	if err != nil {
		return err
	}
	return auth.Remove(context.Background(), home, provider)
}

// logoutKey is Mission Control's /logout: removeKey for a provider login
// may name, with the app's errors.
func logoutKey(env runner.Env, provider string) error {
	if _, known := config.LookupProvider(config.Env(env), provider); !known || provider == config.FixtureProvider {
		return mission.ErrUnknownProvider
	}
	err := removeKey(env, provider)
	if errors.Is(err, auth.ErrNoEntry) {
		return mission.ErrNoCredential
	}
	return err
}

// setModel stores the selection; an empty provider keeps the effective
// one.
func setModel(env runner.Env, provider, model string) error {
	if provider == "" {
		d, err := config.Describe(config.Env(env))
		if err != nil {
			return err
		}
		for _, v := range d.Values {
			if v.Key == "provider" {
				provider = strings.Trim(v.Value, `"`)
			}
		}
		if provider == "" {
			return errors.New("no provider configured: name one (model PROVIDER NAME)")
		}
	}
	return config.SetSelection(config.Env(env), provider, model)
}

// stdinLines reads the answers of login from stdin. Made on first use: a
// package variable set by a call would be set (and its buffer allocated)
// at every start, serve's included.
var stdinLines *bufio.Reader

func readLine() string {
	if stdinLines == nil {
		stdinLines = bufio.NewReader(os.Stdin)
	}
	s, _ := stdinLines.ReadString('\n')
	return strings.TrimRight(s, "\r\n")
}

// readSecret reads a line without echo on a terminal; from a pipe (a
// script) it reads one line as is. The secret is never printed.
func readSecret(prompt string) (string, error) {
	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		return strings.TrimSpace(readLine()), nil
	}
	return readSecretTTY(fd, prompt)
}
