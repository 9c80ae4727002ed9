package deploy_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/lorekeep/lorekeep/shared/httpapi"
	"github.com/lorekeep/lorekeep/shared/store"
	"github.com/lorekeep/lorekeep/shared/testing/apitest"
	"github.com/lorekeep/lorekeep/shared/testing/dynamotest"
)

const prefix = "/api/1.0/campaigns/{campaign_id}"

// functionPackages maps each function of the template to the Go package it is built from.
var functionPackages = map[string]string{
	"AuthorizerFunction":      "functions/authorizer",
	"LocationsFunction":       "functions/locations",
	"CalendarsFunction":       "functions/calendars",
	"EntityEventsFunction":    "functions/entity-events",
	"EntityNotesFunction":     "functions/entity-notes",
	"MetaFunction":            "functions/meta",
	"EntitiesFunction":        "functions/entities",
	"SweeperFunction":         "functions/sweeper",
	"WebhookRoutesFunction":   "functions/webhook-routes",
	"WebhooksFunction":        "functions/webhooks",
	"WebhookDeliveryFunction": "functions/webhook-delivery",
	"ImagesFunction":          "functions/images",
	"MapsFunction":            "functions/maps",
	"McpFunction":             "functions/mcp",
}

// Every authorized route is a campaign's (under the campaign prefix, or the campaign itself) or
// one of the caller's own routes the code registers outside any campaign (profile, campaigns,
// entity types: httpapi.AccountPrefix); none ends with a slash.
func TestTemplateRoutesAreUnderTheCampaignPrefixWithoutTrailingSlash(t *testing.T) {
	tpl := loadTemplate(t)
	account := map[string]bool{}
	for r := range codeRoutes(t) {
		if !strings.HasPrefix(r.path, prefix) && strings.HasPrefix(r.path, httpapi.AccountPrefix+"/") {
			account[r.path] = true
		}
	}
	if len(account) == 0 {
		t.Error("the code registers no route outside the campaign prefix; want profile, campaigns, entity types")
	}
	for r, fn := range tpl.httpAPIRoutes(t) {
		if publicRoute(fn, r.path) || fn == "McpFunction" {
			// The public routes and the MCP endpoint's, and only they, skip the authorizer.
			continue
		}
		under := strings.HasPrefix(r.path, prefix+"/") || r.path == prefix || account[r.path]
		if !under || strings.HasSuffix(r.path, "/") {
			t.Errorf("route %s: want a path under %s/ (or a route outside campaigns the code registers) without a trailing slash", r, prefix)
		}
	}
}

func TestTemplateDeploysExactlyTheFunctionPackages(t *testing.T) {
	tpl := loadTemplate(t)
	got := tpl.resourcesOfType("AWS::Serverless::Function")
	want := make([]string, 0, len(functionPackages))
	for fn := range functionPackages {
		want = append(want, fn)
	}
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("functions in template.yaml = %v, want %v", got, want)
	}
	// Every Lambda package of the repository is deployed by some function.
	dirs, err := filepath.Glob(filepath.Join(root, "functions", "*", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	deployed := map[string]bool{}
	for _, pkg := range functionPackages {
		deployed[pkg] = true
	}
	for _, d := range dirs {
		pkg := filepath.ToSlash(filepath.Dir(strings.TrimPrefix(d, root+string(filepath.Separator))))
		if !deployed[pkg] {
			t.Errorf("%s has a main.go but no function of template.yaml builds it", pkg)
		}
	}
}

func TestFunctionsRunAsGoBinariesOnArm64(t *testing.T) {
	tpl := loadTemplate(t)
	for _, fn := range tpl.resourcesOfType("AWS::Serverless::Function") {
		t.Run(fn, func(t *testing.T) {
			for prop, want := range map[string]any{
				"Runtime":       "provided.al2023",
				"Architectures": []any{"arm64"},
				"Handler":       "bootstrap",
				"CodeUri":       ".",
			} {
				if got := tpl.functionProp(fn, prop); !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %v, want %v", prop, got, want)
				}
			}
			if got := at(tpl.resources()[fn], "Metadata", "BuildMethod"); got != "makefile" {
				t.Errorf("Metadata.BuildMethod = %v, want makefile", got)
			}
			if mem, _ := tpl.functionProp(fn, "MemorySize").(int); mem < 128 || mem > 10240 {
				t.Errorf("MemorySize = %v", tpl.functionProp(fn, "MemorySize"))
			}
			// API Gateway gives up after 30 s: a function must time out before that. The
			// sweeper and the webhooks function, which no request waits for, within their
			// schedule's minute.
			limit := 29
			if fn == "SweeperFunction" || fn == "WebhooksFunction" || fn == "WebhookDeliveryFunction" {
				limit = 60
			}
			if to, _ := tpl.functionProp(fn, "Timeout").(int); to < 3 || to > limit {
				t.Errorf("Timeout = %v, want 3..%d s", tpl.functionProp(fn, "Timeout"), limit)
			}
		})
	}
}

// The read-path benchmarks run under the collector's policy for the API functions' memory
// (apitest.LambdaMemoryMB): it must be the template's.
func TestBenchmarksMeasureTheFunctionsMemory(t *testing.T) {
	tpl := loadTemplate(t)
	if got := at(tpl, "Globals", "Function", "MemorySize"); got != apitest.LambdaMemoryMB {
		t.Errorf("Globals.Function.MemorySize = %v, apitest.LambdaMemoryMB = %d", got, apitest.LambdaMemoryMB)
	}
}

func TestFunctionsAreConfiguredByTheEnvironmentTheCodeReads(t *testing.T) {
	tpl := loadTemplate(t)
	for _, fn := range tpl.resourcesOfType("AWS::Serverless::Function") {
		env := at(tpl.functionProp(fn, "Environment"), "Variables")
		if got := at(env, "TABLE_NAME"); !reflect.DeepEqual(got, ref("Table")) {
			t.Errorf("%s: TABLE_NAME = %v, want !Ref Table", fn, got)
		}
		// Declared (so that sam local can set it from env.json) but empty: real DynamoDB on AWS.
		if got, ok := env.(map[string]any)["DYNAMODB_ENDPOINT"]; !ok || got != "" {
			t.Errorf("%s: DYNAMODB_ENDPOINT = %v (declared %v), want \"\" on AWS", fn, got, ok)
		}
	}
	// Every HTTP function (all but the authorizer) limits its rate.
	for fn := range functionHandlers {
		env := at(tpl.functionProp(fn, "Environment"), "Variables")
		if got := at(env, "RATE_LIMIT"); !reflect.DeepEqual(got, ref("RateLimit")) {
			t.Errorf("%s: RATE_LIMIT = %v, want !Ref RateLimit", fn, got)
		}
	}
	if got := at(tpl, "Parameters", "RateLimit", "Default"); got != 90 {
		t.Errorf("RateLimit default = %v, want 90 (the contract's default)", got)
	}
}

// buildTarget reads the recipe of `build-<fn>:` in the Makefile, or "" when there is none.
func buildTarget(t *testing.T, dir, fn string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "Makefile"))
	if err != nil {
		t.Fatalf("no Makefile in CodeUri %q: %v", dir, err)
	}
	defer f.Close()
	var recipe []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "build-"+fn+":"):
			in = true
		case in && strings.HasPrefix(line, "\t"):
			recipe = append(recipe, strings.TrimSpace(line))
		case in:
			in = false
		}
	}
	return strings.Join(recipe, "\n")
}

// TestFunctionsHaveTheMakefileTargetSamBuildCalls checks what `sam build` does with
// BuildMethod: makefile: it runs `make build-<LogicalId>` in CodeUri with ARTIFACTS_DIR set and
// deploys ARTIFACTS_DIR/bootstrap. The target must exist, build the function's package for
// linux/arm64 without cgo, and keep the templates packages out of the binary.
func TestFunctionsHaveTheMakefileTargetSamBuildCalls(t *testing.T) {
	tpl := loadTemplate(t)
	for _, fn := range tpl.resourcesOfType("AWS::Serverless::Function") {
		t.Run(fn, func(t *testing.T) {
			dir := filepath.Join(root, str(tpl.functionProp(fn, "CodeUri")))
			pkg, ok := functionPackages[fn]
			if !ok {
				t.Fatalf("no package known for %s", fn)
			}
			if _, err := os.Stat(filepath.Join(dir, pkg, "main.go")); err != nil {
				t.Fatalf("package %s: %v", pkg, err)
			}
			if recipe := buildTarget(t, dir, fn); recipe == "" {
				t.Fatalf("Makefile has no recipe for build-%s", fn)
			}
			// What make would run, variables expanded.
			out, err := exec.Command("make", "-n", "-C", dir, "build-"+fn, "ARTIFACTS_DIR=/artifacts").CombinedOutput()
			if err != nil {
				t.Fatalf("make -n build-%s: %v\n%s", fn, err, out)
			}
			cmd := string(out)
			for _, want := range []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64", "-tags lambda.norpc", "-o /artifacts/bootstrap", "./" + pkg} {
				if !strings.Contains(cmd, want) {
					t.Errorf("build-%s runs %q: missing %q", fn, cmd, want)
				}
			}
			goList := exec.Command("go", "list", "-deps", "-tags", "lambda.norpc", "./"+pkg)
			goList.Dir = dir
			goList.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
			deps, err := goList.Output()
			if err != nil {
				t.Fatalf("go list -deps ./%s: %v", pkg, err)
			}
			for _, d := range strings.Fields(string(deps)) {
				if (d == "text/template" || d == "html/template") && !templateFunctions[fn] {
					t.Errorf("%s links %s (keep templates out of Lambda binaries)", pkg, d)
				}
			}
		})
	}
}

// Lambda's own limits on a function's package (AWS Lambda quotas): 50 MB zipped, 250 MB
// unzipped. A function's size is otherwise a cold-start question, measured by
// BenchmarkColdStart (DESIGN 6), not a wall.
const (
	lambdaZippedLimit   = 50 << 20
	lambdaUnzippedLimit = 250 << 20
)

// TestMakefileTargetsProduceArm64Bootstraps runs the build targets as `sam build` would and
// checks that each leaves a static linux/arm64 executable named bootstrap, alone, within
// Lambda's limits (`make sizes` prints them all, raw and zipped). sam build runs them in the repository itself
// (samconfig.toml's build_in_source), so it copies nothing: each package is megabytes.
func TestMakefileTargetsProduceArm64Bootstraps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the Lambda binaries (slow on a cold build cache); the make -n checks still run")
	}
	tpl := loadTemplate(t)
	for _, fn := range tpl.resourcesOfType("AWS::Serverless::Function") {
		t.Run(fn, func(t *testing.T) {
			t.Parallel()
			artifacts := t.TempDir()
			dir := filepath.Join(root, str(tpl.functionProp(fn, "CodeUri")))
			out, err := exec.Command("make", "-s", "-C", dir, "build-"+fn, "ARTIFACTS_DIR="+artifacts).CombinedOutput()
			if err != nil {
				t.Fatalf("make build-%s: %v\n%s", fn, err, out)
			}
			// The function's package (what sam deploy zips) is its bootstrap and nothing else.
			entries, err := os.ReadDir(artifacts)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if !slices.Equal(names, []string{"bootstrap"}) {
				t.Errorf("build-%s left %v in ARTIFACTS_DIR, want only bootstrap", fn, names)
			}
			bin := filepath.Join(artifacts, "bootstrap")
			f, err := elf.Open(bin)
			if err != nil {
				t.Fatalf("%s: %v", bin, err)
			}
			defer f.Close()
			if f.Machine != elf.EM_AARCH64 || f.Type != elf.ET_EXEC {
				t.Errorf("bootstrap is %v %v, want an arm64 executable", f.Machine, f.Type)
			}
			for _, p := range f.Progs {
				if p.Type == elf.PT_INTERP {
					t.Errorf("bootstrap is dynamically linked; provided.al2023 needs a static binary")
				}
			}
			st, err := os.Stat(bin)
			if err != nil || st.Mode()&0o111 == 0 {
				t.Fatalf("bootstrap is not executable: %v", err)
			}
			body, err := os.ReadFile(bin)
			if err != nil {
				t.Fatal(err)
			}
			zipped := zippedSize(t, body)
			t.Logf("%s bootstrap: %d bytes, %d zipped", fn, st.Size(), zipped)
			if st.Size() > lambdaUnzippedLimit || zipped > lambdaZippedLimit {
				t.Errorf("%s bootstrap is %d bytes (%d zipped), over Lambda's limits (%d, %d zipped)",
					fn, st.Size(), zipped, lambdaUnzippedLimit, lambdaZippedLimit)
			}
		})
	}
}

func TestAuthorizerIsTheDefaultAndKeyedByTheAuthorizationHeader(t *testing.T) {
	tpl := loadTemplate(t)
	if got := tpl.resourcesOfType("AWS::Serverless::HttpApi"); !slices.Equal(got, []string{"HttpApi"}) {
		t.Fatalf("HttpApi resources = %v, want exactly [HttpApi]", got)
	}
	auth := at(tpl.resources()["HttpApi"], "Properties", "Auth")
	name := str(at(auth, "DefaultAuthorizer"))
	a := at(auth, "Authorizers", name)
	if a == nil {
		t.Fatalf("DefaultAuthorizer %q is not among the Authorizers", name)
	}
	for _, c := range []struct {
		field string
		want  any
	}{
		{"FunctionArn", getAtt("AuthorizerFunction", "Arn")},
		{"AuthorizerPayloadFormatVersion", "2.0"}, // a string: 2.0 unquoted is a float
		{"EnableSimpleResponses", true},
		{"Identity.Headers", []any{"Authorization"}},
	} {
		if got := at(a, strings.Split(c.field, ".")...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("authorizer %s = %#v, want %#v", c.field, got, c.want)
		}
	}
	// SAM lets API Gateway invoke the authorizer only when asked to (or given a role).
	if at(a, "EnableFunctionDefaultPermissions") != true && at(a, "FunctionInvokeRole") == nil {
		t.Error("API Gateway has no permission to invoke the authorizer: set EnableFunctionDefaultPermissions: true")
	}
	// The cache TTL: a parameter (default 300) or a number, within API Gateway's 0..3600.
	ttl := at(a, "Identity", "ReauthorizeEvery")
	if p := str(at(ttl, "Ref")); p != "" {
		param := at(tpl, "Parameters", p)
		if at(param, "Type") != "Number" || at(param, "Default") != 300 || at(param, "MinValue") != 0 || at(param, "MaxValue") != 3600 {
			t.Errorf("parameter %s = %v, want a Number defaulting to 300 within 0..3600", p, param)
		}
	} else if n, ok := ttl.(int); !ok || n < 0 || n > 3600 {
		t.Errorf("ReauthorizeEvery = %v, want 0..3600 seconds", ttl)
	}
	// Only the public routes (MetaFunction's: entry point, health, the document; a share
	// link's month page) opt out of
	// the default authorizer, and they need no other.
	for _, fn := range tpl.resourcesOfType("AWS::Serverless::Function") {
		evs, _ := at(tpl.resources()[fn], "Properties", "Events").(map[string]any)
		for ev, e := range evs {
			override := at(e, "Properties", "Auth")
			public := publicRoute(fn, str(at(e, "Properties", "Path"))) || fn == "McpFunction" // McpFunction checks its token itself
			if public && !reflect.DeepEqual(override, map[string]any{"Authorizer": "NONE"}) || !public && override != nil {
				t.Errorf("%s event %s: Auth %v", fn, ev, override)
			}
		}
	}
}

func TestCorsConfigurationFollowsTheContract(t *testing.T) {
	cors := at(loadTemplate(t).resources()["HttpApi"], "Properties", "CorsConfiguration")
	set := func(v any) []string { s := strs(v); sort.Strings(s); return s }
	for _, c := range []struct {
		field string
		want  []string
	}{
		{"AllowOrigins", []string{"*"}},
		{"AllowHeaders", []string{"Accept", "Authorization", "Content-Type", "Idempotency-Key"}},
		{"AllowMethods", []string{"DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"}},
	} {
		if got := set(at(cors, c.field)); !slices.Equal(got, c.want) {
			t.Errorf("CorsConfiguration.%s = %v, want %v", c.field, got, c.want)
		}
	}
	// API Gateway's CORS headers replace the function's, so the rate limit headers must be
	// exposed here.
	expose := strs(at(cors, "ExposeHeaders"))
	for _, h := range []string{"X-RateLimit-Remaining", "X-RateLimit-Limit", "Idempotent-Replayed"} {
		if !slices.Contains(expose, h) {
			t.Errorf("CorsConfiguration.ExposeHeaders = %v, missing %s", expose, h)
		}
	}
	if at(cors, "AllowCredentials") == true {
		t.Error("AllowCredentials cannot go with AllowOrigins *")
	}
	if at(cors, "MaxAge") != 3600 {
		t.Errorf("CorsConfiguration.MaxAge = %v, want 3600", at(cors, "MaxAge"))
	}
}

// The actions each function needs: what its store calls make (TransactWriteItems is authorised
// through Put/Update/Delete/ConditionCheckItem), DescribeTable for guregu/dynamo's paging (see
// template.yaml). TestPoliciesCoverEveryDynamoDBCall checks the other direction.
var wantActions = map[string][]string{
	"AuthorizerFunction": {"dynamodb:GetItem"},
	// The MCP endpoint: every family's calls (its tools are their routes, in process) and the
	// token read the authorizer does elsewhere.
	"McpFunction": {"dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem",
		"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"},
	"LocationsFunction": {
		"dynamodb:BatchGetItem", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem",
		"dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem",
	},
	// Maps as locations (nested owners; a delete moves the map to the trash in transactions).
	"MapsFunction": {
		"dynamodb:BatchGetItem", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem",
		"dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem",
	},
	// ConditionCheckItem: a privacy change re-places its entity's event links on condition of
	// the calendar's version. A delete moves the calendar to the trash in transactions (the
	// sweeper's purge batch-deletes); no index.
	"CalendarsFunction": {
		"dynamodb:BatchGetItem", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem",
		"dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem",
	},
	// Events and notes are written on condition that their entity (and an event's calendar)
	// exists; they never batch-write; a calendar's reminders are its links. The store reads records by
	// BatchGetItem only (read ahead with the campaign access, or a few keys at once): GetItem
	// is the authorizer's token read only.
	"EntityEventsFunction": {
		"dynamodb:BatchGetItem", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem",
		"dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem",
	},
	"EntityNotesFunction": {
		"dynamodb:BatchGetItem", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem",
		"dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem",
	},
	// Images: the image queue (reservations, discards) and the entity image routes' record
	// update, in transactions; reads by BatchGetItem.
	"ImagesFunction": {"dynamodb:BatchGetItem", "dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:UpdateItem"},
	// Kanka's entities endpoint reads, counts its callers' requests in their rate buckets, and
	// restores trashed entities (recovery) in transactions: TestEntitiesWritesOnlyRateBuckets.
	"EntitiesFunction": {"dynamodb:BatchGetItem", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:PutItem",
		"dynamodb:Query", "dynamodb:UpdateItem"},
	// Webhooks: their items and counts, a deleted webhook's partition (in batches); the stream's
	// function only reads (the webhooks, a changed record's parent); the delivery function
	// reads a webhook with its state and writes the state, the attempts and a switch-off.
	"WebhookRoutesFunction": {
		"dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem",
	},
	"WebhooksFunction":        {"dynamodb:BatchGetItem", "dynamodb:Query"},
	"WebhookDeliveryFunction": {"dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"},
	// The sweeper finishes cascades: it reads markers, tombstones and links, batch-deletes
	// partitions, rewrites child locations as roots and keeps the counters; its purges and
	// cascades check what they read; no index.
	"SweeperFunction": {
		"dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem",
		"dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem",
	},
}

// grantedActions are the actions a function's inline policies allow on the table.
func grantedActions(t *testing.T, tpl cfn, fn string) []string {
	t.Helper()
	tableArn := getAtt("Table", "Arn")
	indexArn := map[string]any{"Fn::Sub": "${Table.Arn}/index/*"}
	seen := map[string]bool{}
	for i, st := range tpl.statements(t, fn) {
		if st["Effect"] != "Allow" {
			t.Errorf("%s statement %d: Effect %v", fn, i, st["Effect"])
		}
		if st["NotAction"] != nil || st["NotResource"] != nil {
			t.Errorf("%s statement %d uses NotAction/NotResource", fn, i)
		}
		for _, r := range asList(st["Resource"]) {
			if !reflect.DeepEqual(r, tableArn) && !reflect.DeepEqual(r, indexArn) {
				t.Errorf("%s statement %d: resource %v is neither the table nor its indexes", fn, i, r)
			}
		}
		for _, a := range asList(st["Action"]) {
			s := str(a)
			if strings.Contains(s, "*") || strings.EqualFold(s, "dynamodb:Scan") {
				t.Errorf("%s statement %d grants %q", fn, i, s)
			}
			seen[s] = true
		}
	}
	out := make([]string, 0, len(seen))
	for a := range seen {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

func TestPoliciesGrantOnlyWhatEachFunctionNeeds(t *testing.T) {
	tpl := loadTemplate(t)
	for _, fn := range tpl.resourcesOfType("AWS::Serverless::Function") {
		t.Run(fn, func(t *testing.T) {
			if got := grantedActions(t, tpl, fn); !slices.Equal(got, wantActions[fn]) {
				t.Errorf("actions = %v, want %v", got, wantActions[fn])
			}
		})
	}
}

func TestTableIsOnDemandRecoverableAndRetained(t *testing.T) {
	tpl := loadTemplate(t)
	if got := tpl.resourcesOfType("AWS::DynamoDB::Table"); !slices.Equal(got, []string{"Table"}) {
		t.Fatalf("tables = %v, want exactly [Table]", got)
	}
	tbl := tpl.resources()["Table"]
	for _, c := range []struct {
		field string
		want  any
	}{
		{"DeletionPolicy", "Retain"},
		{"UpdateReplacePolicy", "Retain"},
		{"Properties.BillingMode", "PAY_PER_REQUEST"},
		{"Properties.PointInTimeRecoverySpecification.PointInTimeRecoveryEnabled", true},
		{"Properties.TimeToLiveSpecification.AttributeName", "ttl"}, // token items (store/identity.go)
		{"Properties.TimeToLiveSpecification.Enabled", true},
		{"Properties.SSESpecification.SSEEnabled", true},
	} {
		if got := at(tbl, strings.Split(c.field, ".")...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Table %s = %#v, want %#v", c.field, got, c.want)
		}
	}
	if name := at(tbl, "Properties", "TableName"); name != nil {
		t.Errorf("TableName %v: let CloudFormation name the table, so stacks do not collide", name)
	}
}

// TestTableMatchesTheStoreSchema compares the template's table with the one store.CreateTable
// makes (the schema every test and `lorekeep init` use), as DynamoDB Local describes it.
func TestTableMatchesTheStoreSchema(t *testing.T) {
	st, cfg := dynamotest.NewStore(t)
	desc, err := st.Client().DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(cfg.TableName)})
	if err != nil {
		t.Fatal(err)
	}
	want := schemaOf(desc.Table)
	if _, ok := want.gsis[store.GSI1]; !ok || want.keys[0] == "" {
		t.Fatalf("store.CreateTable made no keys or no %s: %+v", store.GSI1, want)
	}
	got := templateSchema(t, loadTemplate(t))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("template table schema:\n  %+v\nstore.CreateTable schema:\n  %+v", got, want)
	}
}

type schema struct {
	attrs map[string]string    // attribute -> type
	keys  [2]string            // hash, range
	gsis  map[string][3]string // index -> hash, range, projection
}

func schemaOf(d *types.TableDescription) schema {
	s := schema{attrs: map[string]string{}, gsis: map[string][3]string{}}
	for _, a := range d.AttributeDefinitions {
		s.attrs[aws.ToString(a.AttributeName)] = string(a.AttributeType)
	}
	keys := func(ks []types.KeySchemaElement) (h, r string) {
		for _, k := range ks {
			if k.KeyType == types.KeyTypeHash {
				h = aws.ToString(k.AttributeName)
			} else {
				r = aws.ToString(k.AttributeName)
			}
		}
		return h, r
	}
	s.keys[0], s.keys[1] = keys(d.KeySchema)
	for _, g := range d.GlobalSecondaryIndexes {
		h, r := keys(g.KeySchema)
		s.gsis[aws.ToString(g.IndexName)] = [3]string{h, r, string(g.Projection.ProjectionType)}
	}
	return s
}

func templateSchema(t *testing.T, tpl cfn) schema {
	props := at(tpl.resources()["Table"], "Properties")
	s := schema{attrs: map[string]string{}, gsis: map[string][3]string{}}
	for _, a := range list(at(props, "AttributeDefinitions")) {
		s.attrs[str(at(a, "AttributeName"))] = str(at(a, "AttributeType"))
	}
	keys := func(ks any) (h, r string) {
		for _, k := range list(ks) {
			switch at(k, "KeyType") {
			case "HASH":
				h = str(at(k, "AttributeName"))
			case "RANGE":
				r = str(at(k, "AttributeName"))
			default:
				t.Errorf("key %v: bad KeyType", k)
			}
		}
		return h, r
	}
	s.keys[0], s.keys[1] = keys(at(props, "KeySchema"))
	for _, g := range list(at(props, "GlobalSecondaryIndexes")) {
		h, r := keys(at(g, "KeySchema"))
		s.gsis[str(at(g, "IndexName"))] = [3]string{h, r, str(at(g, "Projection", "ProjectionType"))}
	}
	return s
}

func TestOutputsGiveTheAPIURLAndTheTable(t *testing.T) {
	out := at(loadTemplate(t), "Outputs")
	url := str(at(out, "ApiUrl", "Value", "Fn::Sub"))
	if !regexp.MustCompile(`^https://\$\{HttpApi\}\.execute-api\.\$\{AWS::Region\}\.\$\{AWS::URLSuffix\}/?$`).MatchString(url) {
		t.Errorf("ApiUrl = %v, want the HttpApi's execute-api URL", at(out, "ApiUrl", "Value"))
	}
	if got := at(out, "TableName", "Value"); !reflect.DeepEqual(got, ref("Table")) {
		t.Errorf("TableName output = %v, want !Ref Table", got)
	}
}

// TestTemplateReferencesResolve catches a !Ref, !GetAtt or ${...} that names nothing.
func TestTemplateReferencesResolve(t *testing.T) {
	tpl := loadTemplate(t)
	known := map[string]bool{"AWS::Region": true, "AWS::URLSuffix": true, "AWS::AccountId": true, "AWS::Partition": true, "AWS::StackName": true}
	for id := range tpl.resources() {
		known[id] = true
	}
	params, _ := tpl["Parameters"].(map[string]any)
	for p := range params {
		known[p] = true
	}
	sub := regexp.MustCompile(`\$\{([^}!]+)\}`)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if r, ok := v["Ref"].(string); ok && len(v) == 1 && !known[r] {
				t.Errorf("%s: !Ref %s names nothing", path, r)
			}
			if g := list(v["Fn::GetAtt"]); len(g) == 2 && !known[str(g[0])] {
				t.Errorf("%s: !GetAtt %v names nothing", path, g)
			}
			if s, ok := v["Fn::Sub"].(string); ok {
				for _, m := range sub.FindAllStringSubmatch(s, -1) {
					name, _, _ := strings.Cut(m[1], ".")
					if !known[name] && !known[m[1]] {
						t.Errorf("%s: ${%s} names nothing", path, m[1])
					}
				}
			}
			for k, e := range v {
				walk(path+"."+k, e)
			}
		case []any:
			for _, e := range v {
				walk(path+"[]", e)
			}
		}
	}
	walk("", map[string]any(tpl))
	if at(tpl, "Transform") != "AWS::Serverless-2016-10-31" {
		t.Errorf("Transform = %v", at(tpl, "Transform"))
	}
}

// readSamconfig reads samconfig.toml's flat TOML: [table] headers and key = value lines, as
// "table.key" -> the value's text.
func readSamconfig(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "samconfig.toml"))
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{}
	table := ""
	for i, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			table = strings.Trim(line, "[]") + "."
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("samconfig.toml line %d: %q", i+1, line)
			}
			values[table+strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return values
}

func TestSamconfigDeploysTheStack(t *testing.T) {
	values := readSamconfig(t)
	for k, want := range map[string]string{
		"version":                                     "0.1",
		"default.global.parameters.stack_name":        `"lorekeep"`,
		"default.deploy.parameters.capabilities":      `"CAPABILITY_IAM"`,
		"default.deploy.parameters.resolve_s3":        "true",
		"default.deploy.parameters.confirm_changeset": "true",
	} {
		if values[k] != want {
			t.Errorf("samconfig.toml %s = %q, want %s", k, values[k], want)
		}
	}
	for k := range values {
		if strings.HasSuffix(k, ".region") {
			t.Errorf("samconfig.toml pins a region (%s): leave it to the AWS profile", k)
		}
	}
}

func TestEntitiesWritesOnlyRateBuckets(t *testing.T) {
	tpl := loadTemplate(t)
	for _, st := range tpl.statements(t, "EntitiesFunction") {
		if !slices.Contains(asList(st["Action"]), any("dynamodb:UpdateItem")) || st["Sid"] == "RecoverEntities" {
			continue // a recovery's restore writes the campaign's items (its transactions)
		}
		want := map[string]any{"ForAllValues:StringLike": map[string]any{"dynamodb:LeadingKeys": []any{"RATE#*"}}}
		if len(asList(st["Action"])) != 1 || !reflect.DeepEqual(st["Condition"], want) {
			t.Errorf("EntitiesFunction may UpdateItem %v under %v, want only RATE# items", st["Action"], st["Condition"])
		}
	}
}

// Only ImagesFunction puts stored images (under img/) and takes uploads (incoming/); the
// families only put uploads and invoke it; only the sweeper deletes stored images; nobody else
// reads them (CloudFront does, through the bucket policy).
func TestOnlyImageFunctionsMayWriteImages(t *testing.T) {
	tpl := loadTemplate(t)
	family := []string{"s3:PutObject incoming/*"}
	want := map[string][]string{
		"LocationsFunction": family, "CalendarsFunction": family, "MapsFunction": family,
		"ImagesFunction":  {"s3:DeleteObject incoming/*", "s3:GetObject incoming/*", "s3:PutObject img/*"},
		"SweeperFunction": {"s3:DeleteObject img/*"},
	}
	invokes := map[string]bool{"LocationsFunction": true, "CalendarsFunction": true, "MapsFunction": true}
	for _, fn := range tpl.resourcesOfType("AWS::Serverless::Function") {
		if got := tpl.imageActions(fn); !slices.Equal(got, want[fn]) {
			t.Errorf("%s: image actions %v, want %v", fn, got, want[fn])
		}
		var invoke []any
		for _, p := range list(tpl.functionProp(fn, "Policies")) {
			for _, s := range list(at(p, "Statement")) {
				if slices.Contains(asList(at(s, "Action")), any("lambda:InvokeFunction")) {
					invoke = append(invoke, asList(at(s, "Resource"))...)
				}
			}
		}
		wantInvoke := []any{}
		if invokes[fn] {
			wantInvoke = []any{map[string]any{"Fn::GetAtt": []any{"ImagesFunction", "Arn"}}}
		}
		if len(invoke) != len(wantInvoke) || (len(invoke) == 1 && !reflect.DeepEqual(invoke[0], wantInvoke[0])) {
			t.Errorf("%s invokes %v, want %v", fn, invoke, wantInvoke)
		}
	}
	rules := list(at(tpl.resources()["ImageBucket"], "Properties", "LifecycleConfiguration", "Rules"))
	if len(rules) != 1 || at(rules[0], "Prefix") != "incoming/" || at(rules[0], "ExpirationInDays") != 1 || at(rules[0], "Status") != "Enabled" {
		t.Errorf("ImageBucket lifecycle rules %v, want incoming/ expired after a day", rules)
	}
	block := at(tpl.resources()["ImageBucket"], "Properties", "PublicAccessBlockConfiguration")
	for _, k := range []string{"BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets"} {
		if at(block, k) != true {
			t.Errorf("ImageBucket: %s is not true", k)
		}
	}
}

// zippedSize is the size of the zip archive sam deploy uploads for a bootstrap (deflate).
func zippedSize(t *testing.T, bootstrap []byte) int {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "bootstrap", Method: zip.Deflate})
	if err == nil {
		_, err = w.Write(bootstrap)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Len()
}
