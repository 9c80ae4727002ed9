package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The command line's answers that need no storage: help, and mistakes that name the flag.
func TestCommandLine(t *testing.T) {
	noenv := func(string) string { return "" }
	cases := []struct {
		name      string
		args      string
		exit      int
		stdoutHas string
		stderrHas string
	}{
		{"help on stdout", "-h", 0, "lorekeep campaign create --name NAME", ""},
		{"long help", "--help", 0, "lorekeep token revoke", ""},
		{"a command's help", "campaign create -h", 0, "-owner", ""},
		{"a command's long help", "member add --help", 0, "-role", ""},
		{"serve's help", "serve -h", 0, "-sweep-every", ""},
		{"sweep's help", "sweep -h", 0, "-older-than", ""},
		{"bad sweep age", "sweep --older-than soon", 2, "", "-older-than"},
		{"negative sweep age", "sweep --older-than -1m", 2, "", "must not be negative"},
		{"negative sweep interval", "serve --sweep-every -1s", 2, "", "must not be negative"},
		{"no command", "", 2, "", "usage:"},
		{"unknown command", "frobnicate", 2, "", `unknown command "frobnicate"`},
		{"missing required flag", "campaign create --name X", 2, "", "--owner is required"},
		{"missing campaign", "member add --user x --role member", 2, "", "--campaign is required"},
		{"unknown flag", "token create --user x --bogus", 2, "", "-bogus"},
		{"bad flag value", "token create --user x --expires soon", 2, "", "-expires"},
		{"a token's field set in its help", "token create -h", 0, "-field-set", ""},
		{"an unknown field set", "token create --user x --field-set 2019", 2, "", "-field-set"},
		{"bad role", "member add --campaign 1 --user x --role owner", 2, "", "--role must be"},
		{"bad boost", "campaign create --name X --owner gm --boost mega", 2, "", "--boost must be"},
		{"stray argument", "init now", 2, "", `unexpected argument "now"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), strings.Fields(tc.args), &stdout, &stderr, noenv)
			if code := exitCode(err, &stderr); code != tc.exit {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.exit, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.stdoutHas) || !strings.Contains(stderr.String(), tc.stderrHas) {
				t.Fatalf("stdout %q stderr %q, want %q and %q", stdout.String(), stderr.String(), tc.stdoutHas, tc.stderrHas)
			}
			if tc.exit == 0 && stderr.Len() > 0 {
				t.Fatalf("help wrote to stderr: %q", stderr.String())
			}
		})
	}
}
