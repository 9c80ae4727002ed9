package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The authorizer runs before every request: it stays small by linking neither the HTML
// sanitiser nor the calendar engine nor the document store (make sizes prints the sizes).
func TestAuthorizerLinksNeitherSanitiserNorEngine(t *testing.T) {
	cmd := exec.Command("go", "list", "-tags", "lambda.norpc", "-deps", "./functions/authorizer")
	cmd.Dir = root
	cmd.Env = append(cmd.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, banned := range []string{
		"github.com/microcosm-cc/bluemonday",
		"github.com/lorekeep/lorekeep/shared/calengine",
		"github.com/lorekeep/lorekeep/shared/domain",
		"github.com/lorekeep/lorekeep/shared/store",
		"github.com/aws/aws-sdk-go-v2/config",
		"text/template",
		"html/template",
	} {
		for _, d := range deps {
			if d == banned {
				t.Errorf("the authorizer links %s", banned)
			}
		}
	}
}

// templateFunctions may link html/template: the calendars function renders the month page and
// its SVG with it (contextual escaping of every user text), and the MCP function mounts every
// family's routes, the month page's too (its tools call them in process); their cold start is
// held by BenchmarkColdStart like every function's (DESIGN 6).
var templateFunctions = map[string]bool{"CalendarsFunction": true, "McpFunction": true}

// deps lists the packages a function's binary links, as its build sees them.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-tags", "lambda.norpc", "-deps", "./"+pkg)
	cmd.Dir = root
	cmd.Env = append(cmd.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// No Lambda links the SDK's config package (credentials come from the environment) nor the
// template packages (their reflection keeps every method of every type alive), but the
// calendars function, whose month page html/template escapes (templateFunctions).
func TestLambdasLinkNeitherSDKConfigNorTemplates(t *testing.T) {
	for fn, pkg := range functionPackages {
		for _, d := range deps(t, pkg) {
			if d == "github.com/aws/aws-sdk-go-v2/config" || ((d == "text/template" || d == "html/template") && !templateFunctions[fn]) {
				t.Errorf("%s links %s", fn, d)
			}
		}
	}
}

// No Lambda, the sweeper included, links the operations code (store/ops: the migration, the
// audit, the legacy-image migration) nor the store's test helpers: the lorekeep command and the
// tests do.
func TestNoLambdaLinksTheOperationsCode(t *testing.T) {
	const mod = "github.com/lorekeep/lorekeep/shared/store/"
	for fn, pkg := range functionPackages {
		linked := deps(t, pkg)
		for _, p := range []string{mod + "ops", mod + "internal/storetest"} {
			if slices.Contains(linked, p) {
				t.Errorf("%s links %s", fn, p)
			}
		}
	}
}

// Each function links only what it serves: no other function's family (a record that embeds
// another family's records links that family's wire package only), no operations code, and the
// meta function neither the store nor the engine.
func TestEachFunctionLinksOnlyWhatItServes(t *testing.T) {
	const mod = "github.com/lorekeep/lorekeep/"
	// served: the packages that only the function named serves.
	served := map[string][]string{
		"LocationsFunction":    {"shared/locations"},
		"CalendarsFunction":    {"shared/calendars", "shared/calendars/transfer", "shared/calendars/calendarweather", "shared/calendars/calendardays", "shared/calendars/calendarmonth"},
		"EntityEventsFunction": {"shared/entityevents"},
		"EntityNotesFunction":  {"shared/entitynotes"},
		"EntitiesFunction":     {"shared/entities"},
		"MetaFunction":         {"shared/apidoc"},
		"AuthorizerFunction":   {"shared/authorizer"},
		"SweeperFunction":      {"shared/sweeper"},
		"ImagesFunction":       {"shared/images/imagework"},
		"MapsFunction":         {"shared/maps"},
		"McpFunction":          {"shared/mcp"},
	}
	// Webhooks' routes and delivery are one family served by two functions: the others link
	// neither.
	webhookFns := []string{"WebhookRoutesFunction", "WebhooksFunction", "WebhookDeliveryFunction"}
	nobody := []string{"shared/families", "cmd/lorekeep", "shared/testing/apitest", "shared/testing/dynamotest"}
	extra := map[string][]string{
		"MetaFunction":        {"shared/store", "shared/calengine", "shared/domain/timeline", "shared/embeds"},
		"EntityNotesFunction": {"shared/embeds"},
		"SweeperFunction":     {"shared/httpapi", "shared/lambdaapi"},
	}
	for fn, pkg := range functionPackages {
		linked := deps(t, pkg)
		if fn == "McpFunction" {
			// Its tools are every family's REST routes, served in process: it links every
			// family (shared/families), and still no operations or test code.
			for _, b := range []string{"cmd/lorekeep", "shared/testing/apitest", "shared/testing/dynamotest", "shared/sweeper", "shared/webhooks/stream", "shared/images/imagework"} {
				if slices.Contains(linked, mod+b) {
					t.Errorf("%s links %s", fn, b)
				}
			}
			if !slices.Contains(linked, mod+"shared/mcp") || !slices.Contains(linked, mod+"shared/families") {
				t.Errorf("%s does not link shared/mcp and shared/families", fn)
			}
			continue
		}
		banned := append(append([]string{}, nobody...), extra[fn]...)
		if !slices.Contains(webhookFns, fn) {
			banned = append(banned, "shared/webhooks", "shared/webhooks/stream")
		} else if !slices.Contains(linked, mod+"shared/webhooks") {
			t.Errorf("%s does not link shared/webhooks, which it serves", fn)
		}
		for other, pkgs := range served {
			if other != fn {
				banned = append(banned, pkgs...)
			}
		}
		for _, b := range banned {
			if slices.Contains(linked, mod+b) {
				t.Errorf("%s links %s", fn, b)
			}
		}
		for _, own := range served[fn] {
			if !slices.Contains(linked, mod+own) {
				t.Errorf("%s does not link %s, which it serves", fn, own)
			}
		}
	}
}

// Every function sets the collector's policy for its memory (gcpolicy) at cold start.
func TestLambdasSetTheCollectorPolicy(t *testing.T) {
	for fn, pkg := range functionPackages {
		if !slices.Contains(deps(t, pkg), "github.com/lorekeep/lorekeep/shared/gcpolicy") {
			t.Errorf("%s does not link shared/gcpolicy", fn)
		}
	}
}

// Image decoding (the standard library's decoders, golang.org/x/image, imageproc, imagework)
// is linked by ImagesFunction only: the family functions reach it through the invoke protocol
// (shared/images), and only those, ImagesFunction and the sweeper, which deletes stored images,
// link the bucket (imagestore). `go list -deps` decides.
func TestOnlyImagesFunctionDecodesImages(t *testing.T) {
	const mod = "github.com/lorekeep/lorekeep/"
	decoding := []string{"ImagesFunction"}
	front := []string{"LocationsFunction", "CalendarsFunction", "ImagesFunction", "MapsFunction"}
	s3 := []string{"LocationsFunction", "CalendarsFunction", "ImagesFunction", "SweeperFunction", "MapsFunction"}
	for fn, pkg := range functionPackages {
		linked := deps(t, pkg)
		for _, c := range []struct {
			pkg string
			fns []string
		}{
			{mod + "shared/images/imageproc", decoding}, {mod + "shared/images/imagework", decoding},
			{"image/png", decoding}, {"image/jpeg", decoding}, {"image/gif", decoding}, {"golang.org/x/image/webp", decoding},
			{mod + "shared/images", front}, {mod + "shared/images/imagestore", s3},
		} {
			if got, want := slices.Contains(linked, c.pkg), slices.Contains(c.fns, fn); got != want {
				t.Errorf("%s links %s: %v, want %v", fn, c.pkg, got, want)
			}
		}
		if slices.Contains(decoding, fn) {
			continue
		}
		for _, p := range linked {
			if strings.HasPrefix(p, "golang.org/x/image/") || p == "image/draw" {
				t.Errorf("%s links %s (image decoding belongs to ImagesFunction)", fn, p)
			}
		}
	}
}

// Every function that opens the store registers the whole kind table (package kinds), and
// kinds links every package that declares to the kernel (store.Declare*): a cascade, a count's
// check or a related=1 row of an unregistered kind would be skipped without an error.
func TestEveryFunctionRegistersTheWholeKindTable(t *testing.T) {
	const mod = "github.com/lorekeep/lorekeep/"
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .GoFiles " "}}`, "./shared/...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var declaring []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], mod+"shared/store") {
			continue
		}
		dir := filepath.Join(root, strings.TrimPrefix(fields[0], mod))
		for _, f := range fields[1:] {
			src, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if regexp.MustCompile(`\bstore\.Declare[A-Za-z]*\(`).Match(src) {
				declaring = append(declaring, fields[0])
				break
			}
		}
	}
	if len(declaring) == 0 {
		t.Fatal("no package declares to the kernel: the scan is broken")
	}
	table := deps(t, "shared/kinds")
	for _, p := range declaring {
		if !slices.Contains(table, p) {
			t.Errorf("package kinds does not link %s, which declares to the kernel", p)
		}
	}
	for fn, pkg := range functionPackages {
		linked := deps(t, pkg)
		if slices.Contains(linked, mod+"shared/store") && !slices.Contains(linked, mod+"shared/kinds") {
			t.Errorf("%s opens the store without the whole kind table (package kinds)", fn)
		}
	}
}
