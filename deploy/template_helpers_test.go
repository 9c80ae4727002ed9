package deploy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// root is the repository root, where template.yaml, samconfig.toml, events/ and the Makefile are.
const root = ".."

// cfn is a parsed CloudFormation template with SAM's short-form tags turned into their long
// form: !Ref X is {"Ref": "X"}, !GetAtt A.B is {"Fn::GetAtt": ["A", "B"]}, !Sub s is
// {"Fn::Sub": s}, and any other !Fn is {"Fn::Fn": ...}.
type cfn map[string]any

func loadTemplate(t testing.TB) cfn {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("template.yaml is not YAML: %v", err)
	}
	v, err := fromNode(&doc)
	if err != nil {
		t.Fatalf("template.yaml: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("template.yaml is not a mapping")
	}
	return m
}

func fromNode(n *yaml.Node) (any, error) {
	var v any
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return nil, fmt.Errorf("want one document, got %d", len(n.Content))
		}
		return fromNode(n.Content[0])
	case yaml.AliasNode:
		return fromNode(n.Alias)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if _, dup := m[k]; dup {
				return nil, fmt.Errorf("line %d: duplicate key %q", n.Content[i].Line, k)
			}
			val, err := fromNode(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[k] = val
		}
		v = m
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			val, err := fromNode(c)
			if err != nil {
				return nil, err
			}
			l = append(l, val)
		}
		v = l
	case yaml.ScalarNode:
		if isShortTag(n.Tag) {
			v = n.Value
		} else if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %v", n.Line, err)
		}
	default:
		return nil, fmt.Errorf("line %d: unexpected YAML node kind %v", n.Line, n.Kind)
	}
	if !isShortTag(n.Tag) {
		return v, nil
	}
	fn := strings.TrimPrefix(n.Tag, "!")
	switch fn {
	case "Ref":
		return map[string]any{"Ref": v}, nil
	case "GetAtt":
		if s, ok := v.(string); ok {
			res, attr, _ := strings.Cut(s, ".")
			v = []any{res, attr}
		}
		return map[string]any{"Fn::GetAtt": v}, nil
	default:
		return map[string]any{"Fn::" + fn: v}, nil
	}
}

// isShortTag says whether tag is a CloudFormation short form (!Ref...) rather than a YAML one.
func isShortTag(tag string) bool { return strings.HasPrefix(tag, "!") && !strings.HasPrefix(tag, "!!") }

// at walks v along map keys and returns nil when the path does not exist.
func at(v any, keys ...string) any {
	if c, ok := v.(cfn); ok {
		v = map[string]any(c)
	}
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func strs(v any) []string {
	var out []string
	for _, e := range list(v) {
		out = append(out, fmt.Sprint(e))
	}
	return out
}

func ref(name string) map[string]any { return map[string]any{"Ref": name} }

func getAtt(res, attr string) map[string]any {
	return map[string]any{"Fn::GetAtt": []any{res, attr}}
}

func (c cfn) resources() map[string]any { m, _ := c["Resources"].(map[string]any); return m }

// resourcesOfType are the logical ids of the resources of type typ, sorted.
func (c cfn) resourcesOfType(typ string) []string {
	var ids []string
	for id, r := range c.resources() {
		if at(r, "Type") == typ {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// functionProp is a function's property, or the Globals value when the function has none.
func (c cfn) functionProp(id, prop string) any {
	v, global := at(c.resources()[id], "Properties", prop), at(c, "Globals", "Function", prop)
	if prop == "Environment" && v != nil && global != nil { // SAM merges the variables, the function's winning
		merged := map[string]any{}
		for _, src := range []any{global, v} {
			if vars, ok := at(src, "Variables").(map[string]any); ok {
				for k, x := range vars {
					merged[k] = x
				}
			}
		}
		return map[string]any{"Variables": merged}
	}
	if v != nil {
		return v
	}
	return global
}

// publicRoute reports whether fn's route path needs no token: the meta function's, and a
// share link's month page (its signed token is in the path).
func publicRoute(fn, path string) bool {
	return fn == "MetaFunction" || fn == "CalendarsFunction" && strings.HasPrefix(path, "/share/")
}

// route is one API Gateway route: "METHOD /path".
type route struct{ method, path string }

func (r route) String() string { return r.method + " " + r.path }

// httpAPIRoutes maps each HttpApi event route to the logical id of its function.
func (c cfn) httpAPIRoutes(t testing.TB) map[route]string {
	t.Helper()
	out := map[route]string{}
	for _, fn := range c.resourcesOfType("AWS::Serverless::Function") {
		evs, _ := at(c.resources()[fn], "Properties", "Events").(map[string]any)
		for name, ev := range evs {
			if at(ev, "Type") != "HttpApi" {
				continue
			}
			if api := at(ev, "Properties", "ApiId"); !reflect.DeepEqual(api, ref("HttpApi")) {
				t.Errorf("%s event %s: ApiId is %v, want !Ref HttpApi", fn, name, api)
			}
			r := route{method: str(at(ev, "Properties", "Method")), path: str(at(ev, "Properties", "Path"))}
			if r.method != strings.ToUpper(r.method) || r.path == "" {
				t.Errorf("%s event %s: bad route %q", fn, name, r)
			}
			if prev, dup := out[r]; dup {
				t.Errorf("route %s is declared twice (%s and %s)", r, prev, fn)
			}
			out[r] = fn
		}
	}
	return out
}

// statements are the inline policy statements of a function. A policy that is not an inline
// document (a managed policy or a SAM policy template) fails the test: least privilege is only
// checkable on statements.
func (c cfn) statements(t testing.TB, fn string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i, p := range list(c.functionProp(fn, "Policies")) {
		sts := list(at(p, "Statement"))
		if sts == nil {
			t.Errorf("%s: policy %d is not an inline policy document: %v", fn, i, p)
			continue
		}
		for _, s := range sts {
			m, _ := s.(map[string]any)
			if !isImageStatement(m) && !isQueueStatement(m) && !slices.Contains(asList(m["Action"]), any("lambda:InvokeFunction")) { // checked by TestOnlyImageFunctionsMayWriteImages, TestWebhookQueues
				out = append(out, m)
			}
		}
	}
	return out
}

// imageObjects is the resource of a statement on the bucket's objects ("" otherwise): the
// prefix after the bucket's ARN ("img/*", "incoming/*").
func imageObjects(r any) string {
	sub, _ := at(r, "Fn::Sub").(string)
	p, _ := strings.CutPrefix(sub, "${ImageBucket.Arn}/")
	if p == sub {
		return ""
	}
	return p
}

func isImageStatement(st map[string]any) bool {
	for _, r := range asList(st["Resource"]) {
		if imageObjects(r) != "" {
			return true
		}
	}
	return false
}

// imageActions are the actions a function's inline policies allow on the bucket's objects,
// each as "action prefix".
func (c cfn) imageActions(fn string) []string {
	var out []string
	for _, p := range list(c.functionProp(fn, "Policies")) {
		for _, s := range list(at(p, "Statement")) {
			if m, _ := s.(map[string]any); isImageStatement(m) && m["Effect"] == "Allow" {
				for _, a := range asList(m["Action"]) {
					for _, r := range asList(m["Resource"]) {
						out = append(out, str(a)+" "+imageObjects(r))
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// asList reads an IAM field that may be a single value or a list.
func asList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	if v == nil {
		return nil
	}
	return []any{v}
}

// isQueueStatement says whether a statement grants SQS actions (on the webhooks' queues).
func isQueueStatement(st map[string]any) bool {
	for _, a := range asList(st["Action"]) {
		if strings.HasPrefix(str(a), "sqs:") {
			return true
		}
	}
	return false
}

// queueActions are a function's SQS grants, each as "action queue".
func (c cfn) queueActions(fn string) []string {
	var out []string
	for _, p := range list(c.functionProp(fn, "Policies")) {
		for _, s := range list(at(p, "Statement")) {
			m, _ := s.(map[string]any)
			if !isQueueStatement(m) {
				continue
			}
			for _, a := range asList(m["Action"]) {
				for _, r := range asList(m["Resource"]) {
					q, _ := at(r, "Fn::GetAtt").([]any)
					name := fmt.Sprint(r)
					if len(q) == 2 {
						name = str(q[0])
					}
					out = append(out, str(a)+" "+name)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
