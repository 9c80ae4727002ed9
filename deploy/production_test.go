package deploy_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lorekeep/lorekeep/shared/token"
)

// What an infrastructure team relies on beyond the routes: logs kept for a while, alarms on what
// breaks, tracing, a brake on traffic, failed asynchronous work kept, and `sam local` working
// against `make run`'s DynamoDB Local as the README says.

// alarmTarget is what every alarm notifies: the AlarmTopicArn parameter, or the stack's topic.
var alarmTarget = map[string]any{"Fn::If": []any{"CreateAlarmTopic", ref("AlarmTopic"), ref("AlarmTopicArn")}}

func TestEveryFunctionLogsToAGroupWithRetention(t *testing.T) {
	tpl := loadTemplate(t)
	if p := at(tpl, "Parameters", "LogRetentionDays"); at(p, "Type") != "Number" || at(p, "Default") != 30 {
		t.Errorf("LogRetentionDays = %v, want a Number defaulting to 30", p)
	}
	groups := map[string]string{} // log group name (as the template writes it) -> logical id
	for _, id := range tpl.resourcesOfType("AWS::Logs::LogGroup") {
		props := at(tpl.resources()[id], "Properties")
		if got := at(props, "RetentionInDays"); !reflect.DeepEqual(got, ref("LogRetentionDays")) {
			t.Errorf("%s: RetentionInDays = %v, want !Ref LogRetentionDays", id, got)
		}
		groups[str(at(props, "LogGroupName", "Fn::Sub"))] = id
	}
	for _, fn := range tpl.resourcesOfType("AWS::Serverless::Function") {
		// Lambda writes to /aws/lambda/<function name>; declared here, the group has a retention.
		if _, ok := groups["/aws/lambda/${"+fn+"}"]; !ok {
			t.Errorf("%s: no AWS::Logs::LogGroup named !Sub /aws/lambda/${%s}", fn, fn)
		}
	}
}

func TestApiLogsEveryRequestAsJSONAndThrottles(t *testing.T) {
	tpl := loadTemplate(t)
	props := at(tpl.resources()["HttpApi"], "Properties")
	logs := at(props, "AccessLogSettings")
	if got := at(logs, "DestinationArn"); !reflect.DeepEqual(got, getAtt("ApiAccessLogGroup", "Arn")) {
		t.Errorf("AccessLogSettings.DestinationArn = %v, want !GetAtt ApiAccessLogGroup.Arn", got)
	}
	format := str(at(logs, "Format"))
	// With API Gateway's variables filled in, each line is one JSON object.
	line := regexp.MustCompile(`\$context\.[A-Za-z0-9_.]+`).ReplaceAllString(format, "x")
	var fields map[string]string
	if err := json.Unmarshal([]byte(line), &fields); err != nil {
		t.Fatalf("access log format is not a JSON object: %v\n%s", err, format)
	}
	for key, variable := range map[string]string{
		"request_id": "$context.requestId", // the functions' request_id and X-Request-Id
		"route":      "$context.routeKey",
		"status":     "$context.status",
		"latency_ms": "$context.responseLatency",
		"user_id":    "$context.authorizer." + token.UserIDKey,
	} {
		if !strings.Contains(format, `"`+key+`":"`+variable+`"`) {
			t.Errorf("access log format has no %q: %q", key, variable)
		}
	}
	for field, param := range map[string]string{"ThrottlingBurstLimit": "ThrottlingBurstLimit", "ThrottlingRateLimit": "ThrottlingRateLimit"} {
		if got := at(props, "DefaultRouteSettings", field); !reflect.DeepEqual(got, ref(param)) {
			t.Errorf("DefaultRouteSettings.%s = %v, want !Ref %s", field, got, param)
		}
		if at(tpl, "Parameters", param, "Type") != "Number" || at(tpl, "Parameters", param, "Default") == nil {
			t.Errorf("parameter %s: want a Number with a default", param)
		}
	}
}

// alarmsOn are the alarms on one metric of a namespace, by logical id, with the dimension
// values they watch.
func alarmsOn(tpl cfn, namespace, metric string) map[string][]any {
	out := map[string][]any{}
	for _, id := range tpl.resourcesOfType("AWS::CloudWatch::Alarm") {
		p := at(tpl.resources()[id], "Properties")
		stats := []any{map[string]any{"Namespace": at(p, "Namespace"), "MetricName": at(p, "MetricName"), "Dimensions": at(p, "Dimensions")}}
		for _, m := range list(at(p, "Metrics")) {
			stats = append(stats, at(m, "MetricStat", "Metric"))
		}
		for _, s := range stats {
			if at(s, "Namespace") == namespace && at(s, "MetricName") == metric {
				for _, d := range list(at(s, "Dimensions")) {
					out[id] = append(out[id], at(d, "Value"))
				}
				if out[id] == nil {
					out[id] = []any{}
				}
			}
		}
	}
	return out
}

// watches says whether some alarm on the metric has the dimension value v.
func watches(alarms map[string][]any, v any) bool {
	for _, dims := range alarms {
		if slices.ContainsFunc(dims, func(d any) bool { return reflect.DeepEqual(d, v) }) {
			return true
		}
	}
	return false
}

func TestAlarmsCoverWhatBreaksAndNotifyTheTopic(t *testing.T) {
	tpl := loadTemplate(t)
	for _, id := range tpl.resourcesOfType("AWS::CloudWatch::Alarm") {
		p := at(tpl.resources()[id], "Properties")
		if got := list(at(p, "AlarmActions")); len(got) != 1 || !reflect.DeepEqual(got[0], alarmTarget) {
			t.Errorf("%s: AlarmActions = %v, want the alarm topic", id, got)
		}
		if at(p, "TreatMissingData") != "notBreaching" {
			t.Errorf("%s: TreatMissingData = %v: a quiet API is not an alarm", id, at(p, "TreatMissingData"))
		}
		if at(p, "AlarmDescription") == nil {
			t.Errorf("%s: no AlarmDescription", id)
		}
	}
	if p := at(tpl, "Parameters", "AlarmTopicArn"); at(p, "Type") != "String" || at(p, "Default") != "" {
		t.Errorf("AlarmTopicArn = %v, want a String defaulting to empty (the stack's own topic)", p)
	}
	if got := at(tpl, "Conditions", "CreateAlarmTopic"); !reflect.DeepEqual(got, map[string]any{"Fn::Equals": []any{ref("AlarmTopicArn"), ""}}) {
		t.Errorf("CreateAlarmTopic = %v", got)
	}
	// Every function's errors (the authorizer's are the authorizer's failures) and throttles.
	errs, throttles := alarmsOn(tpl, "AWS/Lambda", "Errors"), alarmsOn(tpl, "AWS/Lambda", "Throttles")
	for _, fn := range tpl.resourcesOfType("AWS::Serverless::Function") {
		if !watches(errs, ref(fn)) {
			t.Errorf("%s: no alarm on its Lambda Errors", fn)
		}
		if !watches(throttles, ref(fn)) {
			t.Errorf("%s: no alarm on its Lambda Throttles", fn)
		}
	}
	// The API's 5xx rate: 5xx over Count of the API's $default stage.
	for _, metric := range []string{"5xx", "Count"} {
		if a := alarmsOn(tpl, "AWS/ApiGateway", metric); !watches(a, ref("HttpApi")) || !watches(a, "$default") {
			t.Errorf("no alarm reads the API's %s (ApiId !Ref HttpApi, Stage $default): %v", metric, a)
		}
	}
	rate := at(tpl.resources()["ApiServerErrorRateAlarm"], "Properties")
	if !reflect.DeepEqual(at(rate, "Threshold"), ref("ServerErrorRatePercent")) {
		t.Errorf("ApiServerErrorRateAlarm Threshold = %v, want !Ref ServerErrorRatePercent", at(rate, "Threshold"))
	}
	// DynamoDB: throttled reads and writes, of the table and its index, and system errors of
	// every operation the functions make.
	for _, metric := range []string{"ReadThrottleEvents", "WriteThrottleEvents"} {
		if a := alarmsOn(tpl, "AWS/DynamoDB", metric); !watches(a, ref("Table")) || !watches(a, "gsi1") {
			t.Errorf("no alarm on the table's and the index's %s: %v", metric, a)
		}
	}
	ops := map[string]bool{"TransactWriteItems": true} // authorised through its items' actions
	for _, actions := range wantActions {
		for _, a := range actions {
			if op := strings.TrimPrefix(a, "dynamodb:"); op != "ConditionCheckItem" {
				ops[op] = true
			}
		}
	}
	sysErrs := alarmsOn(tpl, "AWS/DynamoDB", "SystemErrors")
	for _, op := range slices.Sorted(maps.Keys(ops)) {
		if !watches(sysErrs, op) {
			t.Errorf("no alarm on DynamoDB SystemErrors of %s", op)
		}
	}
}

func TestFunctionsAreTracedWithXRay(t *testing.T) {
	tpl := loadTemplate(t)
	for _, fn := range tpl.resourcesOfType("AWS::Serverless::Function") {
		if got := tpl.functionProp(fn, "Tracing"); got != "Active" {
			t.Errorf("%s: Tracing = %v, want Active", fn, got)
		}
	}
}

// asyncFailures lists the asynchronous functions (any event that is not an API route) that
// would lose a failed invocation: each must send it to AsyncFailureQueue, through its
// EventInvokeConfig (scheduled and other asynchronous invocations) or its event's
// DestinationConfig (DynamoDB and Kinesis stream consumers).
func asyncFailures(tpl cfn) []string {
	queue := getAtt("AsyncFailureQueue", "Arn")
	var out []string
	for _, fn := range tpl.resourcesOfType("AWS::Serverless::Function") {
		evs, _ := at(tpl.resources()[fn], "Properties", "Events").(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(evs)) {
			ev := evs[name]
			switch typ := str(at(ev, "Type")); typ {
			case "HttpApi":
			case "DynamoDB", "Kinesis":
				if !reflect.DeepEqual(at(ev, "Properties", "DestinationConfig", "OnFailure", "Destination"), queue) {
					out = append(out, fn+" event "+name+": no DestinationConfig.OnFailure to AsyncFailureQueue")
				}
			case "SQS": // the queue's redrive policy keeps what its function keeps failing on
				src := at(ev, "Properties", "Queue", "Fn::GetAtt")
				q, _ := src.([]any)
				if len(q) != 2 || at(tpl.resources()[str(q[0])], "Properties", "RedrivePolicy", "deadLetterTargetArn") == nil {
					out = append(out, fn+" event "+name+": its queue has no RedrivePolicy to a dead-letter queue")
				}
			case "Schedule", "ScheduleV2", "EventBridgeRule", "CloudWatchEvent", "SNS", "S3":
				cfg := tpl.functionProp(fn, "EventInvokeConfig")
				if !reflect.DeepEqual(at(cfg, "DestinationConfig", "OnFailure"), map[string]any{"Type": "SQS", "Destination": queue}) {
					out = append(out, fn+" event "+name+": no EventInvokeConfig.DestinationConfig.OnFailure to AsyncFailureQueue (Type SQS)")
				}
			default:
				out = append(out, fn+" event "+name+": event type "+typ+" has no failure handling here")
			}
		}
	}
	return out
}

func TestAsynchronousFunctionsKeepTheirFailures(t *testing.T) {
	tpl := loadTemplate(t)
	for _, e := range asyncFailures(tpl) {
		t.Error(e)
	}
	q := at(tpl.resources()["AsyncFailureQueue"], "Properties")
	if at(q, "MessageRetentionPeriod") != 1209600 || at(q, "SqsManagedSseEnabled") != true {
		t.Errorf("AsyncFailureQueue = %v, want 14 days' retention and encryption", q)
	}
	if !watches(alarmsOn(tpl, "AWS/SQS", "ApproximateNumberOfMessagesVisible"), getAtt("AsyncFailureQueue", "QueueName")) {
		t.Error("no alarm on messages in AsyncFailureQueue")
	}
	// The check itself: a scheduled function without a destination is reported.
	res := tpl.resources()
	res["ProbeFunction"] = map[string]any{"Type": "AWS::Serverless::Function", "Properties": map[string]any{
		"Events": map[string]any{"Every": map[string]any{"Type": "Schedule", "Properties": map[string]any{"Schedule": "rate(1 hour)"}}},
	}}
	if got := asyncFailures(tpl); len(got) != 1 || !strings.HasPrefix(got[0], "ProbeFunction event Every") {
		t.Errorf("a scheduled function without EventInvokeConfig: reported %q", got)
	}
}

// declaredVariables are a function's environment variables in the template (Globals and its own).
func declaredVariables(tpl cfn, fn string) []string {
	vars := map[string]bool{}
	for _, env := range []any{at(tpl, "Globals", "Function", "Environment", "Variables"), at(tpl.resources()[fn], "Properties", "Environment", "Variables")} {
		for k := range asMap(env) {
			vars[k] = true
		}
	}
	return slices.Sorted(maps.Keys(vars))
}

// makeRunDefaults reads what scripts/run.sh serves by default: DynamoDB Local's port and the table.
func makeRunDefaults(t *testing.T) (port, table string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "scripts", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	p := regexp.MustCompile(`DYNAMODB_LOCAL_PORT:-(\d+)`).FindSubmatch(raw)
	tb := regexp.MustCompile(`TABLE_NAME:-([a-z0-9_-]+)`).FindSubmatch(raw)
	if p == nil || tb == nil {
		t.Fatal("scripts/run.sh: no default DYNAMODB_LOCAL_PORT or TABLE_NAME")
	}
	return string(p[1]), string(tb[1])
}

func TestEnvJSONSetsEveryVariableOfEveryFunctionForMakeRun(t *testing.T) {
	tpl := loadTemplate(t)
	env := readEnvJSON(t)
	fns := tpl.resourcesOfType("AWS::Serverless::Function")
	if got := slices.Sorted(maps.Keys(env)); !slices.Equal(got, fns) {
		t.Errorf("env.json sets %v, want every function of the template: %v", got, fns)
	}
	port, table := makeRunDefaults(t)
	want := map[string]string{
		// The container reaches the host's DynamoDB Local there (samconfig maps the name on Linux).
		"DYNAMODB_ENDPOINT": "http://host.docker.internal:" + port,
		"TABLE_NAME":        table,
		"RATE_LIMIT":        fmt.Sprint(at(tpl, "Parameters", "RateLimit", "Default")),
	}
	for _, fn := range fns {
		// SAM only overrides the variables a function declares: env.json sets exactly those.
		if got, decl := slices.Sorted(maps.Keys(env[fn])), declaredVariables(tpl, fn); !slices.Equal(got, decl) {
			t.Errorf("env.json %s sets %v, the template declares %v", fn, got, decl)
		}
		for k, v := range want {
			if got, ok := env[fn][k]; ok && got != v {
				t.Errorf("env.json %s.%s = %q, want %q", fn, k, got, v)
			}
		}
	}
}

func TestSamLocalAndBuildConfiguration(t *testing.T) {
	values := readSamconfig(t)
	for k, want := range map[string]string{
		"default.local_invoke.parameters.env_vars":       `"env.json"`,
		"default.local_start_api.parameters.env_vars":    `"env.json"`,
		"default.local_start_lambda.parameters.env_vars": `"env.json"`,
		// Docker Desktop defines host.docker.internal; Docker on Linux needs the mapping.
		"default.local_invoke.parameters.add_host":       `["host.docker.internal:host-gateway"]`,
		"default.local_start_api.parameters.add_host":    `["host.docker.internal:host-gateway"]`,
		"default.local_start_lambda.parameters.add_host": `["host.docker.internal:host-gateway"]`,
		// The Makefile's targets build in the repository instead of a copy of all of it.
		"default.build.parameters.build_in_source": "true",
	} {
		if values[k] != want {
			t.Errorf("samconfig.toml %s = %q, want %s", k, values[k], want)
		}
	}
	// make run serves on 3000: sam local start-api must not take that port.
	if p := values["default.local_start_api.parameters.port"]; p == "" || p == "3000" {
		t.Errorf("samconfig.toml local_start_api port = %q, want one other than make run's 3000", p)
	}
	// The families reach ImagesFunction at env.json's LAMBDA_ENDPOINT: start-lambda serves there.
	for fn, vars := range readEnvJSON(t) {
		u, err := url.Parse(vars["LAMBDA_ENDPOINT"])
		if p := values["default.local_start_lambda.parameters.port"]; err != nil || u.Port() != p {
			t.Errorf("env.json %s.LAMBDA_ENDPOINT = %q, want start-lambda's port %s (samconfig.toml)", fn, vars["LAMBDA_ENDPOINT"], p)
		}
	}
}

// samCommands are the `sam ...` commands the README shows, in code spans and code blocks.
func samCommands(t *testing.T) [][]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, m := range regexp.MustCompile("(?m)(?:`|^\\s*)(sam (?:build|deploy|local|validate)[^`\\n]*)").FindAllStringSubmatch(string(raw), -1) {
		cmd := strings.TrimSpace(m[1])
		for _, part := range strings.Split(cmd, "&&") {
			out = append(out, strings.Fields(part))
		}
	}
	return out
}

func TestReadmeSamCommandsMatchTheTemplateAndEnvJSON(t *testing.T) {
	tpl := loadTemplate(t)
	cmds := samCommands(t)
	seen := map[string]bool{}
	for _, c := range cmds {
		if len(c) < 2 {
			continue
		}
		verb := c[1]
		if verb == "local" && len(c) > 2 {
			verb += " " + c[2]
		}
		seen[verb] = true
		if verb == "local invoke" {
			if len(c) < 4 || tpl.resources()[c[3]] == nil || at(tpl.resources()[c[3]], "Type") != "AWS::Serverless::Function" {
				t.Errorf("README: %q does not name a function of the template", strings.Join(c, " "))
			}
		}
		for i := 0; i+1 < len(c); i++ {
			switch c[i] {
			case "--event", "-e":
				if _, err := os.Stat(filepath.Join(root, c[i+1])); err != nil {
					t.Errorf("README: %q: %v", strings.Join(c, " "), err)
				}
			case "--env-vars", "-n":
				if c[i+1] != "env.json" {
					t.Errorf("README: %q: the variables are in env.json", strings.Join(c, " "))
				}
			case "--parameter-overrides":
				// sam deploy needs no edits: every parameter has a default.
				t.Errorf("README: %q: sam deploy must work with the defaults", strings.Join(c, " "))
			}
		}
	}
	for _, verb := range []string{"build", "deploy", "local invoke", "local start-api", "local start-lambda"} {
		if !seen[verb] {
			t.Errorf("README shows no `sam %s` (found %v)", verb, cmds)
		}
	}
	// sam deploy needs no edits: every parameter has a default.
	params := asMap(tpl["Parameters"])
	for _, p := range slices.Sorted(maps.Keys(params)) {
		if at(params[p], "Default") == nil {
			t.Errorf("parameter %s has no default: sam deploy would need one", p)
		}
	}
}
